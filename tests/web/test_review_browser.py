"""Browser checks of the review fixes: the keeper offers only boxes it will take, the table's
status and bot label, join errors as a page, list options in the lobby, translated refusals."""

from __future__ import annotations

import httpx

from .test_browser import create_table, ready, version, wait_past
from .test_keeper_browser import start_sheet

BOX = "#sheet button.box[data-box='{}']"


def test_keeper_offers_only_fillable_boxes_for_the_chosen_roll(base_url, new_page):
    page = new_page()
    start_sheet(page, base_url, preset="yammen", players=("Ann", "Bram"))
    assert page.locator(BOX.format("down.ones")).count() == 1
    assert page.locator(BOX.format("down.twos")).count() == 0  # down is filled from the top
    assert page.locator(BOX.format("up.yam")).count() == 1 and page.locator(BOX.format("up.min")).count() == 0
    assert page.locator(BOX.format("poot.ones")).count() == 1  # roll 1 is chosen
    page.click("#rolls [data-roll='3']")
    assert page.locator(BOX.format("poot.ones")).count() == 0
    assert page.locator(BOX.format("en_deux.ones")).count() == 0
    assert page.locator(BOX.format("free.ones")).count() == 1
    page.click("#rolls [data-roll='2']")
    assert page.locator(BOX.format("en_deux.ones")).count() == 1 and page.locator(BOX.format("poot.ones")).count() == 0
    page.click("#scratch")  # just the score: any roll number
    assert page.locator(BOX.format("poot.ones")).count() == 1 and page.locator(BOX.format("down.twos")).count() == 0


def test_table_status_bot_label_and_favicon(base_url, new_page):
    page = new_page()
    create_table(page, base_url, "yams", seats=(("human", "Ann"), ("bot-easy", "Robo")))
    tabs = page.locator("#tabs").inner_text()
    assert "Robo (Bot)" in tabs and "🤖" not in tabs
    page.wait_for_selector("#roll:not([disabled])")
    v = version(page)
    page.click("#roll")
    wait_past(page, v)
    assert "Roll again or choose a box." in page.locator("#status").inner_text()
    for _ in range(2):
        v = version(page)
        page.click("#roll")
        wait_past(page, v)
    status = page.locator("#status").inner_text()
    assert "Choose a box." in status and "Roll again" not in status
    r = httpx.get(base_url + "/favicon.ico")
    assert r.status_code == 200 and "svg" in r.headers["content-type"]


def test_join_error_is_shown_on_the_page(base_url, new_page):
    host = new_page()
    url = create_table(host, base_url, "yams", seats=(("human", "Ann"), ("open", "")))
    guest = new_page(locale="fr-FR")
    guest.goto(url)
    ready(guest)
    taken = httpx.post(url.replace("/t/", "/api/tables/") + "/join", json={"name": "Quick"})
    assert taken.status_code == 200
    guest.fill("form.join input[name=name]", "Late")
    guest.click("form.join button[type=submit]")
    guest.wait_for_selector("#join-error")
    assert "Toutes les places de cette table sont prises." in guest.locator("#join-error").inner_text()
    assert guest.locator("#sheet").count() == 1  # the table page itself, not raw JSON


def test_lobby_accepts_a_list_option(base_url, new_page):
    page = new_page()
    page.goto(base_url + "/")
    page.fill("input[name=options]", "extra=updown,middle, four_kind=all")
    page.select_option("#preset", "yamb")
    page.click("#create button[type=submit]")
    page.wait_for_url("**/t/*")
    ready(page)
    heads = page.locator("#sheet thead th").all_inner_texts()
    assert "Up and down" in heads and "Middle" in heads


def test_refusals_are_shown_translated(base_url, new_page):
    page = new_page(locale="de-DE")
    create_table(page, base_url, "yams", seats=(("human", "Ann"),))
    page.evaluate("""() => new Promise((ok) => {
        const ws = new WebSocket(`ws://${location.host}/ws/${location.pathname.split('/').pop()}`);
        ws.onopen = () => ws.send(JSON.stringify({type: 'hello', since: 0}));
        ws.onmessage = (m) => { const d = JSON.parse(m.data);
          if (d.type === 'welcome')
            ws.send(JSON.stringify({type: 'score', seat: d.seats[0], v: 0, box: 'free.chance'}));
          if (d.type === 'error') { window.refusal = d; ok(); } };
    })""")
    refusal = page.evaluate("window.refusal")
    assert refusal["code"] == "illegal/roll-first"
    assert refusal["message"] == "Erst würfeln, dann ein Feld wählen." and refusal["detail"]
