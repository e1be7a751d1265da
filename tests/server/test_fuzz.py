"""Every route of the app's OpenAPI schema fuzzed by Schemathesis: no input gives a server error.

The schema is the app's own (`app.openapi()`, not served). A few real objects are made first (a table
in play, a finished one, a kept sheet and its code, a profile, a club tournament) and about half of the
generated path parameters aim at them, so that requests reach the handlers, not only the 404s.
The rate limits are raised so that requests get past them; the seed is fixed (`derandomize`); the
whole run stays within about 60 s. The browser's HTML forms and the sockets are not in the schema:
`test_hostile_http.py` has their hand-written cases, and checks that every route is in one list or
the other.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks
from schemathesis.python import asgi

from yambak.server import Settings, create_app

EXAMPLES_PER_ROUTE = 10
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def fuzz_settings(folder: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{folder}/fuzz.db",
        bot_delay=0.0,
        warm_strategies=False,
        coach_process=False,
        http_rate=1e6,
        http_burst=10**6,
        profile_rate=1e6,
        profile_burst=10**6,
        rate_per_second=1e6,
        rate_burst=10**6,
    )


def _seed(app: Any) -> dict[str, list[Any]]:
    """Real objects to aim at: their ids, by path parameter name."""
    with asgi.get_client(app) as c:

        def made(path: str, body: dict[str, Any]) -> dict[str, Any]:
            r = c.post(path, json=body)
            assert r.status_code in (200, 201), (path, r.text)
            return dict(r.json())

        playing = made("/api/tables", {"name": "Fuzz", "preset": "yams", "seats": [{"name": "Ann"}, {"kind": "open"}]})
        bots = {"name": "Bots", "preset": "yatzy", "seats": [{"kind": "bot", "bot": "easy"}] * 2}
        done = made("/api/tables", bots)["id"]
        sheet = made("/api/keep", {"preset": "yams", "players": ["Ann", "Bram"]})
        profile = made("/api/me", {"name": "Fuzzer"})["profile"]
        club = made("/api/clubs", {"name": "Club", "preset": "yams", "rounds": 2, "window": 60, "owner": "Ann"})
        deadline = time.monotonic() + 60
        while not c.get(f"/api/tables/{done}").json()["finished"] and time.monotonic() < deadline:
            time.sleep(0.1)
        cookies = dict(c.cookies)  # a profile and a seat: the /api/me routes and a player's routes get past auth
        c.cookies.clear()
        assert c.post("/api/me", json={"name": "Gone"}).status_code == 201
        throwaway = dict(c.cookies)  # a profile of its own, for the cases that may delete theirs
    today = datetime.now(UTC).date().isoformat()
    return {
        "cookies": [cookies],
        "throwaway": [throwaway],
        "table_id": [playing["id"], done],
        "sheet_id": [sheet["id"]],
        "code": [sheet["code"]],
        "headers": [{"authorization": f"Bearer {sheet['token']}"}],  # the sheet's write token: entries get past it
        "profile_id": [profile["id"]],
        "tournament_id": [club.get("id")],
        "preset": ["yams", "yammen"],
        "day": [today],
        "result_id": ["1"],
        "n": [0, 3, 10**6],
    }


# One app for the module, made at import (cheap: no lifespan yet) so that its schema parametrizes the test.
FOLDER = Path(tempfile.mkdtemp(prefix="yambak-fuzz-"))
APP = create_app(fuzz_settings(FOLDER))
schema = schemathesis.openapi.from_dict(APP.openapi())
schema.app = APP


@pytest.fixture(scope="module")
def seeds() -> Any:
    """The lifespan starts with the first request (Schemathesis's ASGI client) and ends with the module."""
    yield _seed(APP)
    asgi.shutdown_lifespans()
    shutil.rmtree(FOLDER, ignore_errors=True)


# what would end the seeded profile or its device for the cases after it
DESTRUCTIVE = {("DELETE", "/api/me"), ("DELETE", "/api/me/devices/{device}"), ("POST", "/me/devices/{device}/sign-out")}


def _aim(case: Any, seeds: dict[str, list[Any]]) -> None:
    """Point some generated requests at the real objects: a path parameter whose generated value has an
    even length takes one of the seeded values instead (the choice follows the generated data, so a
    fixed seed gives the same requests)."""
    for name, value in list((case.path_parameters or {}).items()):
        choices = seeds.get(name)
        if choices and len(str(value)) % 2 == 0:
            case.path_parameters[name] = choices[len(str(value)) // 2 % len(choices)]


# Every check Schemathesis has runs, but these, each for its reason:
LEFT_OUT = {
    # the generated data is valid by the schema, yet the server may refuse it by its state or limits: a
    # seeded table is over, a club round not open, an address at its rate limit, a deal's one attempt used
    "positive_data_acceptance": "valid input may still be refused by the state (over, closed) or a rate limit",
    # these follow links between operations (a stateful run), which this run does not make
    "use_after_free": "stateful: needs links between operations, which this run does not follow",
    "ensure_resource_availability": "stateful: needs links between operations, which this run does not follow",
    # the routes' auth is a device cookie and a seat token the seeding hands every case: nothing is ignored
    "ignored_auth": "no security scheme in the schema: a cookie and seat tokens, tested in test_hostile*.py",
    "object_level_authorization": "no security scheme in the schema: a cookie and seat tokens, tested elsewhere",
    # `Allow` is the server's truth, which a path's schema entry alone does not hold: GET /api/keep/join is
    # GET /api/keep/{sheet_id} (test_security.py checks every path's Allow against the routes)
    "allow_header_conformance": "a parameter route matches some fixed paths too, so Allow lists its methods",
    # the browser's forms (POST /keep, /me, ...) are not in the schema (test_hostile_http.py has their
    # cases): a method the schema does not list at a path may be a form's, which answers as a form
    "unsupported_method": "the HTML forms' routes are left out of the schema, so an unlisted method may be one",
}
checks.load_all_checks()
CHECKS = [c for c in checks.CHECKS.get_all() if c.__name__ not in LEFT_OUT]


@schema.parametrize()
@settings(max_examples=EXAMPLES_PER_ROUTE, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_gives_a_server_error(case: Any, seeds: dict[str, list[Any]]) -> None:
    _aim(case, seeds)
    cookies = seeds["cookies"][0]
    if (case.method.upper(), case.path) in DESTRUCTIVE:  # the seeded profile stays: a throwaway one goes
        cookies = seeds["throwaway"][0]
    case.call_and_validate(checks=CHECKS, cookies=cookies, headers=seeds["headers"][0])
