"""A group's season on a 390 x 844 phone: the phone joins a family's group by its code on the start page,
reads the season table (every figure the server's, from the engine: checked against the season's JSON and a
replay of the sheet here), files a sheet of its own, and prints a sheet to PDF (Chromium's own printing:
the print layout keeps the sheet and its totals, drops the pad). Screenshots of the season, phone and laptop,
light and dark."""

from __future__ import annotations

import os
import re

import httpx
import pytest

from yambak.engine import GameRecord, replay

from ..server.keeper_plan import plan
from .conftest import SCREENSHOTS, api
from .table_helpers import serious_violations

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    from ..server.helpers import server_process

    db = tmp_path_factory.mktemp("group") / "group.db"
    with server_process(f"sqlite:///{db}") as base:
        yield base


def _kept(base_url: str, players: tuple[str, ...]) -> dict:
    """A yammen sheet kept to its end over the API, entry by entry."""
    made = {"name": "Friday", "preset": "yammen", "players": list(players)}
    sheet = api.post(f"{base_url}/api/keep", json=made).json()
    auth = {"authorization": f"Bearer {sheet['token']}"}
    filled = [0] * len(players)
    with httpx.Client(base_url=base_url, headers=auth) as c:
        for v, e in enumerate(plan("yammen", players)[0]):
            body = {"id": f"group-entry-{v:04d}", "v": v, **e.body(), "filled": filled[e.seat]}
            filled[e.seat] += 1
            assert c.post(f"/api/keep/{sheet['id']}/entries", json=body).status_code == 200
    return sheet


def test_a_phone_joins_a_group_reads_its_season_and_prints_a_sheet(base_url, browser):
    group = api.post(f"{base_url}/api/keep/groups", json={"name": "The Peeters family"}).json()
    sheet = _kept(base_url, ("Ann", "Bram"))
    filed = api.post(
        f"{base_url}/api/keep/groups/{group['id']}/sheets",
        json={"sheet": sheet["id"], "token": sheet["token"]},
        headers={"authorization": f"Bearer {group['token']}"},
    )
    assert filed.status_code == 200
    # the phone's own sheet, not filed yet (its page gives the phone its write token)
    own = api.post(f"{base_url}/api/keep", json={"name": "Sunday", "preset": "yams", "players": ["Ann"]}).json()

    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-GB")
    ctx.set_default_timeout(10000)
    try:
        page = ctx.new_page()
        page.goto(f"{base_url}/keep/{own['id']}#token={own['token']}&code={own['code']}")
        page.wait_for_selector("#sheet table")
        page.goto(f"{base_url}/keep/")
        page.fill("#group-join input[name=code]", group["code"].lower())
        page.click("#group-join button[type=submit]")
        page.wait_for_url(re.compile(rf"/keep/group/{group['id']}$"))
        page.wait_for_selector("#member-card:not([hidden]) #mine button[data-sheet]")
        assert group["code"] in page.inner_text("#group-code")

        season = api.get(f"{base_url}/api/keep/groups/{group['id']}").json()["season"]
        state = replay(GameRecord.from_dict(api.get(f"{base_url}/keep/{sheet['id']}/record.json").json()))
        (ruleset,) = season["rulesets"]
        for p in ruleset["players"]:
            seat = state.players.index(p["name"])
            row = page.locator(f"table.season tr[data-player='{p['name']}']")
            assert row.locator("[data-stat=games]").inner_text() == "1"
            assert row.locator("[data-stat=wins]").inner_text() == str(int(seat in state.winners()))
            assert row.locator("[data-stat=best]").inner_text() == str(state.total(seat))
            assert row.locator("[data-stat=points]").inner_text() == f"{state.match_points()[seat]:.1f}"
        assert page.locator("svg.plot .series").count() == 2
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

        page.click(f"#mine button[data-sheet='{own['id']}']")  # files the phone's own sheet: the page reloads
        page.wait_for_selector("#season-summary:has-text('1 sheet still being played')")

        # a new code: the old one joins no more, and the maker's phone (group["token"]) files no more
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#renew-group-code")
        page.wait_for_function(f"() => !document.querySelector('#group-code').textContent.includes('{group['code']}')")
        (mine,) = page.evaluate("JSON.parse(localStorage.getItem('yambak.keep.groups'))")
        member = {"authorization": f"Bearer {mine['token']}"}
        now = api.get(f"{base_url}/api/keep/groups/{group['id']}", headers=member).json()["code"]
        assert mine["code"] == now != group["code"] and now in page.inner_text("#group-code")
        refused = api.post(
            f"{base_url}/api/keep/groups/{group['id']}/sheets",
            json={"sheet": sheet["id"], "token": sheet["token"]},
            headers={"authorization": f"Bearer {group['token']}"},
        )
        assert refused.status_code == 403

        page.goto(f"{base_url}/keep/")  # the start page lists the groups this phone joined, and makes one
        assert page.locator("#my-groups a").all_inner_texts() == ["The Peeters family"]
        page.fill("#group-new input[name=name]", "Thursday club")
        page.click("#group-new button[type=submit]")
        page.wait_for_selector("#member-card:not([hidden]) #group-code")
        assert page.inner_text("h1") == "Thursday club"
        assert "No finished sheet in this group yet" in page.inner_text("main")
        # another phone joins and makes a new code: this phone is told, and forgets the group
        thursday = page.evaluate("JSON.parse(localStorage.getItem('yambak.keep.groups'))")[0]
        other = api.post(f"{base_url}/api/keep/groups/join", json={"code": thursday["code"]}).json()
        auth = {"authorization": f"Bearer {other['token']}"}
        assert api.post(f"{base_url}/api/keep/groups/{thursday['id']}/code", headers=auth).status_code == 200
        page.reload()
        page.wait_for_selector("#group-error:not([hidden])")
        assert "code was renewed" in page.inner_text("#group-error") and page.is_hidden("#member-card")
        # and leaves the Peeters family: its sheets stay in the season
        page.goto(f"{base_url}/keep/group/{group['id']}")
        page.wait_for_selector("#member-card:not([hidden]) #leave-group")
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#leave-group")
        page.wait_for_selector("#member-card", state="hidden")
        assert page.evaluate("localStorage.getItem('yambak.keep.groups')") == "[]"
        assert api.get(f"{base_url}/api/keep/groups/{group['id']}").json()["season"]["unfinished"] == 1

        page.goto(f"{base_url}/keep/{sheet['id']}")
        page.wait_for_selector("#sheet table")
        page.emulate_media(media="print")
        page.wait_for_selector("#print-sheets .print-sheet:nth-child(2)", state="attached")  # no eval under the CSP
        assert page.locator("#print-sheets .print-sheet").count() == 2
        assert page.is_hidden("#pad") and page.is_hidden("#sheet-print") and page.is_hidden("#sheet")
        grands = page.locator("#print-sheets .grand").all_inner_texts()  # each player's sheet on paper, and total
        expected = zip(state.totals(), state.match_points(), strict=True)
        assert grands == [f"Total: {t} · Match points: {m:g}" for t, m in expected]
        pdf = page.pdf(format="A4", print_background=False)
        pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
        assert pdf.startswith(b"%PDF-") and 1 <= pages <= 3 and len(pdf) > 10_000, (pages, len(pdf))
        page.emulate_media(media="screen")
    finally:
        ctx.close()
    shots = [("keeper-season-laptop", False, LAPTOP)]
    if os.environ.get("YAMBAK_SCREENSHOTS"):  # `make screenshots`: a longer season, phone and laptop, light and dark
        for players in (("Bram", "Ann", "Cas"), ("Cas", "Ann")):
            more = _kept(base_url, players)
            filed = {"sheet": more["id"], "token": more["token"]}
            auth = {"authorization": f"Bearer {group['token']}"}
            assert api.post(f"{base_url}/api/keep/groups/{group['id']}/sheets", json=filed, headers=auth).is_success
        shots += [("keeper-season", False, PHONE), ("keeper-season-dark", True, PHONE)]
        shots += [("keeper-season-laptop-dark", True, LAPTOP)]
    for name, dark, viewport in shots:
        scheme = "dark" if dark else "light"  # axe-core is injected: the page's own policy is test_csp_browser's
        ctx = browser.new_context(viewport=viewport, color_scheme=scheme, locale="en-GB", bypass_csp=True)
        try:
            page = ctx.new_page()
            page.goto(f"{base_url}/keep/group/{group['id']}")
            page.wait_for_selector("table.season")
            page.click(".season-games summary")  # the games, one by one, open
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
            assert serious_violations(page) == [], name
        finally:
            ctx.close()
