"""Driving the table page the way a player does: clicks and keys in Chromium (Playwright)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
LEGAL = "#sheet button.cell.legal"
# every animation of the page over, the dice's tumble too (dice.js: "rolling" until the real faces show):
# what a screenshot or a layout check waits for
SETTLED = (
    "() => !document.querySelector('.rolling')"
    " && document.getAnimations().every((a) => a.playState !== 'running'"
    " || a.effect?.getTiming().iterations === Infinity)"  # a spinner that never ends is no roll
)
# two frames drawn: the layout of a new viewport size applied
NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


def start(page: Any, base: str, preset: str = "yams", seats: list[dict[str, Any]] | None = None, **extra: Any) -> str:
    """Create a table through the API from the page's own context (its seat cookie), open it."""
    seats = seats or [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "easy", "name": "Bot"}]
    body = {"name": "Test table", "preset": preset, "seats": seats, "listed": False, **extra}
    r = page.request.post(base + "/api/tables", data=body)
    assert r.ok, r.text()
    made = r.json()
    page.goto(base + made["url"])
    ready(page)
    return str(made["id"])


def join(page: Any, base: str, table: str, name: str) -> None:
    """Take the open seat of a table by its join form, as a friend with the link does; wait until seated."""
    page.goto(f"{base}/t/{table}")
    page.fill("#join-name", name)
    page.click("#join button[type=submit]")
    page.wait_for_url(re.compile(rf"/t/{table}$"))
    ready(page)


def ready(page: Any) -> None:
    """Connected, and this device's fair-dice nonces in (each one is an event that moves the version)."""
    page.wait_for_function("() => document.body.dataset.ready === '1' && document.body.dataset.nonces === 'done'")


def version(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.v"))


def wait_past(page: Any, v: int) -> None:
    page.wait_for_function(f"() => Number(document.body.dataset.v) > {v}")


def my_turn(page: Any) -> bool:
    return bool(page.evaluate("() => !document.querySelector('#roll').disabled && document.body.dataset.ready === '1'"))


def wait_my_turn_or_end(page: Any, timeout: float = 30000) -> bool:
    """True when it is this device's turn, False when the game is over."""
    page.wait_for_function(
        "() => document.body.classList.contains('finished') || !document.querySelector('#roll').disabled",
        timeout=timeout,
    )
    return not page.evaluate("document.body.classList.contains('finished')")


# connected, and no action of ours on its way: the page would drop a tap now as a second tap (table.js)
IDLE = "() => document.body.dataset.ready === '1' && document.body.dataset.inFlight !== '1'"


def act(page: Any, click: Any) -> None:
    """Do something that the server answers with a new version, and wait for it. The tap waits until the page
    would take it, as a player waits for the last answer (on a loaded machine it can come after another event)."""
    page.wait_for_function(IDLE)
    v = version(page)
    click()
    wait_past(page, v)


def score_first_offered(page: Any) -> str:
    """Tap the first box the sheet offers (a 0 asks for a second tap on the same box); returns its id."""
    page.wait_for_function(IDLE)
    cell = page.locator(LEGAL).first
    box = cell.get_attribute("data-box")
    v = version(page)
    cell.click()
    armed = page.locator(f"#sheet button.cell.armed[data-box='{box}']")
    if armed.count():
        armed.click()
    wait_past(page, v)
    return str(box)


def roll(page: Any) -> None:
    """Tap Roll and wait for the dice; a tap right after our own roll is dropped as a slip, so wait that out."""
    page.wait_for_function("() => document.body.dataset.rollLock !== '1'")
    act(page, lambda: page.click("#roll"))


def play_turn(page: Any, holds: int = 1) -> str:
    """Roll, hold a die and roll again (where the rules let), then fill the first box offered."""
    roll(page)
    for _ in range(holds):
        if page.locator("#roll[aria-disabled='true']").count() or not page.locator(".die[data-value]").count():
            break
        if page.locator(LEGAL).count():
            die = page.locator(".die[data-value]").first
            if die.get_attribute("aria-pressed") != "true":
                act(page, die.click)
        if page.locator("#roll[aria-disabled='true']").count():
            break
        roll(page)
    while not page.locator(LEGAL).count():  # only announce boxes left, or nothing fits yet
        if page.locator("#sheet button.cell.announce").count():
            act(page, lambda: page.locator("#sheet button.cell.announce").first.click())
        else:
            roll(page)
    return score_first_offered(page)


def no_sideways_scroll(page: Any) -> tuple[int, int]:
    return page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")


AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def axe_script() -> Path:
    """axe-core 4 as `make install` fetched it (package.json pins the version)."""
    if not AXE.exists():
        from tests.conftest import missing_service

        missing_service("node_modules/axe-core is missing: make install fetches it (npm ci)")
    return AXE


def serious_violations(page: Any) -> list[tuple[str, str, list[Any]]]:
    """axe-core's serious and critical findings on the page as it is now (the page opened with bypass_csp:
    axe is injected as a script of its own)."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(axe_script()))
    found = page.evaluate("async () => (await axe.run()).violations")
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in found
            if v["impact"] in ("serious", "critical")]  # fmt: skip
