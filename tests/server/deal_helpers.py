"""Helpers for the deal and ranked tests: more browsers on one server (each with a profile of its own), a
deal's table played to the end (or for a few turns) over its socket, ranked tables played by each player
on their own socket, and every route of the app."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

from fastapi.testclient import TestClient

from yambak.server.tables import schema as table_schema

from .helpers import WS, browser, legal

ORIGIN = {"origin": "http://127.0.0.1"}


class CheckedWS(WS):
    """A table's socket whose every message from the server is held to the protocol's models (a deal's
    view, a ranked table's settings, a stand-in's events included)."""

    def recv(self) -> dict[str, Any]:
        msg = super().recv()
        table_schema.server_message.validate_python(msg)
        return msg


_ADDRESSES = itertools.count(1)


def person(client: TestClient, name: str, address: str | None = None) -> TestClient:
    """Another browser on the same server, with a profile of its own made now, from an address of its own
    (profiles that share an address never rate each other) unless one is given."""
    n = next(_ADDRESSES)
    c = browser(client, client=(address or f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}", 50000))
    assert c.post("/api/me", json={"name": name}, headers=ORIGIN).status_code == 201
    return c


def play(c: TestClient, made: dict, last: bool = False, turns: int | None = None) -> dict:
    """Play a deal's table: roll once a turn, fill the first (or last) box offered, to the end or for
    `turns` turns. The last view."""
    with c.websocket_connect(f"/ws/{made['id']}") as s:
        ws = CheckedWS(s)
        _, out = ws.hello(list(made["tokens"].values()))
        view, v = out["view"], out["v"]
        assert view["settings"]["hints"] is False and view["fairness"]["open"] is False
        assert view["fairness"]["seed"] is None
        done = 0
        while not view["finished"] and (turns is None or done < turns):
            out = ws.act(type="roll", seat=0, v=v)
            assert out["type"] == "event", out
            boxes = legal(out["view"]["players"][0]["turn"])
            out = ws.act(type="score", seat=0, v=out["v"], box=boxes[-1] if last else boxes[0])
            assert out["type"] == "event", out
            view, v = out["view"], out["v"]
            done += 1
        return view


def seat_ranked(c: TestClient, players: int = 2) -> dict:
    """A seat at a ranked yams table of this size (the one waiting for players, or a new one)."""
    r = c.post("/api/ranked/yams/play", json={"players": players})
    assert r.status_code == 200, r.text
    return r.json()


def seat_ranked_together(clock: Any, clients: dict[str, TestClient], players: int = 2) -> dict[str, dict]:
    """The first client opens a ranked table; the others take its seats once it has waited ten minutes
    (the rating window then seats anyone: `ranked.manager.window`)."""
    names = list(clients)
    made = {names[0]: seat_ranked(clients[names[0]], players)}
    clock.now += timedelta(minutes=10)
    for n in names[1:]:
        made[n] = seat_ranked(clients[n], players)
        assert made[n]["id"] == made[names[0]]["id"], (n, made)
    return made


def play_ranked(
    clients: dict[str, TestClient],
    made: dict[str, dict],
    until_last: bool = False,
    thrown: tuple[str, ...] = (),
    pick: dict[str, Any] | None = None,
) -> dict:
    """Each player plays their own seat to the end (or up to the game's very last action, left to the
    caller). The last view. A player plays as the medium bot would (its choices, from the table's state on
    the server: an honest game, which the fair-play review leaves alone); named in `pick`, rolls once and
    fills the box `pick[name](turn)` chooses; named in `thrown`, rolls once and fills the box that writes the
    least (the last such in sheet order): a thrown game, far below the easy bot's and, whatever the dice, below
    the medium bot's (the last box offered, as it was, beat it on lucky dice: once in a few dozen games)."""
    import random

    from yambak.bots import choose_action
    from yambak.terminal.online import action_message

    chooser = {**{n: _least for n in thrown}, **(pick or {})}
    socks = {n: clients[n].websocket_connect(f"/ws/{made[n]['id']}") for n in clients}
    ws = {n: CheckedWS(s.__enter__()) for n, s in socks.items()}
    seat = {n: int(next(iter(made[n]["tokens"]))) for n in clients}
    rng = random.Random(0)
    try:
        out = {n: ws[n].hello(list(made[n]["tokens"].values()))[1] for n in clients}
        view = out[next(iter(clients))]["view"]
        v = view["v"]
        while not view["finished"]:
            who = next(n for n in clients if seat[n] == view["current"])
            mine = view["players"][seat[who]]
            if who in chooser:
                if not mine["turn"]:
                    act = {"type": "roll", "seat": seat[who]}
                else:
                    act = {"type": "score", "seat": seat[who], "box": chooser[who](mine["turn"])}
            else:
                state = clients[who].app.state.manager.get(made[who]["id"]).state
                act = action_message(choose_action(state, seat[who], "greedy", rng))
            turns = sum(p["turns_done"] for p in view["players"])
            last = act["type"] == "score" and turns == len(view["players"]) * 13 - 1
            if until_last and last:
                return {"ws": ws[who], "seat": seat[who], "v": v, "act": act, "socks": socks}
            done = ws[who].act(v=v, **act)
            assert done["type"] == "event", done
            view, v = done["view"], done["v"]
            for n in clients:  # the others read the same events (past the states of who came and went)
                if n != who:
                    while ws[n].recv().get("v") != v:
                        pass
        return view
    finally:
        if not until_last:
            for s in socks.values():
                s.__exit__(None, None, None)


def _least(turn: dict) -> str:
    """The legal box that writes the least now (the last of them in sheet order)."""
    boxes = legal(turn)
    least = min(turn["boxes"][b]["written"] for b in boxes)
    return [b for b in boxes if turn["boxes"][b]["written"] == least][-1]


def routes(app: Any) -> list[tuple[str, frozenset[str]]]:
    """(path, methods) of every route of the app, sockets as "WS" (routers included as they are)."""
    out = []
    for r in app.routes:
        inner = getattr(r, "original_router", None)
        prefix = getattr(getattr(r, "include_context", None), "prefix", "")
        for x in inner.routes if inner is not None else [r]:
            path = prefix + getattr(x, "path", "")
            out.append((path, frozenset(getattr(x, "methods", None) or {"WS"})))
    return out
