"""The daily challenge and a club tournament as players meet them, in Debian's Chromium against a real
server: two profiles (a day old, so that they are ranked) find the challenge from the lobby, play it
by clicks, and the board shows exactly their games; then a tournament round and its standings.
Screenshots of the daily board and the standings on a phone (390 x 844) and a laptop (1280 x 800)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import pytest

from yambak.server.profiles.manager import hash_secret
from yambak.store import ResultRow, Store

from ..server.profile_helpers import Clock, profile_settings
from .conftest import SCREENSHOTS, app_in_thread
from .table_helpers import LAPTOP, PHONE, no_sideways_scroll, play_turn, ready, wait_my_turn_or_end

# The server's day: on the wall clock, a run passing midnight UTC would close the deal between two players
CLOCK = Clock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("daily")
    settings = profile_settings(folder, CLOCK, http_burst=1000)
    with app_in_thread(settings) as base:
        yield base, settings.database_url


def _yesterday() -> datetime:
    return CLOCK.now.replace(tzinfo=None) - timedelta(days=1)


def _profile(store: Store, name: str) -> tuple[str, str]:
    """A profile made yesterday (ranked today): (its id, its device token)."""
    pid, token = secrets.token_urlsafe(12), secrets.token_urlsafe(24)
    store.create_profile(pid, name, hash_secret(token), _yesterday())
    return pid, token


def _browser(new_page, base: str, token: str, where: str):
    page = new_page(viewport=PHONE if where == "phone" else LAPTOP, touch=where == "phone")
    page.context.add_cookies([{"name": "yambak_profile", "value": token, "url": base}])
    return page


def _play_to_the_end(page, holds: int = 0) -> None:
    page.wait_for_url("**/t/*")  # the play button's form answers with the table
    page.wait_for_load_state()
    ready(page)
    while wait_my_turn_or_end(page):
        play_turn(page, holds=holds)
    page.wait_for_selector("#results:not([hidden])")


def _board(page) -> list[tuple[str, int]]:
    rows = page.locator(".board-card table.board tbody tr")
    return [
        (rows.nth(i).locator(".who").inner_text(), int(rows.nth(i).locator("td.n").first.inner_text()))
        for i in range(rows.count())
    ]


def _fill(store: Store, deal_id: str, names_scores: list[tuple[str, int]], preset: str) -> None:
    """More players on a deal, for a picture that looks like a busy day."""
    for name, score in names_scores:
        pid, _ = _profile(store, name)
        table = secrets.token_urlsafe(12)
        store._sync(Store.add_entry_op(deal_id, pid, table, _yesterday()))
        store.insert_results([ResultRow(pid, "daily", table, 0, preset, preset, _yesterday(), score, False, 1, True)])


def test_two_profiles_play_the_daily_challenge_and_a_club_round(served, new_page):
    base, db = served
    store = Store(db, migrate=False)
    try:
        (_, ann_token), (_, bram_token) = _profile(store, "Ann"), _profile(store, "Bram")
        ann = _browser(new_page, base, ann_token, "phone")
        bram = _browser(new_page, base, bram_token, "laptop")
        ann.goto(base + "/")
        ann.click("a.lobby-daily")  # the lobby leads to the challenge
        ann.wait_for_url("**/daily")
        assert "casual ranking" in ann.locator(".casual").inner_text()
        ann.click(".play-form button[type=submit]")
        _play_to_the_end(ann)
        bram.goto(base + "/daily?preset=yams")
        bram.click(".play-form button[type=submit]")
        _play_to_the_end(bram, holds=1)  # a way of his own

        scores = {}
        for name, page in (("Ann", ann), ("Bram", bram)):
            table = page.url.rsplit("/", 1)[1]
            scores[name] = page.request.get(f"{base}/api/tables/{table}").json()["players"][0]["total"]
        ann.click("#board-link")  # from the end of the game to the day's board
        ann.wait_for_selector(".board-card table.board")
        assert sorted(_board(ann), key=lambda r: r[0]) == sorted(scores.items())
        assert ann.locator("tr.me .who").inner_text() == "Ann"
        assert ann.locator(".par strong").count() == 1  # having played, she sees the par

        deal = ann.request.get(f"{base}/api/daily").json()["deals"][0]["deal"]
        _fill(store, deal, [("Dana", 241), ("Emil", 198), ("Femke", 263), ("Goran", 221)], "yams")
        for where, page in (("phone", ann), ("laptop", bram)):
            page.goto(base + "/daily?preset=yams")
            page.wait_for_selector(".board-card table.board")
            sw, cw = no_sideways_scroll(page)
            assert sw <= cw, (where, sw, cw)
            page.screenshot(path=str(SCREENSHOTS / f"daily-{where}.png"), full_page=where == "phone")

        # a club tournament: Ann organises, Bram joins by the invite link, both play round 1
        ann.goto(base + "/clubs/new")
        ann.fill("input[name=name]", "Thursday club")
        ann.select_option("select[name=preset]", "yatzy")
        ann.fill("input[name=rounds]", "2")
        ann.click(".club-form button[type=submit]")
        invite = ann.locator("#invite-url").input_value()
        bram.goto(invite)
        bram.click(".join-form button[type=submit]")
        for holds, page in enumerate((ann, bram)):
            page.click(".round.open form.play-round button[type=submit]")
            _play_to_the_end(page, holds)
            page.goto(invite.split("?")[0])
        rows = bram.locator(".standings-card tbody tr")
        assert rows.count() == 2 and {rows.nth(i).locator(".who").inner_text() for i in range(2)} == {"Ann", "Bram"}
        total = sorted(int(rows.nth(i).locator(".total").inner_text()) for i in range(2))
        assert total in ([0, 2], [1, 1])  # two players on one deal: 2 matchpoints between them
        for where, page in (("phone", ann), ("laptop", bram)):
            page.reload()
            sw, cw = no_sideways_scroll(page)
            assert sw <= cw, (where, sw, cw)
            page.screenshot(path=str(SCREENSHOTS / f"tournament-{where}.png"), full_page=where == "phone")
    finally:
        store.close()
