"""The coach in Chromium: an announcement shown and starred as the best advice on a yammen table, and
the review of a struck yam graded as the points it threw away."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from yambak.bots import choose_action
from yambak.engine import ManualDice, Roll, Score, new_game, state_to_record
from yambak.rules import load_ruleset

from ..server.helpers import server_process
from .conftest import SCREENSHOTS
from .table_helpers import LAPTOP, PHONE, ready, version, wait_past


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    """The app as the other browser tests run it, with room for a socket that plays sixty turns at once."""
    db = tmp_path_factory.mktemp("coach") / "web.db"
    with server_process(f"sqlite:///{db}", env={"YAMBAK_RATE": "1000", "YAMBAK_RATE_BURST": "2000"}) as base:
        yield base


def _next_move(turn: dict[str, Any], keep_open: str) -> dict[str, Any] | None:
    """What the filler below sends for seat 0's turn (as the page's view shows it): the first box
    offered but `keep_open`, an announcement where only announce boxes are left, else a roll; None at
    a dead end, where only `keep_open` could be filled (yammen's last-resort rule refuses a plus/min
    entry that zeroes the pair while another box, here `keep_open`, can take the dice)."""
    offered = [b for b, o in (turn.get("boxes") or {}).items() if o.get("legal") and b != keep_open]
    to_announce = [b for b in turn.get("announce") or [] if b != keep_open]
    if turn.get("dice") and offered:
        return {"type": "score", "box": offered[0]}
    if turn.get("must_announce") and to_announce:  # only announce boxes left: no roll before one
        return {"type": "announce", "box": to_announce[0]}
    if turn.get("can_roll", True):
        return {"type": "roll"}
    return None


def _fill_through_the_socket(base: str, table: str, token: str, keep_open: str) -> bool:
    """Play seat 0's turns over the table's own socket, as a second device of the same player would,
    until only `keep_open` is left (True), or a dead end (False)."""
    from websockets.sync.client import connect

    with connect(base.replace("http", "ws", 1) + f"/ws/{table}", origin=base) as ws:
        ws.send(json.dumps({"type": "hello", "tokens": [token]}))
        while True:
            msg = json.loads(ws.recv())
            if msg["type"] == "error":
                raise AssertionError(msg)
            if msg["type"] not in ("state", "event"):
                continue
            me = msg["view"]["players"][0]
            turn = me.get("turn") or {}
            open_boxes = [f"{c}.{r}" for c, col in me["columns"].items() for r, b in col["boxes"].items()
                          if b.get("score") is None]  # fmt: skip
            if open_boxes == [keep_open] and not turn.get("dice"):
                return True
            move = _next_move(turn, keep_open)
            if move is None:
                return False
            ws.send(json.dumps({**move, "seat": 0, "v": msg["v"]}))


def test_the_filler_stops_only_at_a_real_dead_end():
    """The set-up below takes a fresh table at a dead end; these seeded games of the same moves (seeds
    that reach one, found over seeds 0 to 299) show the engine refusing every way on there."""
    from yambak.engine import Announce
    from yambak.gameview import turn_view

    rules, keep = load_ruleset("yammen"), "annonce.yam"
    for seed in (20, 32, 73):
        state = new_game(rules, ["Ann"], seed=seed)
        while (move := _next_move(turn_view(state, 0), keep)) is not None:
            kind = {"score": Score, "announce": Announce}.get(move["type"])
            state = state.apply(kind(0, move["box"]) if kind else Roll(0))[0]
        outlook = state.outlook(0)
        assert not outlook.can_roll and outlook.roll_code == "illegal/dead-end"
        assert [b.box for b in outlook.boxes if b.legal] == [keep]  # only the box to keep open takes these dice
        assert sum(b.open for b in outlook.boxes) == 2


def test_an_announcement_is_shown_and_starred_as_the_best_advice(base_url, new_page):
    page = new_page(viewport=LAPTOP)
    body = {"name": "Coach", "preset": "yammen", "seats": [{"kind": "human", "name": "Ann"}], "listed": False}
    # every box but the announce column's yam filled: this last turn's yam has to be announced; the
    # server's dice reach a dead end on about one table in 25 (see above): then a fresh table
    for _ in range(6):
        made = page.request.post(base_url + "/api/tables", data=body).json()
        if _fill_through_the_socket(base_url, made["id"], made["tokens"]["0"], "annonce.yam"):
            break
    else:
        raise AssertionError("six tables in a row reached a dead end")
    page.goto(base_url + made["url"])
    ready(page)
    page.wait_for_function("() => document.querySelectorAll('#sheet button.cell.legal').length === 0")
    v = version(page)
    page.click("#roll")
    wait_past(page, v)
    page.click("#hint-toggle")
    best = page.locator("#coach .announces .choice.best")
    best.wait_for()
    assert best.get_attribute("data-announce") == "annonce.yam"
    assert "Yam" in best.inner_text() and "best" in best.inner_text()
    assert "Announce Yam" in best.inner_text() and "Announce Announce" not in best.inner_text()  # by its row
    assert "Announcing is better than any box now." in page.locator("#coach").inner_text()
    flag = page.locator("#sheet button.cell.announce[data-box='annonce.yam']")
    assert "best" in flag.get_attribute("class")  # the star on the box to announce, none on a box to fill
    assert page.locator("#sheet button.cell.legal.best").count() == 0
    page.screenshot(path=str(SCREENSHOTS / "coach-announce-laptop.png"))
    page.set_viewport_size(PHONE)
    page.locator("#coach").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "coach-announce-phone.png"))
    v = version(page)
    best.click()  # a tap announces, as the flag on the sheet does
    wait_past(page, v)
    record = page.request.get(f"{base_url}/api/tables/{made['id']}/record").json()
    assert record["pending"][0]["announce"] == "annonce.yam"


def _struck_yam_record() -> dict[str, Any]:
    """A finished one-column yams-fr sheet whose first turn struck the yam box with five sixes showing,
    the others played by the strong bot."""
    state = new_game(load_ruleset("yams-fr", {"columns": 1}), ["Ann"], dice=ManualDice())
    state = state.apply(Roll(0, dice=(6, 6, 6, 6, 6)))[0]
    state = state.apply(Score(0, "free.yam", strike=True))[0]
    rng = random.Random(3)
    while not state.finished:
        if not state.turns[0].rolls:
            state = state.apply(Roll(0, dice=tuple(rng.randint(1, 6) for _ in range(5))))[0]
            continue
        action = choose_action(state, 0, "strong", rng)
        if isinstance(action, Roll):
            dice, held = state.turns[0].dice, set(action.held or ())
            action = Roll(
                0, held=action.held, dice=tuple(d if i in held else rng.randint(1, 6) for i, d in enumerate(dice))
            )
        state = state.apply(action)[0]
    return state_to_record(state).to_dict()


def test_the_review_grades_a_struck_yam(base_url, new_page):
    page = new_page(viewport=PHONE, touch=True)
    assert page.request.post(base_url + "/api/me", data={"name": "Ann"}).ok
    r = page.request.post(
        f"{base_url}/api/me/kept", data={"sheet": "paper-yam", "record": _struck_yam_record(), "seat": 0}
    )
    assert r.ok, r.text()
    page.goto(f"{base_url}/replay/{r.json()['id']}")
    page.wait_for_function("() => document.body.dataset.reviewed === '1'", timeout=120000)  # the coach's own process
    worst = page.locator("#mistakes li").first
    text = worst.inner_text()
    assert "strike Yam" in text and "Yam for 50" in text, text  # played, and the best
    loss = float(worst.locator(".loss").inner_text().split()[0].replace("−", ""))
    assert loss > 40  # the fifty points, less what the yam box was still worth
    review = page.request.get(page.url.replace("/replay/", "/api/results/") + "/review").json()
    first = review["players"][0]["mistakes"][0]
    assert first["chosen"]["action"] == {"type": "score", "box": "free.yam", "strike": True}
    assert first["turn"] == 1 and first["loss"] == review["players"][0]["decisions"][0]["loss"]
    assert page.locator("#sheet .cell.mistake[data-box='free.yam']").count() == 1
    page.screenshot(path=str(SCREENSHOTS / "review-struck-yam-phone.png"))


NUMBERS = [(73.25, 1), (73.333, 1), (1234.5, 1), (1.005, 2), (0.25, 2), (-3.45, 1), (12345678.9, 0), (2.5, 0)]
PERCENTS = [(0.625, 0), (0.0934, 1), (1.0, 0), (0.005, 0)]


def test_numbers_read_the_same_from_the_server_and_in_the_browser(base_url, new_page):
    from yambak.web.i18n import number, percent

    page = new_page()
    for lang in ("nl", "fr", "hr", "de", "en"):
        page.goto(f"{base_url}/rules/yams?lang={lang}")
        assert page.evaluate("document.documentElement.lang") == lang
        shown = page.evaluate(
            """async ([numbers, percents]) => { const m = await import("/static/page.js");
                 return [numbers.map(([x, d]) => m.num(x, d)), percents.map(([x, d]) => m.pct(x, d))]; }""",
            [NUMBERS, PERCENTS],
        )
        assert shown == [[number(x, lang, d) for x, d in NUMBERS], [percent(x, lang, d) for x, d in PERCENTS]], lang
        assert (shown[0][0] == "73,3") == (lang != "en")  # a decimal comma, never the English point


def test_balut_hints_name_expected_category_points(base_url, new_page):
    """Balut is decided by category points: the table's coach says its figures are those, in the page's
    language (Dutch here)."""
    page = new_page(viewport=PHONE)
    body = {"name": "Coach", "preset": "balut", "seats": [{"kind": "human", "name": "Ann"}], "listed": False}
    made = page.request.post(base_url + "/api/tables", data=body).json()
    page.goto(base_url + made["url"] + "?lang=nl")
    ready(page)
    v = version(page)
    page.click("#roll")
    wait_past(page, v)
    page.click("#hint-toggle")
    page.locator("#coach .expect").wait_for()
    text = page.locator("#coach").inner_text()
    assert "Verwachte categoriepunten:" in text and "Schatting" in text, text
    page.screenshot(path=str(SCREENSHOTS / "coach-balut-phone.png"))
    page.set_viewport_size(LAPTOP)
    page.screenshot(path=str(SCREENSHOTS / "coach-balut-laptop.png"))
