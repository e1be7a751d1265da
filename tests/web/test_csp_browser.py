"""Every page under the site's Content-Security-Policy, in Chromium, without `bypass_csp`: a refused
script, style, worker or WebAssembly compile anywhere (the console or a `securitypolicyviolation`
event) fails the test. The score-keeper's sheet waits for its offline engine (Pyodide in a worker,
`'wasm-unsafe-eval'` only), so a policy that broke it fails here too. The list of pages is checked
against the app's routes: a new page must be added here.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from yambak.server import Settings, create_app

from .table_helpers import PHONE
from .test_profiles_browser import _kept_record

# Catch violations from the first script on (an init script is the browser's, not the page's: the policy
# does not apply to it).
WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
"""
NOT_PAGES = ("/api/", "/healthz", "/readyz", "/metrics", "/favicon.ico", "/robots.txt")
NOT_PAGE_ENDINGS = (".json", ".svg", ".zip", ".js", ".webmanifest", ".csv")
TABS = 6  # pages open at once


def _page_routes() -> set[str]:
    """The app's GET routes that answer an HTML page."""
    from fastapi.routing import iter_route_contexts

    app = create_app(Settings(database_url="sqlite:///:memory:", warm_strategies=False))
    out = set()
    for context in iter_route_contexts(app.routes):
        methods = getattr(context.route, "methods", None) or set()
        path = context.path
        if "GET" in methods and not path.startswith(NOT_PAGES) and not path.endswith(NOT_PAGE_ENDINGS):
            out.add(path)
    return out


@pytest.fixture(scope="module")
def pages(base_url: str, browser: Any) -> dict[str, list[str]]:
    """A real object behind every page (made over the API, with a profile on the browser's device)."""
    ctx = browser.new_context()
    api = ctx.request

    def made(path: str, body: dict[str, Any]) -> dict[str, Any]:
        r = api.post(base_url + path, data=body)
        assert r.ok, (path, r.text())
        return dict(r.json())

    # first: the bots play their game out while the rest is made
    bots = made("/api/tables", {"name": "Bots", "preset": "yatzy", "seats": [{"kind": "bot", "bot": "easy"}] * 2})
    profile = made("/api/me", {"name": "Csp"})["profile"]
    assert api.patch(base_url + "/api/me", data={"shared": True}).ok  # its public pages show it
    playing = made("/api/tables", {"name": "In play", "preset": "yams", "seats": [{"name": "Ann"}, {"kind": "open"}]})
    house = {
        "id": "two-rows",
        "rows": [{"id": "chance", "kind": "sum"}, {"id": "sixes", "kind": "upper", "face": 6}],
        "columns": [{"id": "down", "order": "down"}, {"id": "free"}],
    }
    hard = made(
        "/api/tables", {"name": "House", "rules": house, "seats": [{"name": "Ann"}, {"kind": "bot", "bot": "hard"}]}
    )
    sheet = made("/api/keep", {"preset": "yams", "players": ["Ann", "Bram"]})
    group = made("/api/keep/groups", {"name": "Family"})
    club = made("/api/clubs", {"name": "Club", "preset": "yams", "rounds": 1, "window": 60})
    assert api.post(base_url + "/api/me/kept", data={"sheet": "paper", "record": _kept_record(5, "yams"), "seat": 0}).ok
    result = api.get(base_url + "/api/me/games").json()["games"][0]["id"]
    move = made("/api/me/link", {})["url"].rsplit("/", 1)[1]
    deadline = time.monotonic() + 60
    while not api.get(f"{base_url}/api/tables/{bots['id']}").json()["finished"] and time.monotonic() < deadline:
        time.sleep(0.1)
    state = ctx.storage_state()
    ctx.close()
    return {
        "state": [state],  # type: ignore[list-item]
        "/": ["/"],
        "/t/{table_id}": [f"/t/{playing['id']}", f"/t/{bots['id']}", f"/t/{hard['id']}", "/t/nope"],
        "/t/{table_id}/review": [f"/t/{bots['id']}/review"],
        "/t/{table_id}/rules": [f"/t/{hard['id']}/rules"],
        "/rules/{preset}": ["/rules/yammen"],
        "/strategy/{preset}": ["/strategy/yams"],
        "/t/{table_id}/strategy": [f"/t/{hard['id']}/strategy"],
        "/keep/": ["/keep/"],
        "/keep": ["/keep"],
        "/keep/join": [f"/keep/join?code={sheet['code']}"],
        "/k/{code}": [f"/k/{sheet['code']}"],
        "/keep/{sheet_id}": [f"/keep/{sheet['id']}"],
        "/keep/groups/join": [f"/keep/groups/join?code={group['code']}"],
        "/keep/group/{group_id}": [f"/keep/group/{group['id']}"],
        "/me": ["/me"],
        "/me/profile": ["/me/profile"],
        "/me/stats": ["/me/stats"],
        "/me/move/{code}": [f"/me/move/{move}"],
        "/p/{profile_id}": [f"/p/{profile['id']}"],
        "/p/{profile_id}/stats": [f"/p/{profile['id']}/stats"],
        "/replay/{result_id}": [f"/replay/{result}"],
        "/daily": ["/daily"],
        "/ranked": ["/ranked"],
        "/train": ["/train"],
        "/clubs/new": ["/clubs/new"],
        "/c/{tournament_id}": [f"/c/{club['id']}"],
    }


def test_the_list_of_pages_is_every_page_of_the_app(pages: dict[str, list[str]]) -> None:
    assert set(pages) - {"state"} == _page_routes()


def test_every_page_runs_under_the_policy(base_url: str, browser: Any, pages: dict[str, list[str]]) -> None:
    ctx = browser.new_context(viewport=PHONE, storage_state=pages["state"][0])  # never bypass_csp here
    ctx.set_default_timeout(20000)
    ctx.add_init_script(WATCH)
    urls = [(route, url) for route, group in pages.items() if route != "state" for url in group]
    seen = 0
    try:
        # A few tabs at a time, each page with its own console: the half second of quiet that "networkidle"
        # waits for in one tab passes while the others load (one tab after another, those waits were half
        # of the test's time).
        for first in range(0, len(urls), TABS):
            opened = []
            for route, url in urls[first : first + TABS]:
                page = ctx.new_page()
                console: list[str] = []
                page.on("console", lambda m, seen_here=console: seen_here.append(m.text)
                        if m.type in ("error", "warning") else None)  # fmt: skip
                response = page.goto(base_url + url, wait_until="commit")
                assert response is not None
                policy = response.headers.get("content-security-policy", "")
                assert "script-src 'self'" in policy and "unsafe-inline" not in policy, (url, policy)
                opened.append((route, url, page, console))
            for route, url, page, console in opened:
                page.wait_for_load_state("load")
                if route == "/keep/{sheet_id}":  # the offline engine: Pyodide compiled in a worker
                    page.wait_for_function("() => document.body.dataset.engine === 'ready'", timeout=120000)
                elif url == pages["/t/{table_id}"][2]:
                    page.wait_for_selector("#bot-model:not([hidden])")  # the hard bot on a first estimate
                    assert "first estimate" in page.inner_text("#bot-model")
                page.wait_for_load_state("networkidle")  # late scripts and fetches done (sockets aside)
                violations = page.evaluate("window.__csp")
                refused = [c for c in console if "Content Security Policy" in c or "Refused to" in c]
                assert violations == [] and refused == [], (url, violations, refused)
                page.close()
                seen += 1
    finally:
        ctx.close()
    assert seen == len(urls) == sum(len(v) for k, v in pages.items() if k != "state")


def test_a_violation_is_seen(base_url: str, browser: Any) -> None:
    """The watch sees what the policy refuses: an inline script put on one of the site's pages."""
    ctx = browser.new_context()
    ctx.add_init_script(WATCH)
    page = ctx.new_page()
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    page.goto(base_url + "/rules/yams")
    with page.expect_console_message(lambda m: "Content Security Policy" in m.text):  # the refusal, told
        page.evaluate(
            "() => { const s = document.createElement('script'); s.textContent = 'window.x = 1';"
            " document.body.append(s); }"
        )
    page.wait_for_function("() => window.__csp.length > 0")  # the watch's report of it
    assert page.evaluate("window.x") is None
    assert page.evaluate("window.__csp") and any("Content Security Policy" in c for c in console)
    ctx.close()
