"""Profiles as players meet them in Chromium: two people play tables on their own devices; their games,
statistics and replays show what was played and nothing else; a personal best is celebrated at the
table; a profile moves to another device by its link and is deleted there. Takes the pictures of
docs/screenshots for the history, a replay, the statistics and a personal best."""

from __future__ import annotations

import random
import re
from typing import Any

from yambak.bots import greedy
from yambak.engine import new_game, replay, state_to_record
from yambak.rules import load_ruleset

from .conftest import SCREENSHOTS
from .table_helpers import (
    LAPTOP,
    LEGAL,
    PHONE,
    act,
    no_sideways_scroll,
    ready,
    serious_violations,
    start,
    version,
    wait_my_turn_or_end,
    wait_past,
)


def _turn(page: Any, pick: Any, hold: bool = True) -> None:
    """Roll (hold the first die, roll again), then fill the legal box `pick` chooses from {box: points}."""
    act(page, lambda: page.click("#roll"))
    if hold and page.locator(LEGAL).count() and page.locator("#roll[aria-disabled='true']").count() == 0:
        act(page, page.locator(".die[data-value]").first.click)
        act(page, lambda: page.click("#roll"))
    cells = page.locator(LEGAL)
    offered = {cells.nth(i).get_attribute("data-box"): int(cells.nth(i).inner_text()) for i in range(cells.count())}
    box = pick(offered)
    v = version(page)
    page.click(f"#sheet button.cell.legal[data-box='{box}']")
    armed = page.locator(f"#sheet button.cell.armed[data-box='{box}']")
    if armed.count():  # a 0 asks for a second tap
        armed.click()
    wait_past(page, v)


def least(offered: dict[str, int]) -> str:
    return min(offered, key=lambda b: (offered[b], b))


def most(offered: dict[str, int]) -> str:
    return max(offered, key=lambda b: (offered[b], b))


def _texts(page: Any, selector: str) -> list[str]:
    return [t.strip() for t in page.locator(selector).all_inner_texts()]


def _kept_record(seed: int, preset: str = "yatzy") -> dict[str, Any]:
    """A finished two-player sheet (the greedy bot's game), as the score-keeper keeps one."""
    state = new_game(load_ruleset(preset), ["Ann", "Lou"], seed=seed)
    rng = random.Random(seed)
    while not state.finished:
        state, _ = state.apply(greedy(state, state.current, rng))
    return state_to_record(state).to_dict()


def test_two_profiles_play_and_see_exactly_what_they_played(base_url, new_page):
    ann = new_page(viewport=PHONE, touch=True, bypass_csp=True)  # axe-core is injected (_screenshots)
    assert ann.request.post(f"{base_url}/api/me", data={"name": "Ann"}).ok
    ann.goto(f"{base_url}/me")
    assert "No finished games yet" in ann.locator(".panel-card.empty").inner_text()
    table = start(ann, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "open"}])
    bea = new_page(viewport=LAPTOP)
    bea.goto(f"{base_url}/t/{table}")
    bea.fill("#join-name", "Bea")
    bea.click("#join button[type=submit]")
    bea.wait_for_url(re.compile(rf"/t/{table}$"))
    ready(bea)
    while wait_my_turn_or_end(ann):  # Ann takes the box that scores least, Bea the one that scores most
        _turn(ann, least)
        assert wait_my_turn_or_end(bea)
        _turn(bea, most, hold=False)
    first = ann.request.get(f"{base_url}/api/tables/{table}").json()
    record = ann.request.get(f"{base_url}/t/{table}/record.json").json()
    ann_1, bea_1 = first["players"][0]["total"], first["players"][1]["total"]
    ann.wait_for_selector("#my-game-link")  # a first game beats nothing: no banner
    assert ann.locator("#best-note").is_hidden()
    # Back to "My games" as it was before the game, empty: the page is asked again, with the game in it
    ann.go_back()
    ann.wait_for_url(re.compile(r"/me$"))
    assert ann.locator(".panel-card.empty").count() == 0 and _texts(ann, "#games .score") == [str(ann_1)]

    # Ann alone, the best box each turn: a personal best, celebrated at the end of the table
    solo = start(ann, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}])
    while wait_my_turn_or_end(ann):
        _turn(ann, most, hold=False)
    ann_2 = ann.request.get(f"{base_url}/api/tables/{solo}").json()["players"][0]["total"]
    assert ann_2 > ann_1, "the best boxes every turn against the worst: the second game is the better one"
    ann.wait_for_selector("#best-note:not([hidden])")
    banner = ann.locator("#best-note").inner_text()
    assert "New personal best" in banner and str(ann_2) in banner and str(ann_2 - ann_1) in banner
    ann.evaluate("window.scrollTo(0, 0)")
    ann.screenshot(path=str(SCREENSHOTS / "personal-best-phone.png"), animations="disabled")

    # the histories: newest first, the scores the tables show, who else was there
    ann.goto(f"{base_url}/me")
    assert _texts(ann, "#games .score") == [str(ann_2), str(ann_1)]
    assert _texts(ann, "#games .with") == ["solo", "with Bea"]
    assert ann.locator("#games .game-row").first.locator(".badge.best").count() == 1
    bea.goto(f"{base_url}/me")
    assert _texts(bea, "#games .score") == [str(bea_1)] and _texts(bea, "#games .with") == ["with Ann"]
    bea_game = bea.locator("#games a.game-link").get_attribute("href")

    # a sheet kept on paper, added to Ann's games: another game, another kind of statistics
    kept = _kept_record(7)
    r = ann.request.post(f"{base_url}/api/me/kept", data={"sheet": "paper-1", "record": kept, "seat": 0})
    assert r.ok, r.text()

    # statistics: the figures of exactly these games (the coach's grades come in the background)
    ann.goto(f"{base_url}/me/stats?v=yams")
    tile = {k: ann.locator(f"[data-stat={k}]").inner_text() for k in ("games", "best", "mean", "wins")}
    assert tile["games"] == "2" and tile["best"] == str(ann_2) and tile["mean"] == f"{(ann_1 + ann_2) / 2:.1f}"
    assert tile["wins"].replace(" ", "") == f"{int(0 in first['winners'])}/1"  # a shared win is a win
    assert ann.locator("svg.plot circle.dot").count() == 2 and ann.locator("svg.plot circle.dot.best").count() == 1
    assert ann.locator(".bests .score").all_inner_texts() == [str(ann_2)]
    assert ann.locator("nav.filter a.pill").count() == 2  # yams, and the kept yatzy sheet
    bea.goto(f"{base_url}/me/stats")
    assert bea.locator("[data-stat=games]").inner_text() == "1"
    assert bea.locator("[data-stat=best]").inner_text() == str(bea_1)

    # a replay is its owner's: Bea's game is not Ann's to see
    assert ann.goto(base_url + bea_game).status == 404

    # the shared table, replayed from Ann's games: the dice of each turn, what was kept, the coach
    ann.goto(f"{base_url}/me")
    ann.locator("#games a.game-link").nth(2).click()  # the kept sheet is the newest
    ann.wait_for_function("() => document.body.dataset.reviewed === '1'")
    # it opens on Ann's own last turn: the turn shown and the sheet under it are hers
    ann.wait_for_function("() => document.querySelector('#where').textContent === 'Turn 13 of 13 · Ann'")
    assert ann.locator("#sheet tr.total td").first.inner_text() == str(ann_1)  # Ann's sheet at the end
    # and Bea's as it stood then: her own last turn may come after Ann's (the engine says what it was)
    upto = max(i for i, t in enumerate(record["turns"]) if t["player"] == 0) + 1
    bea_then = replay({**record, "turns": record["turns"][:upto]}).total(1)
    ann.click("#rtab-1")
    _wait_total(ann, bea_then)
    ann.click("#rtab-0")
    ann.click("#first")
    ann.wait_for_function("() => document.querySelector('#where').textContent.startsWith('Before')")
    ann.click("#next")
    ann.wait_for_function("() => document.querySelector('#where').textContent === 'Turn 1 of 13 · Ann'")
    turn = record["turns"][0]
    rolls = ann.locator("#turn .rolls-list li")
    assert rolls.count() == len(turn["rolls"]) == 2
    assert rolls.nth(0).locator(".mini-dice").first.get_attribute("aria-label") == " ".join(map(str, turn["rolls"][0]))
    assert rolls.nth(0).locator(".mini-dice").nth(1).get_attribute("aria-label") == " ".join(map(str, turn["held"][0]))
    assert "kept" in rolls.nth(0).inner_text()
    # the biggest mistakes, straight to their turns: the coach's loss, on the turn it was made
    review = ann.request.get(ann.url.replace("/replay/", "/api/results/") + "/review").json()
    worst = review["players"][0]["mistakes"][0]
    assert ann.locator("#mistake-chips .chip").count() == len(review["players"][0]["mistakes"]) > 0
    ann.locator("#mistake-chips .chip").first.click()
    round_ = -(-worst["turn"] // 2)
    ann.wait_for_function(f"() => document.querySelector('#where').textContent === 'Turn {round_} of 13 · Ann'")
    notes = ann.locator("#turn .loss-note").all_inner_texts()  # each decision of the turn that lost points
    losses = [float(re.search(r"−(\d+\.\d\d)", t).group(1)) for t in notes]
    assert any(abs(x - worst["loss"]) <= 0.005 + 1e-9 for x in losses), (notes, worst)  # shown to 2 places
    assert len(notes) == sum(
        1 for d in review["players"][0]["decisions"] if d["turn"] == worst["turn"] and d["loss"] > 1e-9
    )
    replay_url = ann.url
    _screenshots(ann, base_url, replay_url)

    # Bea takes her profile to another device by a one-time link, then deletes it there: her games go
    # with it, and her name leaves the game she played with Ann
    bea.goto(f"{base_url}/me/profile")
    bea.click("#make-link")
    link = bea.locator("#link-url")
    link.wait_for(state="visible")
    phone = new_page(viewport=PHONE, touch=True)
    phone.goto(link.input_value())
    phone.click("#move-go")
    phone.wait_for_url(re.compile(r"/me$"))
    assert _texts(phone, "#games .score") == [str(bea_1)]
    assert phone.goto(link.input_value()).status == 410  # used up
    phone.goto(f"{base_url}/me/profile")
    phone.click("#delete")
    phone.click("#delete-yes")
    phone.wait_for_url(base_url + "/")
    assert phone.request.get(f"{base_url}/api/me").json() == {"profile": None}
    assert bea.request.get(f"{base_url}/api/me").json() == {"profile": None}  # the first device's key went too
    ann.goto(replay_url)
    ann.wait_for_function("() => document.body.dataset.reviewed === '1'")
    assert _texts(ann, "#review-players .tab") == ["Ann", "Player 2"]


def _screenshots(page: Any, base: str, replay: str) -> None:
    """The history, a replay at a mistake, the statistics: on a phone, then on a laptop (a dozen more
    games first, from paper sheets, so that the plots have something to show)."""
    for seed in range(12):
        body = {"sheet": f"paper-yams-{seed}", "record": _kept_record(100 + seed, "yams"), "seat": 0}
        assert page.request.post(f"{base}/api/me/kept", data=body).ok
    for _ in range(100):  # the coach grades them in the background: the pictures show every grade
        if all(g["graded"] for g in page.request.get(f"{base}/api/me/games").json()["games"]):
            break
        page.wait_for_timeout(100)
    for where, size in (("phone", PHONE), ("laptop", LAPTOP)):
        page.set_viewport_size(size)
        page.goto(replay)
        page.wait_for_function("() => document.body.dataset.reviewed === '1'")
        page.locator("#mistakes .jump").first.click()
        page.wait_for_function("() => !!document.querySelector('#turn .loss-note')")
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SCREENSHOTS / f"replay-{where}.png"))
        checked = [serious_violations(page)] if where == "phone" else []
        for name, path in (("history", "/me"), ("stats", "/me/stats?v=yams")):
            page.goto(base + path)
            page.screenshot(path=str(SCREENSHOTS / f"{name}-{where}.png"), full_page=where == "laptop")
            if where == "phone":
                checked.append(serious_violations(page))
                assert no_sideways_scroll(page)[0] <= no_sideways_scroll(page)[1], name
        assert checked == [[]] * len(checked)


def _wait_total(page, total: int) -> None:
    """The replay's sheet shows this total (drawn on the tab's click; waited for, not read at once)."""
    page.wait_for_function(
        "t => document.querySelector('#sheet tr.total td')?.textContent.trim() === t", arg=str(total), timeout=5000
    )
