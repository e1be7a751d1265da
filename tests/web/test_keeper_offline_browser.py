"""The keeper says whether this phone is ready to keep sheets offline: with room for the offline copy it
says ready (the copy saved, the phone's engine started, the storage's state and space) and an entry typed
offline is scored by the phone's engine; with a 3 MB quota it says it is not ready, and why, before the
family finds out at the campsite."""

from __future__ import annotations

import time

import pytest

from yambak.server.keeper.bundle import offline_files, pyodide_ready

from ..conftest import missing_service
from .conftest import SCREENSHOTS

PHONE = {"width": 390, "height": 844}
QUOTA = 3 * 1024 * 1024


@pytest.fixture(scope="module", autouse=True)
def needs_pyodide():
    if not pyodide_ready():
        missing_service("Pyodide is not in web/static/pyodide (make install fetches it)")


def _phone(browser, locale="en-US", dark=False):
    ctx = browser.new_context(locale=locale, viewport=PHONE, is_mobile=True, has_touch=True,
                              color_scheme="dark" if dark else "light")
    ctx.set_default_timeout(15000)
    return ctx


def _offline_state(page, want: str) -> None:
    page.wait_for_function(f"() => document.body.dataset.offline === '{want}'", timeout=120000)


def test_a_phone_with_3_mb_for_the_site_is_told_it_is_not_ready_and_why(base_url, browser):
    """The quota is imposed through Chromium's DevTools protocol (Storage.overrideQuotaForOrigin): this
    Chromium enforces it (the service worker cannot store its copy: the install fails, and the card says
    so) but `navigator.storage.estimate()` still reports the disk's quota, so the test also stubs the
    quota that call reports (3 MiB, the usage stays real) for the card's sizes."""
    ctx = _phone(browser)
    try:
        page = ctx.new_page()
        cdp = ctx.new_cdp_session(page)
        cdp.send("Storage.overrideQuotaForOrigin", {"origin": base_url, "quotaSize": QUOTA})
        page.goto(base_url + "/keep/")
        _offline_state(page, "not-ready")
        assert "Offline copy: not saved." in page.inner_text("#offline-lines")  # the enforced quota: no copy
        assert page.evaluate("navigator.serviceWorker.controller") is None
        ctx.add_init_script(
            "(() => { const real = navigator.storage.estimate.bind(navigator.storage);"
            f" navigator.storage.estimate = async () => ({{ ...(await real()), quota: {QUOTA} }}); }})()"
        )
        page.reload()
        _offline_state(page, "not-ready")
        summary = page.inner_text("#offline-summary")
        assert summary == "This phone is not ready to keep sheets offline."
        assert page.locator("#offline-warn").is_visible()  # said at the top too, where a phone opens
        lines = page.inner_text("#offline-lines")
        need = f"{offline_files()[1] / 1e6:.1f} MB"
        assert f"It needs {need} and this phone gives the page" in lines, lines
        assert "free of 3.1 MB" in lines  # 3 MiB, said in MB
        assert page.locator("#offline-persist").is_visible()  # asks for storage the browser keeps
        page.screenshot(path=str(SCREENSHOTS / "keeper-offline-not-ready-phone.png"), full_page=True)
    finally:
        ctx.close()


def test_a_phone_with_room_is_ready_and_scores_an_entry_offline(base_url, browser):
    ctx = _phone(browser, locale="nl-NL", dark=True)
    try:
        page = ctx.new_page()
        page.goto(base_url + "/keep/?lang=nl")
        _offline_state(page, "ready")
        assert page.inner_text("#offline-summary") == "Deze telefoon is klaar om bladen offline bij te houden."
        lines = page.inner_text("#offline-lines")
        assert "De engine van de telefoon: klaar" in lines and "bewaard" in lines
        assert not page.locator("#offline-warn").is_visible()
        ready_in = page.evaluate("window.yambakEngine.readyIn")
        page.screenshot(path=str(SCREENSHOTS / "keeper-offline-ready-phone-nl-dark.png"), full_page=True)
        page.wait_for_function("() => navigator.serviceWorker.controller !== null")
        ctx.set_offline(True)
        page.reload()
        page.wait_for_function("() => document.body.dataset.engine === 'ready'", timeout=120000)
        page.select_option("#preset", "yams")
        page.click("#start-sheet")
        page.wait_for_function("() => document.body.dataset.ready === '1' && document.body.dataset.v !== undefined")
        for d in (6, 6, 6, 6, 6):
            page.click(f"#faces [data-face='{d}']")
        cell = "#sheet button[data-box='free.yam'][data-seat='0'][data-action]:not([data-action='open'])"
        page.wait_for_selector(cell)
        start = time.monotonic()
        page.click(cell)
        page.wait_for_function("() => document.body.dataset.entries === '1'")
        scored = time.monotonic() - start
        assert page.locator("#strip .chip .total").first.inner_text() == "50"  # the phone's engine, offline
        print(f"phone's engine ready in {ready_in / 1000:.1f} s; an entry offline scored in {scored * 1000:.0f} ms")
    finally:
        ctx.close()


def test_a_socket_closed_while_an_entry_is_on_its_way_answers_it_lost(base_url, browser):
    """The phone's network comes back twice in a row: the second `online` closes the socket the first one's
    send is waiting on. The page's socket answers that request `lost` (the sender then tries again later),
    where it used to leave it unanswered and the sheet said "Sending…" for good."""
    ctx = _phone(browser)
    page = ctx.new_page()
    page.goto(f"{base_url}/keep/")
    answers = page.evaluate("""async () => {
      const { SessionSocket } = await import("/static/game.js");
      const s = new SessionSocket("/ws/keep/none", { reconnect: false });
      const opened = s.opened(60000);  // a sender waiting for the welcome
      s.ready = true; s.send = () => true;  // another's entry went out; its answer has not come back
      const answer = s.request({ type: "entry" }, "e1");
      s.close();
      const late = new Promise((resolve) => setTimeout(() => resolve("unanswered"), 3000));
      return Promise.race([Promise.all([answer, opened]), late]);
    }""")
    assert answers == [{"ok": False, "lost": True}, False]
    ctx.close()
