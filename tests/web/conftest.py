from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from http.cookiejar import CookieJar, DefaultCookiePolicy
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from tests.conftest import missing_service
from yambak.server import Settings, create_app

from ..server.conftest import client, settings  # noqa: F401  (the in-process app)
from ..server.helpers import server_process

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The browser tests always take their screenshots; they land in docs/screenshots/ only when
# YAMBAK_SCREENSHOTS is set (`make screenshots`), so that a test run leaves the tree clean.
SCREENSHOTS = (
    Path(__file__).resolve().parents[2] / "docs" / "screenshots"
    if os.environ.get("YAMBAK_SCREENSHOTS")
    else Path(os.environ.get("TMPDIR", "/tmp")) / "yambak-screenshots"
)
SCREENSHOTS.mkdir(parents=True, exist_ok=True)

# The tests' own API calls (outside any page) share one client that keeps no cookies, as httpx.get and httpx.post
# kept none: those make a client, and its TLS context, on every call (50-90 ms each on a busy two-core machine; a
# sheet seeded with 260 entries took 23 s that way, 1.8 s with this one).
api = httpx.Client(cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])))


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    db = tmp_path_factory.mktemp("web") / "web.db"
    with server_process(f"sqlite:///{db}", bot_delay=0.05, env={"YAMBAK_UNDO_GRACE": "0.3"}) as base:
        yield base


@contextmanager
def app_in_thread(app_settings: Settings | FastAPI) -> Iterator[str]:
    """The app in this process (or one made of these settings), served by uvicorn in a thread (the test
    moves its `Settings.clock`, or reaches into its state); yields its base URL."""
    import socket
    import threading
    import time

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    app = app_settings if isinstance(app_settings, FastAPI) else create_app(app_settings)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="yambak-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the in-process server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


@contextmanager
def chromium() -> Iterator:
    """Debian's Chromium under Playwright, closed on leaving. Meanwhile Playwright's sync API holds this thread's
    event loop: `asyncio.run` fails here until it is closed."""
    if not os.path.exists(CHROMIUM):
        missing_service("Debian's chromium is not installed (scripts/test-services.sh installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the browser tests' run (a launch and Playwright's driver cost about a second per
    module); every test opens its own contexts, which share no cookies, storage or service workers. (Tests
    outside tests/web take `chromium()` for their module only: the suite's other tests run `asyncio.run`.)"""
    with chromium() as b:
        _LAUNCHED.append(b)
        yield b
        _LAUNCHED.clear()


_LAUNCHED: list = []  # the run's browser, once a test has asked for it


@pytest.fixture(scope="module", autouse=True)
def _contexts_closed_after_each_module():
    """What closing the browser after each module did: no page of a module (one a failed test left open) keeps
    its sockets and timers running into the next."""
    yield
    for b in _LAUNCHED:
        for ctx in b.contexts:
            ctx.close()


@pytest.fixture
def _open_pages():
    return []


@pytest.fixture
def new_page(browser, _open_pages):
    contexts = []

    def _page(
        locale: str = "en-US",
        viewport: dict | None = None,
        touch: bool = False,
        dark: bool = False,
        zone: str = "UTC",
        bypass_csp: bool = False,
    ):
        """`bypass_csp`: only for tests that inject a script of their own (axe-core); the pages' policy
        itself is tested without it (test_csp_browser.py)."""
        ctx = browser.new_context(
            locale=locale,
            viewport=viewport or {"width": 1200, "height": 900},
            has_touch=touch,
            color_scheme="dark" if dark else "light",
            timezone_id=zone,
            bypass_csp=bypass_csp,
        )
        ctx.set_default_timeout(10000)
        contexts.append(ctx)
        page = ctx.new_page()
        _open_pages.append(page)
        return page

    yield _page
    for ctx in contexts:
        ctx.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item):
    """On a failure, a screenshot of every open page (under $TMPDIR/yambak-failures) to see what went wrong."""
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        pages = item.funcargs.get("_open_pages") or []
        folder = Path(os.environ.get("TMPDIR", "/tmp")) / "yambak-failures"
        folder.mkdir(parents=True, exist_ok=True)
        for i, page in enumerate(pages):
            try:
                page.screenshot(path=str(folder / f"{item.name}-{i}.png"))
            except Exception:
                pass
