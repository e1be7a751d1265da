"""The family's games in Chromium: six dice in the tray beside or under the sheet at every width, a whole
Maxi Yatzy game by clicks with saved rolls, a Generala sheet kept for real dice that ends at once on a
served generala, and each new preset on a phone and a laptop in two languages (screenshots)."""

from __future__ import annotations

import pytest

from tests.conftest import missing_service
from tests.engine.test_balut import COLUMNS, ROWS, balut_points
from yambak.engine import replay, summary
from yambak.rules import load_ruleset, preset_ids
from yambak.server.keeper.bundle import pyodide_ready

from .conftest import SCREENSHOTS, api
from .table_helpers import (
    LAPTOP,
    LEGAL,
    NEXT_FRAME,
    PHONE,
    SETTLED,
    roll,
    score_first_offered,
    start,
    wait_my_turn_or_end,
)

WIDTHS = (320, 390, 768, 1024, 1280, 1440, 1920)
SIX_DICE = [p for p in preset_ids() if load_ruleset(p).rolled_dice == 6]
NEW = ["kniffel", "yacht", "generala", "maxi-yatzy", "kismet", "triple-yahtzee"]


@pytest.mark.parametrize("preset", SIX_DICE)
def test_the_six_dice_tray_never_covers_the_sheet(base_url, new_page, preset):
    """Every width: the six dice in one row inside the tray; from 900 px the tray beside the sheet, not over
    its row names; narrower, the tray docked under it, shorter than the room the page leaves for it."""
    page = new_page(viewport={"width": 1280, "height": 800})
    start(page, base_url, preset, seats=[{"kind": "human", "name": "Ann"}])
    roll(page)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        page.evaluate(NEXT_FRAME)  # the layout of the new width
        got = page.evaluate(
            """() => {
            const box = (el) => { const r = el.getBoundingClientRect();
              return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, height: r.height}; };
            const tray = box(document.getElementById('tray'));
            const sheet = box(document.querySelector('#sheet table'));
            const dice = [...document.querySelectorAll('#tray .die')].map(box);
            const pad = parseFloat(getComputedStyle(document.querySelector('main')).paddingBottom);
            return {tray, sheet, dice, pad, docked: getComputedStyle(document.getElementById('tray')).position,
                    scroll: document.documentElement.scrollWidth, inner: innerWidth};
        }"""
        )
        tray, sheet, dice = got["tray"], got["sheet"], got["dice"]
        assert len(dice) == 6, (width, dice)
        assert all(d["left"] >= tray["left"] - 0.5 and d["right"] <= tray["right"] + 0.5 for d in dice), (width, got)
        assert max(d["top"] for d in dice) - min(d["top"] for d in dice) < 16, (width, dice)  # one row
        assert got["scroll"] <= got["inner"], (width, got)  # no sideways scrolling
        if got["docked"] == "fixed":  # a phone's dock: the page leaves it room, the sheet scrolls clear of it
            assert tray["height"] <= got["pad"] + 1, (width, got)
            page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
            last = page.evaluate("document.querySelector('#sheet tbody tr:last-child').getBoundingClientRect().bottom")
            assert last <= page.evaluate("document.getElementById('tray').getBoundingClientRect().top") + 0.5, width
            page.evaluate("window.scrollTo(0, 0)")
        else:
            apart = tray["right"] <= sheet["left"] or tray["bottom"] <= sheet["top"] or sheet["bottom"] <= tray["top"]
            assert apart, (width, tray, sheet)


def test_a_whole_maxi_yatzy_game_by_clicks_with_saved_rolls(base_url, new_page):
    """Six turns of one roll save twelve rolls; a turn then rolls six times; the game ends with the rolls
    still saved on the record's replay."""
    page = new_page(viewport=LAPTOP)
    table = start(page, base_url, "maxi-yatzy", seats=[{"kind": "human", "name": "Ann"}])
    count = lambda: int(page.inner_text("#roll .count"))  # noqa: E731
    for turn in range(20):
        assert count() == 3 + (2 * turn if turn <= 6 else 12 - 3 + 2 * (turn - 7)), turn
        rolls = 6 if turn == 6 else 1
        for _ in range(rolls):
            roll(page)
        if turn == 6:
            assert count() == 3 + 12 - 6  # six rolls made, nine left
        score_first_offered(page)
    page.wait_for_function("() => document.body.classList.contains('finished')", timeout=30000)
    record = api.get(f"{base_url}/t/{table}/record.json").json()
    assert max(len(t["rolls"]) for t in record["turns"]) == 6
    saved = summary(replay(record))["players"][0]["saved_rolls"]
    assert saved == 2 * 19 - 3  # 19 one-roll turns save 38; the six-roll turn used 3 of them
    from yambak.engine import GameRecord
    from yambak.engine.fairness import verify_record

    problems, checked = verify_record(GameRecord.from_dict(record), 6, 6)  # yambak verify: six dice, saved rolls
    assert problems == [] and checked == sum(len(t["rolls"]) for t in record["turns"])


@pytest.fixture
def needs_pyodide():
    if not pyodide_ready():
        missing_service("Pyodide is not in web/static/pyodide (make install fetches it)")


@pytest.mark.usefixtures("needs_pyodide")
def test_a_generala_sheet_ends_at_once_on_a_served_generala(base_url, new_page):
    """The score-keeper: Ann's served straight (25), then Bram's generala on his first roll wins the game at
    once; the sheet says the game is over with Bram the winner, his boxes mostly open."""
    from .test_keeper_browser import box, entries_are, ready, start_sheet, type_dice

    page = new_page(viewport=PHONE, touch=True)
    page.goto(f"{base_url}/keep/")
    ready(page)
    sheet = start_sheet(page, "generala", ["Ann", "Bram"])
    type_dice(page, (1, 2, 3, 4, 5))
    page.click(box(page, "free.straight"))
    entries_are(page, 1)
    type_dice(page, (4, 4, 4, 4, 4))
    page.click(box(page, "free.yam"))
    entries_are(page, 2)
    page.wait_for_function("() => document.body.dataset.finished === '1'", timeout=15000)
    state = replay(api.get(f"{base_url}/keep/{sheet}/record.json").json())
    assert state.finished and state.outright is not None and state.outright.seats == (1,) and state.winners() == [1]
    assert state.sheets[1].written.count(None) == 10  # ten of Bram's eleven boxes still open
    # the end says how he won (docs/rules.md §7), never "On points: 50 to 25"
    page.wait_for_selector("#end:not([hidden]) .why")
    assert page.inner_text("#end .winner") == "Bram wins"
    assert page.inner_text("#end .why") == "Won outright: served Generala."
    assert "On points" not in page.inner_text("#end")
    page.screenshot(path=str(SCREENSHOTS / "family-generala-served-keeper-en.png"))


def test_each_new_preset_on_a_phone_and_a_laptop(base_url, new_page):
    """A first roll of each new preset on a laptop (1280 x 800) in English and on a phone (390 x 844) in the
    language whose players know it best: boxes offered, no sideways scrolling; screenshots to look at
    (`make screenshots` keeps them; both languages on both sizes: bench/family_shots.py)."""
    second = {
        "kniffel": "de", "yacht": "fr", "generala": "es", "maxi-yatzy": "sv", "kismet": "nl", "triple-yahtzee": "it",
    }  # fmt: skip
    for preset in NEW:
        for where, viewport, lang in (("laptop", LAPTOP, "en"), ("phone", PHONE, second[preset])):
            page = new_page(viewport=viewport, touch=where == "phone", locale=lang)
            page.goto(f"{base_url}/?lang={lang}")
            start(page, base_url, preset, seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
            roll(page)
            page.wait_for_function(SETTLED)  # the roll's animation over
            assert page.locator(LEGAL).count() > 0
            width, inner = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
            assert width <= inner, (preset, lang, where)
            page.screenshot(path=str(SCREENSHOTS / f"family-{preset}-{where}-{lang}.png"))
            page.context.close()


# the number a seat's chip shows before its unit ("-2 pts", "−2 Pkt."), as the page wrote it
CHIP_POINTS = """(n) => {
    const text = document.querySelector('#chip-0 .pts')?.textContent || '';
    return parseFloat(text.replace('\u2212', '-').replace(',', '.')) === n;
}"""


def test_balut_shows_its_points_as_they_stand_on_a_phone_and_a_laptop(base_url, new_page):
    """Balut alone: the player's chip shows the points the engine counts on the sheet so far (the view's
    `category_points`: an empty sheet is -2 for its total), and again after the first entry; no sideways
    scrolling; screenshots on a phone (German) and a laptop (English)."""
    for where, viewport, lang in (("laptop", LAPTOP, "en"), ("phone", PHONE, "de")):
        page = new_page(viewport=viewport, touch=where == "phone", locale=lang)
        page.goto(f"{base_url}/?lang={lang}")
        start(page, base_url, "balut", seats=[{"kind": "human", "name": "Ann"}])
        page.wait_for_function(CHIP_POINTS, arg=-2)
        roll(page)
        page.wait_for_function(SETTLED)
        score_first_offered(page)
        record = page.request.get(page.url.split("?")[0] + "/record.json")
        assert record.ok, record.text()
        state = replay(record.json())  # the engine's count after that entry
        assert len(state.history) == 1
        counted = state.category_points()
        assert counted is not None
        page.wait_for_function(CHIP_POINTS, arg=counted[0].points)
        width, inner = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert width <= inner, (lang, where)
        page.screenshot(path=str(SCREENSHOTS / f"family-balut-{where}-{lang}.png"))
        page.context.close()


def test_a_whole_balut_game_ends_on_its_points_each_category_listed(base_url, new_page):
    """28 turns by taps; the end's table lists what each category and the total earned and the match points,
    as Balut's printed table gives them for the sheet the record holds (worked out in tests/engine)."""
    page = new_page(viewport=LAPTOP)
    table = start(page, base_url, "balut", seats=[{"kind": "human", "name": "Ann"}])
    turns = 0
    while wait_my_turn_or_end(page):
        roll(page)
        page.wait_for_function(SETTLED)
        score_first_offered(page)
        turns += 1
    assert turns == 28
    page.wait_for_selector("#results:not([hidden])")
    state = replay(page.request.get(f"{base_url}/t/{table}/record.json").json())
    sheet = state.sheets[0]
    rules = state.rules
    boxes = {r: [sheet.written[rules.box_index(c, r)] for c in COLUMNS] for r in ROWS}
    want = balut_points(boxes, sum(v or 0 for v in sheet.written))
    shown = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#results table tr')].map((tr) =>
            [tr.querySelector('th').textContent, tr.querySelector('td')?.textContent]))"""
    )
    labels = {"fours": "Fours", "fives": "Fives", "sixes": "Sixes", "straight": "Straight",
              "full_house": "Full house", "choice": "Choice", "balut": "Balut"}  # fmt: skip
    for row, label in labels.items():
        assert float(shown[label]) == want["rows"][row], (row, shown)
    assert float(shown["Points for the total"]) == want["total"]
    assert float(shown["Match points"]) == want["points"]
    assert "Category points:" in page.locator("#results").inner_text()
    page.screenshot(path=str(SCREENSHOTS / "results-balut-laptop.png"), full_page=True)
