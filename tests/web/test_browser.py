"""Browser tests: Playwright driving Debian's Chromium against a real server process."""

from __future__ import annotations

import re

from .conftest import SCREENSHOTS

PREVIEW = "#sheet button.preview"


def create_table(page, base, preset="yams", seats=(("human", "Ann"), ("open", "")), name="Table", duplicate=False):
    page.goto(base + "/")
    page.fill("input[name=name]", name)
    page.select_option("#preset", preset)
    for i in range(8):
        kind, seat_name = seats[i] if i < len(seats) else ("none", "")
        page.select_option(f"select[name=seat{i}_kind]", kind)
        page.fill(f"input[name=seat{i}_name]", seat_name)
    if duplicate:
        page.check("input[name=duplicate]")
    page.click("#create button[type=submit]")
    page.wait_for_url(re.compile(r"/t/[\w-]+$"))
    ready(page)
    return page.url


def ready(page):
    page.wait_for_function("document.body.dataset.ready === '1'")


def version(page) -> int:
    return int(page.evaluate("document.body.dataset.v"))


def wait_past(page, v):
    page.wait_for_function(f"Number(document.body.dataset.v) > {v}")


def play_turn(page):
    """Roll, then end the turn in the first box offered (announcing or rolling on when none is)."""
    page.wait_for_selector("#roll:not([disabled])")
    v = version(page)
    page.click("#roll")
    wait_past(page, v)
    while True:
        if page.locator(PREVIEW).count():
            v = version(page)
            page.locator(PREVIEW).first.click()
            wait_past(page, v)
            return
        v = version(page)
        if page.locator("#announce").count():
            page.click("#announce")
        else:
            page.click("#roll")
        wait_past(page, v)


def my_turn(page) -> bool:
    return page.locator("#roll:not([disabled])").count() > 0 or page.locator(PREVIEW).count() > 0


def test_two_players_two_browsers_play_a_whole_yams_game(base_url, new_page):
    ann = new_page()
    url = create_table(ann, base_url, "yams", (("human", "Ann"), ("open", "")), name="Ann & Bram")
    bram = new_page(locale="nl-NL")
    bram.goto(url)
    bram.fill("input[name=name]", "Bram")
    bram.click("form.join button")
    ready(bram)
    assert bram.locator("#tabs button").nth(1).inner_text().startswith("Bram")
    assert "Gooien" in bram.inner_text("#roll") and "Drie dezelfde" in bram.inner_text("#sheet")  # nl browser
    for turn in range(26):
        page = ann if turn % 2 == 0 else bram
        page.wait_for_selector("#roll:not([disabled])")
        if turn == 10:  # mid-game, mid-turn: a held die and the previews, for the README
            v = version(ann)
            ann.click("#roll")
            wait_past(ann, v)
            v = version(ann)
            ann.locator(".die").nth(0).click()
            wait_past(ann, v)
            assert ann.locator(".die.held").count() == 1
            ann.screenshot(path=str(SCREENSHOTS / "table-midgame.png"), full_page=True)
            v = version(ann)
            ann.locator(PREVIEW).first.click()
            wait_past(ann, v)
            continue
        play_turn(page)
    for page in (ann, bram):
        page.wait_for_selector("#results:not([hidden])")
    assert "Ann" in ann.inner_text("#results") and "Bram" in ann.inner_text("#results")
    assert ann.locator("#rematch").count() == 1
    ann.screenshot(path=str(SCREENSHOTS / "results.png"), full_page=True)
    # the record download is the game record of RULES.md section 11
    record = ann.request.get(url + "/record.json").json()
    assert len(record["turns"]) == 26 and record["players"] == ["Ann", "Bram"]


def test_hot_seat_yammen_game_of_two(base_url, new_page):
    page = new_page()
    create_table(page, base_url, "yammen", (("human", "Ann"), ("human", "Bram")), name="Hot seat")
    page.screenshot(path=str(SCREENSHOTS / "table-yammen.png"), full_page=True)
    turns = 0
    while page.locator("#results:not([hidden])").count() == 0:
        play_turn(page)  # whoever's turn it is: both seats are on this device
        turns += 1
        assert turns <= 132
    assert turns == 2 * 6 * 11  # six columns of eleven rows each
    text = page.inner_text("#results")
    assert "Match points" in text


def test_solo_game_against_a_bot(base_url, new_page):
    page = new_page()
    create_table(page, base_url, "yams", (("human", "Ann"), ("bot-hard", "")), name="Solo")
    for _ in range(13):
        play_turn(page)
    page.wait_for_selector("#results:not([hidden])")
    rows = page.locator("#tabs button")
    assert rows.count() == 2 and "(Bot)" in rows.nth(1).inner_text() and "🤖" not in rows.nth(1).inner_text()


def test_duplicate_table_shows_the_same_dice_for_everyone(base_url, new_page):
    ann = new_page()
    url = create_table(ann, base_url, "yams", (("human", "Ann"), ("open", "")), name="Duplicate", duplicate=True)
    bram = new_page()
    bram.goto(url)
    bram.fill("input[name=name]", "Bram")
    bram.click("form.join button")
    ready(bram)
    for _ in range(2):
        play_turn(ann)  # both play at once, in any order
        play_turn(bram)
    for page in (ann, bram):
        page.wait_for_selector("#rounds:not([hidden])")
    text = bram.inner_text("#rounds")
    lines = [line for line in text.splitlines() if "→" in line or "⇒" in line]
    assert len(lines) == 2
    rolls = [line.split(": ", 1)[1].split(" ⇒")[0].split(" → ")[0] for line in lines]
    assert rolls[0] == rolls[1]  # roll 1 of the round: the same dice for Ann and Bram


def test_keyboard_only_turn(base_url, new_page):
    page = new_page()
    create_table(page, base_url, "yams", (("human", "Kim"),), name="Keys")
    v = version(page)
    page.keyboard.press("r")
    wait_past(page, v)
    v = version(page)
    page.keyboard.press("1")
    wait_past(page, v)
    v = version(page)
    page.keyboard.press("3")
    wait_past(page, v)
    held = page.locator(".die[aria-pressed=true]")
    assert held.count() == 2
    assert "held" in page.locator(".die").nth(0).get_attribute("aria-label")
    v = version(page)
    page.keyboard.press("R")
    wait_past(page, v)
    assert "Rolls left: 1" in page.inner_text("#roll")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    focused = page.evaluate("document.activeElement.dataset.box")
    assert focused == page.locator(PREVIEW).nth(1).get_attribute("data-box")
    v = version(page)
    page.keyboard.press("Enter")
    wait_past(page, v)
    cell = page.locator(f'#sheet td[data-box="{focused}"]')
    assert cell.inner_text().strip().isdigit()
    assert page.locator(PREVIEW).count() == 0


def test_lobby_and_phone_screen(base_url, new_page):
    page = new_page()
    page.goto(base_url + "/")
    page.screenshot(path=str(SCREENSHOTS / "lobby.png"), full_page=True)
    phone = new_page(viewport={"width": 375, "height": 740})
    create_table(phone, base_url, "yams-fr", (("human", "Zoé"), ("bot-easy", "")), name="Phone")
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 375 + 1  # the sheet scrolls inside its box, the page does not
    phone.screenshot(path=str(SCREENSHOTS / "table-phone.png"), full_page=True)
