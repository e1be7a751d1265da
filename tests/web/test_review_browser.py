"""Browser check of a review fix: the keeper offers only boxes it will take."""

from __future__ import annotations

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
