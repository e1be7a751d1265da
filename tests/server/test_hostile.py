"""Hostile messages on both sockets: a few hundred random ones, each answered with a coded refusal
(or a normal answer), never a server error, and the table unchanged unless an action was legal."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from yambak.server import Settings, create_app

from .helpers import create

TYPES = ["hello", "ping", "advise", "roll", "hold", "release", "announce", "withdraw", "score", "undo"]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=30)
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
fields = st.sampled_from(["seat", "v", "held", "dice", "box", "strike", "since", "tokens", "ref", "extra", "type"])
messages = st.fixed_dictionaries(
    {"type": st.one_of(st.sampled_from(TYPES), values)},
    optional={f: values for f in ["seat", "v", "held", "dice", "box", "strike", "since", "tokens", "ref"]},
) | st.dictionaries(fields, values, max_size=6)
CODES = ("protocol/", "illegal/", "auth/", "stale/", "rate/", "table/", "advice/")


@pytest.fixture(scope="module")
def client_factory(tmp_path_factory):
    """One server for the module; each call a fresh table (the hostile client holds seat 0)."""
    folder = tmp_path_factory.mktemp("hostile")
    settings_ = Settings(
        database_url=f"sqlite:///{folder}/h.db",
        bot_delay=0.0,
        warm_strategies=False,
        rate_per_second=1000,
        rate_burst=1000,
        http_rate=1000,
        http_burst=1000,
    )
    with TestClient(create_app(settings_), base_url="http://127.0.0.1") as client:
        yield lambda: (client, create(client, "yams", [{"name": "Ann"}, {"name": "Bram"}]))


def _answers(ws, text):
    ws.send_text(text)
    try:
        return ws.receive_json()
    except WebSocketDisconnect as exc:
        return {"closed": exc.code}


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(messages, min_size=1, max_size=4))
def test_hostile_messages_on_a_table_socket(client_factory, batch):
    client, made = client_factory()
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        ws.send_json({"type": "hello", "tokens": [made["tokens"]["0"]]})
        assert ws.receive_json()["type"] == "welcome" and ws.receive_json()["type"] in ("state", "events")
        for msg in batch:
            out = _answers(ws, json.dumps(msg))
            if "closed" in out:
                assert out["closed"] in (4400, 1009)
                break
            if out["type"] == "error":
                assert out["code"].startswith(CODES) and out["code"] != "server/error", (msg, out)
            else:
                assert out["type"] in ("pong", "welcome", "event", "state", "events", "advice"), (msg, out)
                if out["type"] == "welcome":
                    ws.receive_json()


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(msg=messages)
def test_hostile_messages_on_a_sheet_socket(client_factory, msg):
    client, _ = client_factory()
    sheet = client.post("/api/keep", json={"name": "S", "preset": "yams", "players": ["Ann"]}).json()
    with client.websocket_connect(f"/ws/keep/{sheet['id']}") as ws:
        out = _answers(ws, json.dumps(msg))
        if "closed" in out:
            assert out["closed"] in (4400, 1009)
        elif out["type"] == "error":
            assert out["code"].startswith(("protocol/", "rate/")), (msg, out)
        else:
            assert out["type"] in ("pong", "welcome"), (msg, out)
    assert client.get(f"/api/keep/{sheet['id']}").json()["v"] == 0


def test_raw_frames_that_are_not_json_objects(client_factory):
    client, made = client_factory()
    with client.websocket_connect(f"/ws/{made['id']}") as ws:
        for text in ["", "null", "[]", '"hello"', "1e999", '{"type": "hello"', "\x00", "{}" * 100]:
            out = _answers(ws, text)
            if "closed" in out:
                break
            assert out["type"] == "error" and out["code"].startswith("protocol/"), (text, out)
    assert client.get(f"/api/tables/{made['id']}").json()["v"] == 0
    made_again = create(client, "yams", [{"name": "Ann"}])
    assert made_again["id"]
