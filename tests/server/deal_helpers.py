"""Helpers for the deal tests: more browsers on one server (each with a profile of its own), a deal's
table played to the end (or for a few turns) over its socket, and every route of the app."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from .helpers import WS, legal

ORIGIN = {"origin": "http://127.0.0.1"}


def person(client: TestClient, name: str) -> TestClient:
    """Another browser on the same server, with a profile of its own made now."""
    c = TestClient(client.app, base_url="http://127.0.0.1")
    assert c.post("/api/me", json={"name": name}, headers=ORIGIN).status_code == 201
    return c


def play(c: TestClient, made: dict, last: bool = False, turns: int | None = None) -> dict:
    """Play a deal's table: roll once a turn, fill the first (or last) box offered, to the end or for
    `turns` turns. The last view."""
    with c.websocket_connect(f"/ws/{made['id']}") as s:
        ws = WS(s)
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
