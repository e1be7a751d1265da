"""The score-keeper in Chromium: a whole 3-player yammen sheet typed on the dice pad, undo and correction,
a second phone following by code, and an entry made offline that syncs once when the network returns."""

from __future__ import annotations

import re

import httpx

from yambak.engine import ManualDice, new_game, play_turn, scratch_turn, typed_turn
from yambak.rules import load_ruleset

from ..server.keeper_plan import Entry, plan
from .conftest import SCREENSHOTS

PLAYERS = ("Ann", "Bram", "Cas")


def ready(page):
    page.wait_for_function("document.body.dataset.ready === '1'")


def data(page, key):
    return page.evaluate(f"document.body.dataset.{key}")


def start_sheet(page, base, preset="yammen", players=PLAYERS, name="Kitchen table"):
    page.goto(base + "/keep/")
    page.fill("input[name=name]", name)
    page.select_option("#preset", preset)
    for i, n in enumerate(players):
        page.fill(f"input[name=player{i}]", n)
    page.click("#keep-create button[type=submit]")
    page.wait_for_url(re.compile(r"/keep/[\w-]+$"))
    ready(page)
    return page.url.rsplit("/", 1)[1]


def settle(page, v):
    page.wait_for_function(f"document.body.dataset.v === '{v}' && document.body.dataset.pending === '0'")


def type_dice(page, dice, tap):
    if tap:  # the five-tap pad
        for d in dice:
            page.click(f"#faces [data-face='{d}']")
    else:  # the same pad from the keyboard (digits 1-6)
        page.keyboard.type("".join(map(str, dice)))


def enter(page, e: Entry, tap=False, wait=True):
    v = int(data(page, "v"))
    if e.kind == "scratch":
        page.click("#scratch")
    else:
        type_dice(page, e.dice, tap)
        if e.roll != 1:
            page.click(f"#rolls [data-roll='{e.roll}']")
    page.click(f"#sheet button.box[data-box='{e.box}']")
    if wait:
        settle(page, v + 1)


def expected_totals(entries):
    rules = load_ruleset("yammen")
    state = new_game(rules, list(PLAYERS), dice=ManualDice())
    for e in entries:
        turn = scratch_turn(state, e.box) if e.kind == "scratch" else typed_turn(state, e.dice, e.roll, e.box)
        state = play_turn(state, turn)
    return state


def standings(page):
    return [int(t) for t in page.locator("#standings td.total").all_inner_texts()]


def test_a_whole_yammen_sheet_kept_on_one_phone_and_followed_on_another(base_url, new_page):
    entries, _ = plan()
    ann = new_page()
    sheet_id = start_sheet(ann, base_url)
    code = ann.inner_text("#code")
    assert re.fullmatch(r"[A-Z2-9]{6}", code)
    assert ann.locator("#rolls").is_visible()  # yammen cares about the roll number

    # A second phone joins by code and follows (in Swedish).
    bram = new_page(locale="sv-SE")
    bram.goto(base_url + "/keep/")
    bram.fill("#keep-join input[name=code]", code.lower())
    bram.click("#keep-join button[type=submit]")
    bram.wait_for_url(re.compile(rf"/keep/{sheet_id}$"))
    ready(bram)

    for i, e in enumerate(entries):
        if i == 7:  # a slip: Bram's sixes typed wrong, undone, then typed right
            v = int(data(ann, "v"))
            enter(ann, Entry(e.seat, "dice", e.box, (6, 6, 6, 6, 6), e.roll))
            assert data(ann, "entries") == str(i + 1)
            ann.click("#undo")
            settle(ann, v + 2)
            assert data(ann, "entries") == str(i) and ann.locator(f"#sheet button.box[data-box='{e.box}']").count()
        enter(ann, e, tap=i < 12)
        if i == 40:  # the second phone sees the same standings live
            bram.wait_for_function("v => document.body.dataset.v === v", arg=data(ann, "v"))
            assert standings(bram) == standings(ann)

    assert data(ann, "finished") == "1" and data(ann, "entries") == "198"
    assert ann.locator("#history li").count() == 198

    # A correction that would break later entries is refused and points at them.
    ann.locator("#history li[data-n='1'] button.entry").click()
    ann.select_option("#fix-box", "free.ones")
    ann.click("#save-fix")
    ann.wait_for_selector("#error[data-code='keeper/breaks-later']")
    assert ann.locator("#history li.invalid").count() >= 1 and data(ann, "entries") == "198"

    # Correct entry 1 (Ann's down.ones): she had four ones, not three.
    v = int(data(ann, "v"))
    ann.locator("#history li[data-n='1'] button.entry").click()
    ann.click("#slots .die[data-pos='4']")  # tap a typed die to take it back
    for _ in range(4):
        ann.keyboard.press("Backspace")
    assert ann.locator("#slots .die.blank").count() == 5
    type_dice(ann, (1, 1, 1, 1, 2), tap=True)
    ann.select_option("#fix-box", "down.ones")
    ann.click("#save-fix")
    settle(ann, v + 1)
    corrected = [Entry(0, "dice", "down.ones", (1, 1, 1, 1, 2), 1), *entries[1:]]
    final = expected_totals(corrected)
    assert standings(ann) == final.totals()
    assert "= 4" in ann.inner_text("#history li[data-n='1']")
    bram.wait_for_function("v => document.body.dataset.v === v", arg=str(v + 1))
    assert standings(bram) == final.totals() and data(bram, "entries") == "198"
    record = httpx.get(f"{base_url}/keep/{sheet_id}/record.json").json()
    assert len(record["turns"]) == 198 and record["turns"][0]["rolls"] == [[1, 1, 1, 1, 2]]


def test_offline_entry_is_queued_and_synced_exactly_once(base_url, new_page):
    page = new_page()
    sheet_id = start_sheet(page, base_url, "yams", ("Ann", "Bram"), name="Offline")
    assert not page.locator("#rolls").is_visible()  # plain yams: the roll number does not matter
    page.wait_for_function("document.body.dataset.offlineReady === '1'")
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    enter(page, Entry(0, "dice", "free.sixes", (6, 6, 6, 1, 2)))
    ctx = page.context
    ctx.set_offline(True)
    try:
        page.reload()
        ready(page)
        assert data(page, "v") == "1"
        enter(page, Entry(1, "dice", "free.fives", (5, 5, 5, 5, 2)), wait=False)
        page.wait_for_selector("#history li.pending")
        assert data(page, "pending") == "1"
        page.click("#tabs [data-seat='1']")
        assert page.locator("#sheet td.pending[data-box='free.fives']").inner_text() == "…"  # no score computed here
        assert httpx.get(f"{base_url}/api/keep/{sheet_id}").json()["v"] == 1
    finally:
        ctx.set_offline(False)
    page.wait_for_function("document.body.dataset.pending === '0' && document.body.dataset.v === '2'", timeout=20000)
    view = httpx.get(f"{base_url}/api/keep/{sheet_id}").json()
    assert view["v"] == 2 and [h["box"] for h in view["history"]] == ["free.sixes", "free.fives"]
    assert view["players"][1]["total"] == 20
    page.reload()
    ready(page)
    assert data(page, "entries") == "2" and data(page, "pending") == "0"
    assert httpx.get(f"{base_url}/api/keep/{sheet_id}").json()["v"] == 2  # nothing sent twice


def test_screenshots_on_a_phone_in_two_languages(base_url, new_page):
    entries, _ = plan()
    for lang, locale in (("sv", "sv-SE"), ("es", "es-ES")):
        page = new_page(locale=locale, viewport={"width": 390, "height": 844})
        start_sheet(page, base_url, players=PLAYERS, name={"sv": "Köksbordet", "es": "Mesa de cocina"}[lang])
        for e in entries[:14]:
            enter(page, e)
        type_dice(page, (4, 4, 4, 2, 6), tap=True)
        page.click("#rolls [data-roll='2']")
        assert page.evaluate("document.documentElement.lang") == lang
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SCREENSHOTS / f"keeper-{lang}.png"), full_page=False)
