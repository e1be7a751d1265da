"""A two-round club tournament run by its organiser, in Chromium against the app in this process (uvicorn
in a thread, the test's clock): Ann makes it (approval of joiners on) on her phone in Amsterdam, Bram joins
from New York and waits until she approves him; both play round 1 by clicks, she pauses while Bram plays
(his table stops and says why) and lets it go on, extends round 1 and cancels round 2; at the close the
standings are final and round 2 counts for nobody. Times show in each reader's own time zone. Screenshots
of the organiser's page on a phone (390 x 844) and the standings on a laptop (1280 x 800)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from tests.server.profile_helpers import Clock, profile_settings

from .conftest import SCREENSHOTS, app_in_thread
from .table_helpers import LAPTOP, PHONE, no_sideways_scroll, play_turn, ready, wait_my_turn_or_end


def _play(page, turns: int | None = None) -> None:
    """Play by clicks (roll once, the first box offered), to the end or for `turns` turns."""
    ready(page)
    done = 0
    while (turns is None or done < turns) and wait_my_turn_or_end(page):
        play_turn(page, holds=0)
        done += 1


def _times(page, n: int) -> str:
    return page.locator(f".round[data-round='{n}'] p.small").first.inner_text()


def test_an_organiser_runs_a_two_round_tournament(tmp_path, new_page):
    clock = Clock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))
    settings = profile_settings(tmp_path, clock, http_burst=1000, bot_delay=0.0)
    with app_in_thread(settings) as base:
        ann = new_page(viewport=PHONE, touch=True, zone="Europe/Amsterdam")
        ann.goto(base + "/clubs/new")
        ann.fill("input[name=owner]", "Ann")
        ann.fill("input[name=name]", "Thursday club")
        ann.select_option("select[name=preset]", "yams")
        ann.fill("input[name=rounds]", "2")
        ann.select_option("select[name=window]", "15")
        ann.check("input[name=approval]")
        ann.click(".club-form button[type=submit]")
        ann.wait_for_url(re.compile(r"/c/[\w-]+$"))
        club = ann.url
        assert "01:00 PM" in _times(ann, 1)  # 12:00 UTC, in Amsterdam
        assert re.search(r"\b\d+m\b", ann.locator(".round[data-round='1'] time[data-countdown]").inner_text())
        invite = ann.locator("#invite-url").input_value()

        bram = new_page(viewport=LAPTOP, zone="America/New_York")
        bram.goto(invite)
        assert "07:00 AM" in _times(bram, 1)  # the same round, in New York
        bram.fill(".join-form input[name=name]", "Bram")
        bram.click(".join-form button[type=submit]")
        bram.wait_for_selector("text=the organiser has not approved it yet")
        assert bram.locator("form.play-round").count() == 0
        ann.reload()
        ann.click("li.member.pending form button.primary")  # Approve
        ann.wait_for_selector("li.member.player >> text=Bram")

        ann.click(".round[data-round='1'] form.play-round button")
        ann.wait_for_url("**/t/*")
        _play(ann)  # Ann plays her whole round
        bram.reload()
        bram.click(".round[data-round='1'] form.play-round button")
        bram.wait_for_url("**/t/*")
        _play(bram, turns=1)
        ann.goto(club)
        ann.click("#pause")
        ann.wait_for_selector("#resume")
        bram.wait_for_function("() => document.getElementById('status').textContent.includes('paused')")
        assert bram.locator("#roll[aria-disabled='true']").count() == 1  # his table stops, and says why
        ann.click("#resume")
        ann.wait_for_selector("#pause")
        _play(bram)  # the rest of his game

        before = _times(ann, 2)
        ann.click(".round[data-round='1'] form.extend button")  # 15 minutes more; round 2 moves with it
        ann.wait_for_selector("#confirm-action")  # the page asks first: nothing moved yet
        assert _times(ann, 2)[:40] == before[:40]
        ann.screenshot(path=str(SCREENSHOTS / "club-confirm-phone.png"), full_page=True)
        ann.click("#confirm-yes")
        ann.wait_for_function(
            f"() => !document.querySelector(\".round[data-round='2'] p.small\").innerText.includes({before[:40]!r})"
        )
        ann.click(".round[data-round='2'] form:has(input[value='cancel-round']) button")  # cancel round 2
        ann.click("#confirm-yes")  # after the page asked
        ann.wait_for_selector(".round.cancelled[data-round='2']")
        log = ann.locator("#organiser-log li")  # newest first
        assert [log.nth(i).get_attribute("data-action") for i in range(log.count())][:4] == [
            "cancel-round", "extend", "resume", "pause"
        ]  # fmt: skip
        ann.screenshot(path=str(SCREENSHOTS / "club-organiser-phone.png"), full_page=True)
        sw, cw = no_sideways_scroll(ann)
        assert sw <= cw, (sw, cw)

        clock.now += timedelta(minutes=31)  # past round 1's close, extended
        bram.goto(club)
        rows = bram.locator(".standings-card tbody tr")
        assert rows.count() == 2 and sorted(int(rows.nth(i).locator(".total").inner_text()) for i in range(2)) in (
            [0, 2],
            [1, 1],
        )
        assert bram.locator(".standings-card .tag").inner_text() == "final"
        assert bram.locator(".round.cancelled[data-round='2'] .hash").count() == 1  # its seed is published
        assert "counts for nobody" in bram.locator(".round[data-round='2']").inner_text()
        bram.screenshot(path=str(SCREENSHOTS / "club-standings-laptop.png"), full_page=True)
