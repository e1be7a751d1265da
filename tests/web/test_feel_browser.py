"""A game, not a form: a roll, a hold and an entry are heard (Web Audio, made in the page) and felt
(navigator.vibrate, recorded here), a yam or a bonus celebrated; no celebration under reduced motion,
which leaves the sounds alone; each of the menu's two switches (sounds and vibration; celebrations)
remembered by the device."""

from __future__ import annotations

from .table_helpers import PHONE, act, roll, score_first_offered, start

BUZZES = "() => { window.buzz = []; navigator.vibrate = (p) => { window.buzz.push(p); return true; }; }"


# The page answers its own roll in a timer set from the next frame (table.js `react`), once the roll's version
# is in (what `roll` waits for); this frame-then-timers chain resolves after that timer has run: by then
# a sound or a buzz of the roll would have been played.
AFTER_REACTION = "() => new Promise((done) => requestAnimationFrame(() => setTimeout(() => setTimeout(done, 0), 0)))"


def test_a_roll_a_hold_and_an_entry_are_heard_and_felt_until_muted(base_url, new_page):
    page = new_page(viewport=PHONE, touch=True)
    page.add_init_script(f"({BUZZES})()")
    start(page, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
    roll(page)
    page.evaluate(AFTER_REACTION)  # heard after the frame that shows it: by then (the wait the muted rolls use)
    assert page.evaluate("document.body.dataset.felt") == "roll"
    assert page.evaluate("document.body.dataset.audio") == "running"  # the page's own sound, after a tap
    act(page, lambda: page.locator(".die[data-value]").first.click())
    page.wait_for_function("() => document.body.dataset.felt === 'hold'")
    score_first_offered(page)
    page.wait_for_function("() => ['score', 'bonus', 'yam'].includes(document.body.dataset.felt)")
    assert page.evaluate("window.buzz")[:2] == [[12, 40, 12], [8]]
    # one switch in the menu: nothing more is heard or felt, and the device remembers it
    page.click("details.menu > summary")
    page.uncheck("#set-sound")
    page.evaluate("() => { delete document.body.dataset.felt; window.buzz = []; }")
    page.wait_for_function("() => !document.querySelector('#roll').disabled", timeout=30000)
    roll(page)
    page.evaluate(AFTER_REACTION)
    assert page.evaluate("document.body.dataset.felt") is None and page.evaluate("window.buzz") == []
    page.reload()
    assert page.locator("#set-sound").is_checked() is False


def test_a_celebration_comes_and_goes_and_never_under_reduced_motion(base_url, new_page):
    burst = """async () => { const m = await import('/static/feel.js'); m.celebrate(document.body, 'yam', 'Yam!');
      return document.querySelectorAll('.celebration.yam i').length; }"""
    page = new_page(viewport=PHONE, touch=True)
    start(page, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
    assert page.evaluate(burst) > 10
    assert page.locator(".celebration").get_attribute("aria-hidden") == "true"
    page.wait_for_selector(".celebration", state="detached", timeout=5000)
    calm = new_page(viewport=PHONE, touch=True)
    calm.emulate_media(reduced_motion="reduce")
    calm.add_init_script(f"({BUZZES})()")
    start(calm, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
    assert calm.evaluate(burst) == 0
    roll(calm)
    calm.evaluate(AFTER_REACTION)  # reduced motion leaves the sounds alone: a switch of their own
    assert calm.evaluate("document.body.dataset.felt") == "roll" and calm.evaluate("window.buzz") == [[12, 40, 12]]
    # the celebrations have their own switch, remembered
    page.click("details.menu > summary")
    page.uncheck("#set-celebrations")
    assert page.evaluate(burst) == 0 and page.locator("#set-sound").is_checked()
    page.reload()
    assert page.locator("#set-celebrations").is_checked() is False
