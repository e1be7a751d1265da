"""The closed protocol, both ways: every message the server sends a table's or a sheet's socket during
whole games is one the models of `session/views.py`, `tables/schema.py` and `keeper/schema.py` allow
(they forbid unknown fields), and the JSON Schema the browser's types come from is theirs."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from yambak.engine import Announce, Hold, Release, Roll, Score, Undo, Withdraw
from yambak.server.keeper import schema as sheet_schema
from yambak.server.tables import schema as table_schema

from .helpers import WS, create
from .keeper_plan import plan

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def settings(tmp_path):
    """Whole games at test speed: the socket's rate limit out of the way."""
    from yambak.server import Settings

    return Settings(
        database_url=f"sqlite:///{tmp_path}/p.db", bot_delay=0.0, warm_strategies=False, rate_per_second=10000,
        rate_burst=10000,
    )  # fmt: skip


def _message(action, v):
    """An engine action as the socket message a client sends for it."""
    base = {"seat": action.player, "v": v}
    if isinstance(action, Roll):
        return {"type": "roll", **base, **({"held": list(action.held)} if action.held is not None else {})}
    if isinstance(action, Hold):
        return {"type": "hold", **base, "dice": list(action.dice)}
    if isinstance(action, Release):
        return {"type": "release", **base, "dice": list(action.dice)}
    if isinstance(action, Announce):
        return {"type": "announce", **base, "box": action.box}
    if isinstance(action, Withdraw):
        return {"type": "withdraw", **base}
    if isinstance(action, Undo):
        return {"type": "undo", **base}
    assert isinstance(action, Score)
    return {"type": "score", **base, "box": action.box, **({"strike": True} if action.strike else {})}


def _check(adapter, msg):
    adapter.validate_python(msg)
    return msg


@pytest.mark.parametrize(
    "preset, extra, turns",
    [
        ("yams", {}, None),
        ("yammen", {}, 14),
        ("yams-fr", {"options": {"columns": 1}}, 8),
        ("yamb", {"duplicate": True}, 10),
    ],
    ids=["yams-to-the-end", "yammen-announcing", "yams-fr-striking", "yamb-duplicate"],
)
def test_every_message_of_a_game_is_a_typed_one(client, preset, extra, turns):
    made = create(client, preset, [{"name": "Ann"}, {"name": "Bram"}], **extra)
    manager = client.app.state.manager
    rng = random.Random(preset)
    seen = set()
    with client.websocket_connect(f"/ws/{made['id']}") as s0, client.websocket_connect(f"/ws/{made['id']}") as s1:
        socks = [WS(s0), WS(s1)]
        views = {}
        for seat, ws in enumerate(socks):
            welcome, view = ws.hello([made["tokens"][str(seat)]])
            _check(table_schema.server_message, welcome)
            views[seat] = _check(table_schema.server_message, view)
        ws_nonce = socks[0].act(type="nonce", seat=0, v=0, nonce="ab" * 16) if not extra.get("duplicate") else None
        if ws_nonce is not None:
            seen.add(_check(table_schema.server_message, ws_nonce)["type"])
            _check(table_schema.server_message, socks[1].recv())
        refused = _check(table_schema.server_message, socks[0].act(type="advise", seat=0, v=99))
        assert refused["type"] == "error"  # a refusal is a typed message too
        done = 0
        while True:
            table = manager.sessions[made["id"]]
            state = table.state
            if state.finished or (turns is not None and len(state.history) >= turns):
                break
            seat = min(state.to_act(), key=lambda s: state.sheets[s].turns)  # duplicate: whoever is behind
            actions = [a for a in state.legal_actions(seat) if not isinstance(a, Undo)]
            announces = [a for a in actions if isinstance(a, Announce)]
            action = announces[0] if announces and preset == "yammen" else rng.choice(actions)
            v = table.expected_version(seat)
            msg = _check(table_schema.server_message, socks[seat].act(**_message(action, v)))
            assert msg["type"] == "event", msg
            seen.add(msg["event"]["type"])
            for other in (1 - seat,):  # the other follower's view of the same event (masked on duplicate tables)
                _check(table_schema.server_message, socks[other].recv())
            done += 1
        _check(table_schema.server_message, socks[0].hello([made["tokens"]["0"]], since=max(0, table.version - 3))[1])
    assert "scored" in seen and "rolled" in seen and done > 10
    if preset == "yammen":
        assert "announced" in seen
    if turns is None:
        assert manager.sessions.get(made["id"]) is None or manager.sessions[made["id"]].state.finished


def test_every_message_of_a_kept_sheet_is_a_typed_one(client):
    sheet = client.post("/api/keep", json={"name": "Kitchen", "preset": "yammen", "players": ["Ann", "Bram"]}).json()
    entries, _ = plan("yammen", ("Ann", "Bram"))
    with client.websocket_connect(f"/ws/keep/{sheet['id']}") as raw:
        ws = WS(raw)
        for msg in ws.hello(tokens=[sheet["token"]]):
            _check(sheet_schema.server_message, msg)
        for v, e in enumerate(entries):
            entry = {"id": f"entry-{v:06d}", "v": v, "filled": None, **e.body()}
            entry = {k: x for k, x in entry.items() if x is not None}
            msg = _check(sheet_schema.server_message, ws.act(type="entry", entry=entry, ref=entry["id"]))
            assert msg["type"] == "event" and msg["ref"] == entry["id"], msg
        again = ws.act(type="entry", entry=entry, ref=entry["id"])  # the last one sent again: acknowledged
        assert _check(sheet_schema.server_message, again) == {"type": "ack", "ref": entry["id"], "v": len(entries)}
        last = _check(sheet_schema.server_message, ws.hello(since=len(entries) - 2)[1])
        assert last["type"] == "events" and last["view"]["finished"] and last["view"]["winners"]


def test_the_browsers_schema_is_the_models():
    """scripts/protocol.py writes the JSON Schema the page scripts' types come from; the file in the tree is it."""
    import runpy

    schema = runpy.run_path(str(ROOT / "scripts" / "protocol.py"))["schema"]
    shipped = json.loads((ROOT / "src" / "yambak" / "web" / "static" / "protocol.schema.json").read_text())
    assert shipped == schema(), "run: .venv/bin/python scripts/protocol.py (and make types)"
