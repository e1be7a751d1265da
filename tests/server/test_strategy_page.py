"""The strategy-and-odds page and its calculator route: every preset answers; the page's numbers are the
brain's (`StrategyData` from the shipped file, `odds`, `calculator`), read back from the HTML's
`data-value` attributes; bad calculator input is refused with a code; rulesets without shipped figures
say so and show no such figure; a table's own rules have their page."""

from __future__ import annotations

import re
import time
from html import unescape
from pathlib import Path

import pytest

from yambak.rules import load_ruleset, preset_ids
from yambak.store import KindLoss, Losses
from yambak.strategy import calculator, fingerprint, odds, shipped, stored
from yambak.web.i18n import translations
from yambak.web.opening_words import rule_texts

from .helpers import create

TOL = 1e-4


def _section(html: str, ident: str) -> str:
    """The HTML of the element with this id, up to the end of its card or table."""
    start = html.index(f'id="{ident}"')
    end = min(i for i in (html.find("</section>", start), html.find("</table>", start)) if i > 0)
    return html[start:end]


def _values(html: str, attr: str = "") -> list[float]:
    """Every data-value in order (`attr`: only on elements that also carry that attribute first)."""
    pattern = (rf'{attr}="[^"]*" ' if attr else "") + r'data-value="([^"]+)"'
    return [float(v) for v in re.findall(pattern, html)]


def test_every_preset_answers_and_its_odds_are_the_brains(client) -> None:
    for preset in preset_ids():
        r = client.get(f"/strategy/{preset}")
        assert r.status_code == 200, preset
        table = _section(r.text, "odds-table")
        want = [v for b in odds(load_ruleset(preset)) for v in b.chances]
        got = _values(table)
        assert len(got) == len(want), preset
        assert all(abs(a - b) < TOL for a, b in zip(got, want, strict=True)), preset
        assert 'href="/train"' in r.text and f'href="/rules/{preset}"' in r.text


def test_an_unknown_preset_is_the_missing_page(client) -> None:
    r = client.get("/strategy/no-such-game")
    assert r.status_code == 404 and "<html" in r.text
    assert client.get("/api/strategy/no-such-game/odds?rolls=3").json()["code"] == "preset/unknown"


@pytest.mark.parametrize("preset", ["yams", "generala"])
def test_the_pages_figures_are_the_shipped_datas(client, preset) -> None:
    data = shipped(load_ruleset(preset))
    assert data is not None
    html = unescape(client.get(f"/strategy/{preset}").text)
    assert abs(float(re.search(r'id="expected" data-value="([^"]+)"', html)[1]) - data.expected_score) < TOL
    assert data.scores is not None
    median = float(re.search(r'<dd class="num" data-value="([^"]+)">', html[html.index("Median") :])[1])
    assert abs(median - data.scores.percentiles["50"]) < TOL
    shown = dict(zip(re.findall(r'data-percentile="(\d+)"', html), _values(html, "data-percentile"), strict=True))
    assert shown.keys() == data.scores.percentiles.keys()
    assert all(abs(shown[k] - v) < TOL for k, v in data.scores.percentiles.items())
    bonus = _values(html, "data-bonus")
    assert len(bonus) == len(data.bonus_chance)
    assert all(abs(a - b) < TOL for a, b in zip(bonus, data.bonus_chance.values(), strict=True))
    boxes = _values(_section(html, "box-stats"))
    assert len(boxes) == 2 * len(data.boxes)
    for i, b in enumerate(data.boxes):
        assert abs(boxes[2 * i] - b.mean) < TOL and abs(boxes[2 * i + 1] - b.zero) < TOL
    par = _values(html, "data-k")
    assert len(par) == len(data.par) and all(abs(a - p.worth) < TOL for a, p in zip(par, data.par, strict=True))
    openings = _section(html, "openings-table")
    rolls = re.findall(r'data-roll="(\d+)"', openings)
    assert rolls == ["".join(map(str, o.roll)) for o in data.openings]
    assert len(set(rolls)) == 252
    losses = _values(openings)
    assert all(abs(a - o.loss) < TOL for a, o in zip(losses, data.openings, strict=True))
    # the derived rules: each with its own count of the rolls it decides
    derived = re.findall(r'data-correct="(\d+)" data-rolls="(\d+)"', html)
    assert derived == [(str(r.correct), str(r.rolls)) for r in data.rules]
    assert 'id="not-computed"' not in html


def test_numbers_are_written_the_languages_way(client) -> None:
    data = shipped(load_ruleset("yams"))
    assert data is not None
    nl = client.get("/strategy/yams?lang=nl").text
    assert f'data-value="{data.expected_score}">{f"{data.expected_score:.2f}".replace(".", ",")}<' in nl
    assert re.search(r'data-value="0\.0460[0-9]+">4,60\s?%<', nl)  # the Yahtzee in three rolls


def test_a_ruleset_without_figures_has_them_computed_in_the_background_then_shown(client) -> None:
    """A table's own rules (yamb with the four matching dice scored) have no shipped figures: its page says
    they are being computed, with a progress the page polls; once the server's background job is done (two
    games under test: YAMBAK_STRATEGY_GAMES), the page shows the figures it kept, and the route says ready."""
    rules = load_ruleset("yamb", {"four_kind": "four"})
    assert shipped(rules) is None and shipped(load_ruleset("yamb")) is not None
    made = create(client, "yamb", options={"four_kind": "four"})
    page = f"/t/{made['id']}/strategy"
    html = client.get(page).text
    folder = Path(client.app.state.settings.strategy_dir)
    if 'id="expected"' not in html:  # not computed by an earlier test of this run
        assert 'id="not-computed"' in html and 'id="odds-table"' in html and 'id="figures-progress"' in html
        assert 'id="openings-table"' not in html and "data-k=" not in html
        key = re.search(r'data-key="([0-9a-f]+)"', html).group(1)
        assert key == fingerprint(rules)
        deadline = time.monotonic() + 60
        while (state := client.get(f"/api/strategy/figures/{key}").json())["state"] != "ready":
            assert state["state"] in ("queued", "running") and state["text"], state
            assert time.monotonic() < deadline, state
            time.sleep(0.2)
        html = client.get(page).text
    data = stored(rules, folder)
    assert data is not None and data.games == 2 and not data.exact
    assert 'id="not-computed"' not in html and 'id="figures-progress"' not in html
    assert abs(_values(_section(html, "expected"))[0] - data.expected_score) < TOL
    assert client.get("/api/strategy/figures/0123456789abcdef").json()["code"] == "strategy/unknown"


def test_the_progress_is_said_in_words() -> None:
    from yambak.server.routes.strategy import progress_text
    from yambak.server.strategy import Progress
    from yambak.server.strategy.jobs import pause_after

    said = progress_text(Progress("running", 1500, 2000, seconds_left=170), "en")
    assert said == "1,500 of 2,000 games played. About 3 minutes left."
    assert progress_text(Progress("running", 1500, 2000, seconds_left=170), "fr").startswith("1\u202f500")
    assert progress_text(Progress("queued", ahead=2), "en") == "Waiting: 2 rulesets before this one."
    assert progress_text(Progress("running"), "en") == "Starting…"
    # the background work keeps to its share of a core: a quarter waits three times what it worked
    assert [pause_after(2.0, 0.25), pause_after(2.0, 1.0), pause_after(-1.0, 0.5)] == [6.0, 0.0, 0.0]


def test_the_calculator_is_the_brains_and_refuses_bad_input_with_a_code(client) -> None:
    rules = load_ruleset("yams")
    for kept, rolls in (("66", 2), ("", 3), ("1234", 1), ("", 1)):
        got = client.get(f"/api/strategy/yams/odds?kept={kept}&rolls={rolls}").json()
        want = calculator(rules, tuple(int(c) for c in kept), rolls)
        assert got["kept"] == sorted(int(c) for c in kept) and got["rolls"] == rolls
        merged = {**got["chances"], **got["expected_sums"]}
        assert merged.keys() == want.keys() and all(abs(merged[k] - want[k]) < 1e-12 for k in want)
        assert set(got["expected_sums"]) == {"chance"}
    # the Yahtzee in three rolls, from a fresh turn: 2,783,176 / 60,466,176
    assert abs(client.get("/api/strategy/yams/odds?rolls=3").json()["chances"]["yam"] - 2783176 / 60466176) < 1e-12
    bad = {
        "kept=7&rolls=2": "strategy/kept",
        "kept=66666&rolls=1": "strategy/kept",
        "kept=6a&rolls=1": "strategy/kept",
        "kept=66&rolls=3": "strategy/rolls",
        "rolls=0": "strategy/rolls",
        "rolls=4": "strategy/rolls",
        "rolls=two": "strategy/rolls",
        "rolls=%D9%A3": "strategy/rolls",  # an Arabic-Indic three: digits are ASCII
        "rolls=99999999999999999999": "strategy/rolls",
        "kept=66": "strategy/rolls",
    }
    for query, code in bad.items():
        r = client.get(f"/api/strategy/yams/odds?{query}")
        assert r.status_code == 400 and r.json()["code"] == code, query
    r = client.get("/api/strategy/yams/odds?kept=7&rolls=2", headers={"accept-language": "nl"})
    assert r.json()["message"] != r.json()["detail"]  # said in the reader's language
    # six dice rolled: five kept is allowed, six is not
    assert client.get("/api/strategy/maxi-yatzy/odds?kept=66666&rolls=1").status_code == 200
    assert client.get("/api/strategy/maxi-yatzy/odds?kept=666666&rolls=1").json()["code"] == "strategy/kept"


def test_a_tables_own_rules_have_their_page_and_calculator(client) -> None:
    made = create(client, "yams")
    html = client.get(f"/t/{made['id']}/strategy").text
    assert f'href="/t/{made["id"]}/rules"' in html and "/api/tables/" in html
    got = client.get(f"/api/tables/{made['id']}/odds?kept=55&rolls=1").json()
    want = calculator(load_ruleset("yams"), (5, 5), 1)
    assert abs(got["chances"]["fives"] - want["fives"]) < 1e-12
    assert client.get("/t/nosuchtable/strategy").status_code == 404
    house = create(client, "yammen")
    html = client.get(f"/t/{house['id']}/strategy").text
    assert 'id="odds-table"' in html
    assert ('id="not-computed"' in html) != ('id="expected"' in html)  # computing, or computed before


def test_where_players_lose_points_waits_for_enough_games_then_shows_the_aggregate(client, monkeypatch) -> None:
    html = client.get("/strategy/yams").text
    assert "0 so far" in _section(html, "losses") and "100" in _section(html, "losses")
    keep = KindLoss("keep", None, 900, 300, 0.8125, 731.25, 0.75)
    box = KindLoss("box", None, 650, 100, 0.375, 243.75, 0.25)
    store = type(client.app.state.store)
    aggregate = Losses("yams", 120, True, kinds=((keep, ()), (box, ())))
    monkeypatch.setattr(store, "decision_losses", lambda *_: aggregate)
    section = _section(client.get("/strategy/yams").text, "losses")
    assert re.findall(r'data-kind="(\w+)"', section) == ["keep", "box"]
    assert _values(section) == [0.8125, 0.75, 0.375, 0.25]


def test_every_shipped_opening_rule_is_said_in_every_language() -> None:
    """The derived rules read back from their grammar: none left in English on a translated page."""
    for preset in ("yams", "yatzy", "kniffel", "yacht", "generala", "kismet"):
        data = shipped(load_ruleset(preset))
        assert data is not None
        rows = {r.id: r.id for r in load_ruleset(preset).rows}
        for lang in ("en", "nl", "fr", "de", "sv", "hr", "es", "it"):
            _ = translations(lang).gettext
            for r in data.rules:
                said = rule_texts(r.pattern, r.choice, rows, _)
                assert said is not None, (preset, r)
                if lang == "en":  # the same words, faces as digits
                    assert said == (re.sub(r"([1-6])s\b", r"\1", r.pattern), r.choice), (preset, r)


def test_the_lobby_the_how_to_pages_and_the_review_link_to_it(client) -> None:
    lobby = client.get("/").text
    assert all(f'href="/strategy/{p}"' in lobby for p in ("yams", "yatzy"))
    assert 'href="/strategy/yams"' in client.get("/rules/yams").text
    made = create(client, "yams")
    assert f'href="/t/{made["id"]}/strategy"' in client.get(f"/t/{made['id']}/rules").text
    table_js = (Path(__file__).resolve().parents[2] / "src/yambak/web/static/table.js").read_text(encoding="utf-8")
    assert "/t/${boot.table}/strategy" in table_js  # the results' actions
