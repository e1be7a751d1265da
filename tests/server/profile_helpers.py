"""Helpers for the profile tests: tables made from a client that keeps its cookies (its profile), and
whole games played over the socket."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from yambak.server import Settings

from .helpers import WS, legal


def new_table(client: Any, preset: str = "yams", seats: list[dict[str, Any]] | None = None, **extra: Any) -> dict:
    """A table made by this client, which keeps its cookies (seat tokens, profile)."""
    body = {"name": "Test table", "preset": preset, "seats": seats or [{"name": "Ann"}], "listed": False, **extra}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def play_out(client: Any, table_id: str, tokens: list[str], hint_at: int | None = None) -> dict[str, Any]:
    """Play the seats these tokens hold until the game is over (each turn: roll once, fill the first box
    the engine offers; bots play theirs). `hint_at`: ask the coach once, on that turn of ours. The last view."""
    with client.websocket_connect(f"/ws/{table_id}") as s:
        ws = WS(s)
        welcome, out = ws.hello(tokens)
        mine = set(welcome["seats"])
        view = out["view"]
        v = out["v"]
        turn = 0
        while not view["finished"]:
            seat = next((p for p in view["to_act"] if p in mine), None)
            if seat is None:
                out = ws.recv()
                if out.get("view"):
                    view, v = out["view"], out["v"]
                continue
            out = ws.act(type="roll", seat=seat, v=v)
            assert out["type"] == "event", out
            if hint_at is not None and turn == hint_at:
                advice = ws.act(type="advise", seat=seat, v=out["v"])
                assert advice["type"] == "advice", advice
            box = legal(out["view"]["players"][seat]["turn"])[0]
            out = ws.act(type="score", seat=seat, v=out["v"], box=box)
            assert out["type"] == "event", out
            view, v = out["view"], out["v"]
            turn += 1
        return view


class Clock:
    """A clock the test moves (the server's `Settings.clock`)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def profile_settings(tmp_path: Any, clock: Clock, **extra: Any) -> Settings:
    """A server for the profile tests: SQLite in tmp_path (or `database_url`), the test's clock, generous
    rate limits, grades in a thread (the coach's process grades at idle priority: the other test worker
    keeping both cores busy would hold them past any wait; tests/server/test_coach_pool.py tests it)."""
    defaults: dict[str, Any] = dict(
        database_url=f"sqlite:///{tmp_path}/test.db", bot_delay=0.0, warm_strategies=False, undo_grace=0.0,
        clock=clock, profile_burst=20, rate_per_second=1000, rate_burst=1000, coach_process=False,
    )  # fmt: skip
    return Settings(**{**defaults, **extra})
