"""Hostile requests the OpenAPI fuzz (`test_fuzz.py`) does not make: the browser's HTML forms, the
sockets, the operators' routes and static files, and the cheap inputs that once gave a server error
(a deep TOML or JSON nest, a 5,000-digit number, a superscript digit). Every answer is a refusal or a
page, never a 5xx, and an unexpected error is one log line with an id. A last test fails on any route
that is in neither this file's list nor the fuzzed schema.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.routing import Mount
from starlette.websockets import WebSocketDisconnect

from yambak.server import Settings, create_app
from yambak.server.logs import JsonFormatter, LineFormatter

DEEP_TOML = 'id = "deep"\na = ' + "[" * 600 + "]" * 600 + "\n"
DEEP_INLINE = 'id = "deep"\na = ' + "{b = " * 1000 + "1" + "}" * 1000 + "\n"
BIG_INT_TOML = (
    'id = "big"\n[[rows]]\nid = "chance"\nkind = "sum"\npoints = ' + "9" * 5000 + '\n[[columns]]\nid = "free"\n'
)
HOUSE_RULES = (DEEP_TOML, DEEP_INLINE, BIG_INT_TOML)
# What a hostile form sends in every field it knows
NASTY = ["", "²", "٣", "9" * 5000, "-1", "\x00", "\u202egnp.exe", "x" * 10000, DEEP_TOML, "{}", "[]", "on"]
FIELDS = [
    "name", "preset", "custom", "clock", "hints", "undo", "listed", "duplicate", "seat0_kind", "seat0_name",
    "seat1_kind", "seat1_name", "player0", "player1", "owner", "rounds", "window", "invite", "seat", "yams-fr.columns",
    "action", "round", "minutes", "player", "on",
]  # fmt: skip


def _nest(depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for _ in range(depth):
        out = {"a": out}
    return out


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    folder = tmp_path_factory.mktemp("hostile-http")
    return create_app(
        Settings(
            database_url=f"sqlite:///{folder}/h.db",
            bot_delay=0.0,
            warm_strategies=False,
            coach_process=False,
            http_rate=1e6,
            http_burst=10**6,
            profile_rate=1e6,
            profile_burst=10**6,
        )
    )


@pytest.fixture(scope="module")
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


@pytest.fixture(scope="module")
def ids(client: TestClient) -> dict[str, str]:
    """Real objects the hostile requests aim at."""
    table = client.post("/api/tables", json={"name": "H", "preset": "yams", "seats": [{"name": "A"}, {"kind": "open"}]})
    sheet = client.post("/api/keep", json={"preset": "yams", "players": ["A", "B"]})
    club = client.post("/api/clubs", json={"name": "C", "preset": "yams", "rounds": 1, "window": 60, "owner": "A"})
    assert table.status_code == sheet.status_code == club.status_code == 201, (table.text, sheet.text, club.text)
    client.cookies.clear()
    return {
        "table_id": table.json()["id"],
        "sheet_id": sheet.json()["id"],
        "code": sheet.json()["code"],
        "tournament_id": club.json()["id"],
        "preset": "yams",
        "n": "1",
    }


def _no_server_error(r: Any) -> None:
    assert r.status_code < 500, (r.request.method, r.request.url, r.status_code, r.text[:300])
    assert "Traceback" not in r.text


# --- the inputs of the issue --------------------------------------------------------------------------


@pytest.mark.parametrize("text", HOUSE_RULES, ids=["deep-array", "deep-inline-table", "5000-digits"])
def test_house_rules_too_deep_or_too_big_are_refused_in_every_form(client: TestClient, text: str) -> None:
    seat = {"seat0_kind": "human", "seat0_name": "Ann"}
    pasted = client.post("/tables", data={"name": "T", "custom": text, **seat})
    uploaded = client.post("/tables", data={"name": "T", **seat}, files={"custom_file": ("r.toml", text.encode())})
    kept = client.post("/keep", data={"custom": text, "player0": "Ann"})
    for r in (pasted, uploaded, kept):
        assert r.status_code == 400, r.text[:200]
        assert "nested too deeply" in r.text or "number too large" in r.text


@pytest.mark.parametrize("path", ["/api/tables", "/api/keep"])
def test_json_rules_nested_800_deep_are_refused(client: TestClient, path: str) -> None:
    body = {"name": "x", "rules": _nest(800), "seats": [{"name": "Ann"}], "players": ["Ann"]}
    import json

    r = client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json() == {
        "code": "input/invalid",
        "message": "body: nested too deeply (at most 32 levels)",
    }
    big = '{"name": "x", "preset": "yams", "seats": [{"name": "A"}], "clock": ' + "9" * 5000 + "}"
    r = client.post(path, content=big, headers={"content-type": "application/json"})
    assert r.status_code == 422 and "number too large" in r.json()["message"]


def test_unicode_digits_are_not_numbers(client: TestClient, ids: dict[str, str]) -> None:
    for path in ("/replay/²", "/replay/٣", f"/api/tables/{ids['table_id']}/frames/²", "/api/results/²/record"):
        r = client.get(path)
        _no_server_error(r)
        assert r.status_code in (404, 422), (path, r.status_code)
    r = client.post(
        "/api/tables",
        content=b"{}",
        headers={"content-length": "²".encode("latin-1"), "content-type": "application/json"},
    )
    assert r.status_code == 413


# --- the HTML forms ---------------------------------------------------------------------------------

FORM_ROUTES = [
    "/tables", "/t/{table_id}/join", "/t/{table_id}/rematch", "/keep", "/me", "/me/move/{code}",
    "/daily/{preset}/play", "/clubs", "/c/{tournament_id}/join", "/c/{tournament_id}/play/{n}",
    "/c/{tournament_id}/manage",
]  # fmt: skip


@pytest.mark.parametrize("route", FORM_ROUTES)
def test_hostile_forms(client: TestClient, ids: dict[str, str], route: str) -> None:
    """Every field a form may read, set to each nasty value in turn; the ids real or not."""
    for path in (route.format(**ids), route.format(**{k: "²" for k in ids})):
        for value in NASTY:
            _no_server_error(client.post(path, data={f: value for f in FIELDS}))
        _no_server_error(client.post(path, data={}))
        _no_server_error(
            client.post(path, content=b"\xff\xfe" * 50, headers={"content-type": "application/x-www-form-urlencoded"})
        )
        _no_server_error(
            client.post(path, content=b"--x\r\n", headers={"content-type": "multipart/form-data; boundary=x"})
        )
        _no_server_error(client.post(path, files={"custom_file": ("r.toml", b"\x00" * 13000)}))
        client.cookies.clear()


# --- operators' routes and static files --------------------------------------------------------------

OPS_ROUTES = ["/healthz", "/readyz", "/metrics", "/favicon.ico", "/robots.txt"]


def test_operators_routes_and_static_files(client: TestClient) -> None:
    for path in OPS_ROUTES:
        assert client.get(path + "?x=" + "9" * 5000).status_code in (200, 503)
        assert client.post(path, json=_nest(10)).status_code == 405
    for path in (
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/²",
        "/static/" + "a" * 5000,
        "/static/style.css%00",
    ):
        r = client.get(path)
        _no_server_error(r)
        assert r.status_code in (400, 404), (path, r.status_code)


# --- sockets ----------------------------------------------------------------------------------------

SOCKETS = ["/ws/{table_id}", "/ws/keep/{sheet_id}"]
SOCKET_MESSAGES = [
    '{"type": "hello", "tokens": ' + "[" * 3000 + "]" * 3000 + "}",
    '{"type": "hello", "since": ' + "9" * 4000 + "}",
    '{"type": "roll", "seat": 0, "v": 1e999}',
    "[" * 4000,
    "²",
    '"just a string"',
    "null",
]


@pytest.mark.parametrize("route", SOCKETS)
def test_hostile_socket_messages(client: TestClient, ids: dict[str, str], route: str) -> None:
    for text in SOCKET_MESSAGES:
        with client.websocket_connect(route.format(**ids)) as ws:
            ws.send_text(text)
            try:
                out = ws.receive_json()
            except WebSocketDisconnect as exc:
                assert exc.code in (1008, 1009, 4400), (text[:40], exc.code)
                continue
            if out.get("type") == "error":
                assert out["code"].startswith(("protocol/", "auth/", "input/")), (text[:40], out)
            ws.send_bytes(b"\xff\xfe\x00")  # not UTF-8: answered or closed, the server goes on
    for missing in ("²", "x" * 5000):  # no such table or sheet: a coded refusal, or a close
        with client.websocket_connect(route.format(table_id=missing, sheet_id=missing)) as ws:
            ws.send_text('{"type": "hello", "tokens": []}')
            try:
                out = ws.receive_json()
            except WebSocketDisconnect as exc:
                assert exc.code >= 1000
            else:
                assert out["type"] == "error" and out["code"].endswith(("/unknown", "not-found")), out


# --- an unexpected error -------------------------------------------------------------------------------


def test_an_unexpected_error_is_one_line_with_an_id(tmp_path: Any, caplog: pytest.LogCaptureFixture) -> None:
    """A bug deep in a recursion: the client gets a coded 500 with an id; the log has that id on one
    line of under 2 kB in both formats, not a thousand frames."""
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path}/e.db", warm_strategies=False, coach_process=False))

    def recurse(n: int) -> int:
        return recurse(n + 1) + 1

    @app.get("/boom")
    def boom() -> int:  # a bug that no input can reach in the real routes
        return recurse(0)

    with caplog.at_level(logging.ERROR), TestClient(app, raise_server_exceptions=False) as c:
        r = c.get("/boom")
    assert r.status_code == 500
    body = r.json()
    assert body["code"] == "server/error" and body["id"] in body["message"]
    records = [rec for rec in caplog.records if body["id"] in rec.getMessage()]
    assert len(records) == 1
    for formatter in (LineFormatter(), JsonFormatter()):
        line = formatter.format(records[0])
        assert "\n" not in line and len(line) < 2000 and "RecursionError" in line and body["id"] in line
    try:
        recurse(0)
    except RecursionError:
        import sys

        deep = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed", None, sys.exc_info())
    for formatter in (LineFormatter(), JsonFormatter()):
        line = formatter.format(deep)
        assert "\n" not in line and len(line) < 2000 and "frames)" in line  # log.exception anywhere: one line too


# --- every route is tested one way or the other -----------------------------------------------------------


def _routes(app: FastAPI) -> set[tuple[str, str]]:
    from fastapi.routing import iter_route_contexts

    out: set[tuple[str, str]] = set()
    for context in iter_route_contexts(app.routes):
        route = context.route
        if isinstance(route, Mount):
            out.add(("MOUNT", context.path))
        elif not getattr(route, "methods", None):
            out.add(("WS", context.path))
        else:
            out |= {(m, context.path) for m in route.methods if m != "HEAD"}
    return out


def test_every_route_is_fuzzed_or_has_hostile_cases_here(app: FastAPI) -> None:
    fuzzed = {(m.upper(), path) for path, ops in app.openapi()["paths"].items() for m in ops}
    here = {("POST", r) for r in FORM_ROUTES} | {("GET", r) for r in OPS_ROUTES}
    here |= {("WS", r) for r in SOCKETS} | {("MOUNT", "/static")}
    routes = _routes(app)
    assert not fuzzed & here, fuzzed & here  # one list each
    missing = routes - fuzzed - here
    assert not missing, (
        f"routes with no hostile test: add them to FORM_ROUTES/OPS_ROUTES/SOCKETS or the schema: {missing}"
    )
    assert here <= routes, here - routes  # no stale entry
