"""The coach: exact advice where the solver has a table, the strong bot's own evaluation elsewhere;
the review of a game grades every decision that had a choice."""

from __future__ import annotations

import json
import random

import pytest

from tests.conftest import play_random
from yambak.bots import choose_action
from yambak.bots.optimal import strategy_for
from yambak.cli import main
from yambak.coach import CoachError, advise, review
from yambak.engine import ManualDice, Roll, Score, new_game, state_to_record
from yambak.rules import load_ruleset
from yambak.solver import advise as solver_advise
from yambak.solver.advisor import position_of


def _mid_turn(rules, players, seed):
    rng = random.Random(seed)
    state = play_random(rules, players, seed=seed, steps=rng.randrange(0, 4 * rules.n_boxes))
    if state.finished:
        return None
    if not state.turn.rolls:
        state, _ = state.apply(Roll(state.current))
    return state


def test_exact_advice_is_the_solvers():
    rules = load_ruleset("yams")
    for seed in range(10):
        state = _mid_turn(rules, 1, seed)
        if state is None:
            continue
        advice = advise(state)
        assert advice.exact and advice.measure == "score"
        table = solver_advise(strategy_for(rules), position_of(state))
        assert [o.keep for o in advice.keeps] == [c.keep for c in table.keeps]
        assert [round(o.value, 9) for o in advice.boxes] == [round(c.value, 9) for c in table.boxes]
        assert advice.best.value == pytest.approx(table.best.value)


@pytest.mark.parametrize("preset", ["yammen", "yamb", "yams-de", "yams-fr", "balut"])
def test_estimates_are_the_strong_bots_own_choice(preset):
    rules = load_ruleset(preset)
    checked = 0
    for seed in range(12):
        state = _mid_turn(rules, 2, seed)
        if state is None:
            continue
        advice = advise(state)
        assert not advice.exact
        measures = {"column_points": "match_points", "category_points": "category_points"}
        assert advice.measure == measures.get(rules.match.kind, "score")
        values = [o.value for o in advice.options]
        assert advice.best.value == max(values) and all(o.loss >= 0 for o in advice.options)
        assert [o.value for o in advice.boxes] == sorted((o.value for o in advice.boxes), reverse=True)
        action = choose_action(state, state.current, "strong", random.Random(0))
        bots = advice.option_for(action)
        if advice.measure != "match_points":  # points, or category points: the bot's own values
            assert bots is advice.best
        else:  # in match points the bot's tie-break plays for points, worth (almost) no match point
            assert bots.loss < 0.1  # measured up to 0.08 where the medium bot's announcements shaped the sheet
        checked += 1
    assert checked >= 6


def test_no_advice_before_rolling_or_with_six_dice():
    with pytest.raises(CoachError):
        advise(new_game(load_ruleset("yams"), ["Ann"]))
    six = new_game(load_ruleset("yams", modifiers=["six_dice"]), ["Ann"])
    six, _ = six.apply(Roll(0))
    with pytest.raises(CoachError):
        advise(six)


def _played(preset, bots, seed):
    state = new_game(load_ruleset(preset), [f"P{i}" for i in range(len(bots))], seed=seed)
    rng = random.Random(seed)
    while not state.finished:
        state, _ = state.apply(choose_action(state, state.current, bots[state.current], rng))
    return state_to_record(state).to_dict()


def test_review_grades_keeps_and_boxes_and_finds_the_mistakes():
    record = _played("yams", ["optimal", "greedy"], 4)
    result = review(record)
    assert result.exact and result.graded_keeps
    assert result.accuracy(0) == pytest.approx(0, abs=1e-9) and result.mistakes(0) == ()
    assert result.accuracy(1) > 0.5
    worst = result.mistakes(1)
    assert len(worst) == 3 and worst[0].loss >= worst[1].loss >= worst[2].loss > 0
    kinds = {d.chosen.kind for d in result.for_player(1)}
    assert kinds == {"keep", "box"}
    assert {d.round for d in result.for_player(1)} == set(range(1, 14))  # the player's own turns, as they count
    assert all(d.round == (d.turn + 1) // 2 for d in result.decisions)  # two seats taking turns
    blind = dict(record, turns=[{k: v for k, v in t.items() if k != "held"} for t in record["turns"]])
    boxes_only = review(blind)
    assert not boxes_only.graded_keeps and {d.chosen.kind for d in boxes_only.decisions} == {"box"}


def test_turns_the_stand_in_played_are_marked_and_not_graded():
    """A record's `stand_in` turns are the bot's, not the player's: the review lists them for the player and
    grades only the rest (issue 34)."""
    record = _played("yams", ["optimal", "greedy"], 4)
    mine = [n for n, t in enumerate(record["turns"], start=1) if t["player"] == 1][:2]  # Bram's first two turns
    marked = dict(record, stand_in=[[1, record["turns"][n - 1]["box"]] for n in mine])
    whole, result = review(record), review(marked)
    assert result.stand_in == tuple((1, n) for n in mine)
    assert {d.turn for d in result.for_player(1)} == {d.turn for d in whole.for_player(1)} - set(mine)
    assert result.for_player(0) == whole.for_player(0)
    out = result.to_dict(2)["players"]
    assert out[1]["stand_in"] == mine and out[0]["stand_in"] == []


def test_review_on_an_estimate_ruleset_and_on_the_command_line(tmp_path, capsys):
    record = _played("yammen", ["strong", "greedy"], 2)
    result = review(record)
    assert not result.exact and result.measure == "match_points"
    assert result.accuracy(0) < 0.01 < result.accuracy(1)  # the estimate is (nearly) the strong bot's own
    # expected match points: what a game's decisions lose stays within what the game is played for
    lost = [sum(d.loss for d in result.for_player(p)) for p in (0, 1)]
    rules = load_ruleset("yammen")
    at_stake = sum(c.points for c in rules.columns) + rules.match.total_points  # 25: 3+2+4+3+3+5, and 5
    assert result.at_stake == at_stake == 25
    assert lost[0] < 2 < lost[1]  # measured 1.2 (157 decisions of the strong bot) and 18.1 (the medium's)
    for p in (0, 1):  # a decision's loss is of this game's expected match points: never more than are at stake
        assert result.costliest(p) == max(d.loss for d in result.for_player(p)) <= at_stake
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main(["review", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["players"][1]["accuracy"] == pytest.approx(result.accuracy(1), abs=1e-4)
    assert out["at_stake"] == 25 and out["players"][1]["costliest"] == pytest.approx(result.costliest(1), abs=1e-4)
    assert main(["review", str(path)]) == 0
    text = capsys.readouterr().out
    assert "estimate" in text and "P1:" in text and "turn " in text
    assert f"costliest {result.costliest(1):.2f} of the 25 at stake" in text and "in all" not in text
    unfinished = dict(record, turns=record["turns"][:7])
    path.write_text(json.dumps(unfinished))
    assert main(["hint", "--record", str(path)]) == 0  # a turn start: nothing to choose yet
    assert "roll the dice" in capsys.readouterr().out
    unfinished["pending"] = [{"player": 1, "rolls": [[2, 2, 5, 6, 6]], "held": []}]
    path.write_text(json.dumps(unfinished))
    assert main(["hint", "--record", str(path)]) == 0  # any ruleset: the coach
    assert "estimate" in capsys.readouterr().out


def _midgame(preset: str, players: int, steps: int, seed: int = 3):
    state = new_game(load_ruleset(preset), [f"P{i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        state, _ = state.apply(choose_action(state, state.current, "strong", rng))
    if not state.turns[state.current].rolls:
        state, _ = state.apply(Roll(state.current))
    return state


@pytest.mark.parametrize(("preset", "steps"), [("yams", 40), ("yams-fr", 150)])
def test_win_chance_of_every_choice_with_opponents(preset, steps):
    state = _midgame(preset, 2, steps)
    advice = advise(state)
    data = advice.to_dict()
    assert data["win_note"].startswith("this turn exactly")
    for option in advice.options:
        assert option.win is not None and 0.0 <= option.win <= 1.0
    assert all("win" in o for o in data["keeps"] + data["boxes"])
    # among boxes that leave the same spread, a higher expected total never wins less often
    boxes = sorted(advice.boxes, key=lambda o: o.value)
    assert boxes[-1].win >= boxes[0].win - 0.05
    for key in ("exact", "measure", "roll", "best", "keeps", "boxes", "announces"):
        assert key in data


def test_no_win_chance_alone_and_the_match_in_column_points():
    assert advise(_midgame("yams", 1, 10)).win_note is None
    assert "win" not in json.dumps(advise(_midgame("yams", 1, 10)).to_dict())
    advice = advise(_midgame("yammen", 2, 30))
    assert advice.measure == "match_points" and all(0 <= o.win <= 1 for o in advice.options)
    assert advice.win_note.startswith("this turn exactly")


@pytest.mark.parametrize("preset", ["yamb", "yammen"])
def test_a_typed_multi_column_position_is_advised_like_the_game_it_comes_from(preset, capsys):
    state = _midgame(preset, 1, 60)
    rules, sheet, turn = state.rules, state.sheets[0], state.turns[0]
    filled = [f"{rules.box_id(b)}={v}" for b, v in enumerate(sheet.written) if v is not None]
    assert len(filled) > 5
    held = [str(turn.dice[i]) for i in sorted(turn.held)]
    args = ["hint", "--rules", preset, "--dice", *map(str, turn.dice), "--roll", str(len(turn.rolls)), "--json"]
    args += ["--filled", ",".join(filled)] + (["--held", *held] if held else [])
    assert main(args) == 0
    typed = json.loads(capsys.readouterr().out)
    played = advise(state).to_dict()
    assert typed["best"] == played["best"] and typed["exact"] is False
    assert [c["value"] for c in typed["boxes"]] == pytest.approx([c["value"] for c in played["boxes"]])


@pytest.mark.parametrize(
    ("preset", "players", "steps"), [("yams", 1, 5), ("yams-fr", 2, 31), ("yammen", 2, 8), ("balut", 1, 10)]
)
def test_every_option_is_the_engines_action_and_the_engine_takes_it(preset, players, steps):
    from yambak.server.tables.schema import CoachAdvice

    state = _midgame(preset, players, steps)
    advice = advise(state)
    assert len(advice.options) > 3
    CoachAdvice.model_validate(advice.to_dict())  # what the table's `advice` message declares
    for option in advice.options:
        after, event = state.apply(option.action)  # legal as it stands
        assert advice.option_for(option.action) is option
        data = option.to_dict()
        if option.kind == "keep":
            assert event.type == "rolled" and data["action"] == {"type": "roll", "held": list(option.action.held)}
            assert tuple(sorted(state.turn.dice[i] for i in option.action.held)) == option.keep
        elif option.kind == "box":
            assert event.type == "scored" and event.box == option.box and event.strike == option.strike
            assert event.written == option.points
        else:
            assert event.type == "announced" and data["action"] == {"type": "announce", "box": option.box}


def test_announcements_are_options_valued_like_the_rest():
    rules = load_ruleset("yammen")
    state = new_game(rules, ["Ann"], dice=ManualDice())
    state, _ = state.apply(Roll(0, dice=(1, 5, 5, 6, 6)))
    advice = advise(state)
    announces = {o.box: o for o in advice.announces}
    assert set(announces) == set(state.announceable(0))
    # the strong bot's evaluation: call the plus of the announce column, roll the 1 again
    assert advice.best.kind == "announce" and advice.best.box == "annonce.plus" and advice.best.loss == 0
    assert advice.to_dict()["best"]["action"] == {"type": "announce", "box": "annonce.plus"}
    assert advice.best.value > max(o.value for o in advice.keeps + advice.boxes)


@pytest.mark.parametrize("columns", [1, 4])
def test_a_struck_yam_is_graded_as_the_fifty_points_it_threw_away(columns):
    rules = load_ruleset("yams-fr", {"columns": columns})
    yam = "free.yam"
    state = new_game(rules, ["Ann"], dice=ManualDice())
    state, _ = state.apply(Roll(0, dice=(6, 6, 6, 6, 6)))
    advice = advise(state)
    struck = advice.option_for(Score(0, yam, strike=True))
    written = advice.option_for(Score(0, yam))
    assert struck.strike and struck.points == 0 and written.points == 50 and not written.strike
    assert written.value - struck.value > 40
    record = state_to_record(state.apply(Score(0, yam, strike=True))[0]).to_dict()
    graded = review(record).for_player(0)
    assert len(graded) == 1 and graded[0].chosen.strike and graded[0].chosen.box == yam
    assert graded[0].loss > 40 and graded[0].best.box != yam or not graded[0].best.strike


def test_a_served_generala_is_advised_as_a_win_not_as_points(capsys):
    """docs/rules.md §7: the entry that wins at once is marked (the engine's word: playing it ends the game
    won) and the hint says "wins outright", never the solver's 50 + win_points as an expected score."""
    rules = load_ruleset("generala")
    state = new_game(rules, ["Ann"], dice=ManualDice())  # alone: no win chances to simulate
    state, _ = state.apply(Roll(0, dice=(5, 5, 5, 5, 5)))
    advice = advise(state, 0)
    assert advice.best is not None and advice.best.wins and advice.best.box == "free.yam"
    assert [o.box for o in advice.boxes if o.wins] == ["free.yam"]  # a generala in fives is 25, no win
    assert advice.best.to_dict()["wins"] is True and "wins" not in advice.boxes[1].to_dict()
    later, _ = state.apply(Roll(0, dice=(5, 5, 5, 5, 5)))  # roll 2: no longer served
    assert not any(o.wins for o in advise(later, 0).boxes)
    assert main(["hint", "--rules", "generala", "--dice", "5", "5", "5", "5", "5", "--roll", "1"]) == 0
    text = capsys.readouterr().out
    first = text.splitlines()[0]
    assert "wins outright" in first and "expected final score" not in first and "450" not in first
    assert "wins  score yam (50, wins outright)" in text and f"as {rules.win_points} points" in text
    assert main(["hint", "--rules", "generala", "--dice", "5", "5", "5", "5", "5", "--roll", "2"]) == 0
    assert "expected final score" in capsys.readouterr().out.splitlines()[0]  # roll 2: 50 points, no win


def test_the_review_says_the_game_was_won_outright(tmp_path, capsys):
    """`yambak review` of a game won at once says who won it, on which turn and in which box, and that
    its losses count such a win as the ruleset's win_points (Bo wrote his served generala in twos)."""
    state = new_game(load_ruleset("generala"), ["Ann", "Bo"], dice=ManualDice())
    for seat, dice, box in ((0, (1, 2, 3, 4, 6), "ones"), (1, (2, 2, 2, 2, 2), "twos"), (0, (6,) * 5, "yam")):
        state, _ = state.apply(Roll(seat, dice=dice))
        state, _ = state.apply(Score(seat, box))
    path = tmp_path / "game.json"
    path.write_text(json.dumps(state_to_record(state).to_dict()))
    assert main(["review", str(path)]) == 0
    text = capsys.readouterr().out
    assert "won outright: Ann, turn 2, free.yam" in text and "the losses count an outright win as 400" in text
    assert "best score free.yam (50, wins outright)" in text  # Bo's served generala, written in twos


def test_a_review_names_the_points_an_outright_win_counts_as():
    """The review's values count an outright win as win_points, a figure on no sheet: its dict says so (the
    faces print it beside the losses) and marks the missed win, so a face words it as a win, not as points."""
    state = new_game(load_ruleset("generala"), ["Ann", "Bo"], dice=ManualDice())
    for seat, dice, box in ((0, (1, 2, 3, 4, 6), "ones"), (1, (2, 2, 2, 2, 2), "twos"), (0, (6,) * 5, "yam")):
        state, _ = state.apply(Roll(seat, dice=dice))
        state, _ = state.apply(Score(seat, box))
    data = review(state_to_record(state)).to_dict(2)
    assert data["win_points"] == 400
    (bo,) = [d for d in data["players"][1]["decisions"] if d["best"].get("wins")]
    assert not bo["chosen"].get("wins") and bo["best"]["value"] >= 400  # a served generala given up for twos
    assert bo["loss"] == pytest.approx(bo["best"]["value"] - bo["chosen"]["value"], abs=1e-3)
    plain = new_game(load_ruleset("yams"), ["Ann"], dice=ManualDice())
    plain, _ = plain.apply(Roll(0, dice=(6,) * 5))
    plain, _ = plain.apply(Score(0, "yam"))
    assert "win_points" not in review(state_to_record(plain)).to_dict(1)


# --- Balut: the coach in category points -------------------------------------------------------

FOURS_OR_FULL = [("c1.fours", 16), ("c2.fours", 12), ("c3.fours", 12)]
FOURS_OR_FULL += [("c1.full_house", 0), ("c2.full_house", 20), ("c3.full_house", 20)]
FOURS_OR_FULL_ARGS = ["--filled", ",".join(f"{b}={v}" for b, v in FOURS_OR_FULL)]


def _balut(fills, rolls, players=1):
    """A Balut game whose seats write, in turn, `fills` (box id, value), then seat 0's rolls of `rolls`."""
    from yambak.engine import entry_turn, play_turn

    state = new_game(load_ruleset("balut"), [f"P{i}" for i in range(players)], dice=ManualDice())
    for box, value in fills:
        state = play_turn(state, entry_turn(state, box, value))
    for dice in rolls:
        state, _ = state.apply(Roll(state.current, dice=dice))
    return state


def _category_values(state, terms=None):
    """Every box's value as the hard bot counts it, from `category_terms` alone (`terms`: its answer for
    this sheet, which the dice do not change): the expected category points now plus the box's gain for
    what the dice write there."""
    from yambak.bots.category import category_terms
    from yambak.bots.models import model_for

    rules, p = state.rules, state.current
    gain, _, now = terms or category_terms(state, p, model_for(rules))
    return {box: now + float(gain(rules.parse_box(box))[w]) for box, w in state.preview(p).items()}


def _cached(terms):
    """`category_terms`' answer with each box's gains computed once (the enumeration below asks often)."""
    import functools

    gain, key, now = terms
    return functools.cache(gain), key, now


def test_balut_boxes_are_valued_in_category_points_as_the_hard_bot_values_them():
    """Solo, and at a two-seat table (where a row's rank counts the other seat), each box's value is the
    category-points change `category_terms` gives for it, and the best box is the one it values most."""
    solo = _balut(FOURS_OR_FULL[:4], [(2, 3, 3, 5, 6), (3, 3, 3, 5, 6)])
    duo = _balut([("c1.fives", 15), ("c1.fives", 20), ("c1.sixes", 18), ("c1.sixes", 24)], [(5, 5, 6, 6, 6)], 2)
    for state in (solo, _midgame("balut", 1, 40), duo, _midgame("balut", 2, 60)):
        advice = advise(state, wins=False)
        assert advice.measure == "category_points" and not advice.exact
        expected = _category_values(state)
        assert {o.box: o.value for o in advice.boxes if not o.strike} == pytest.approx(expected, abs=1e-9)
        assert advice.boxes[0].box == max(expected, key=expected.get)


def test_balut_at_a_table_gives_no_win_chances_where_yammen_does():
    """The win chances draw final totals, and a total does not decide Balut: at a two-seat Balut table the
    advice has none (rather than another game's), while a two-seat yammen table's has them."""
    duo = _balut([("c1.fives", 15), ("c1.fives", 20)], [(5, 5, 6, 6, 6)], 2)
    advice = advise(duo, wins=True)
    assert advice.options and all(o.win is None and o.tie is None for o in advice.options)
    yammen = _midgame("yammen", 2, 10)
    assert any(o.win is not None for o in advise(yammen, wins=True).options)


def test_balut_keeps_are_the_expected_best_box_over_the_last_roll_by_enumeration():
    """After the second roll a keep is worth the mean, over every way the other dice fall, of the best
    box's value after the third: enumerated here over the 252 final hands, each valued by `category_terms`."""
    import itertools
    import math
    from collections import Counter

    from yambak.bots.category import category_terms
    from yambak.bots.models import model_for

    state = _balut(FOURS_OR_FULL[:4], [(1, 3, 4, 4, 6), (2, 4, 4, 4, 6)])
    terms = _cached(category_terms(state, 0, model_for(state.rules)))
    best_after: dict[tuple[int, ...], float] = {}
    for hand in itertools.combinations_with_replacement(range(1, 7), 5):
        last, _ = state.apply(Roll(0, dice=hand))
        best_after[hand] = max(_category_values(last, terms).values())

    def worth(keep):
        n = 5 - len(keep)
        total = 0.0
        for rest in itertools.combinations_with_replacement(range(1, 7), n):
            ways = math.factorial(n) / math.prod(math.factorial(c) for c in Counter(rest).values())
            total += ways / 6**n * best_after[tuple(sorted(keep + rest))]
        return total

    advice = advise(state, wins=False)
    assert len(advice.keeps) == 15  # every keep of 2 4 4 4 6 (2 * 4 * 2 ways) but the whole hand
    for option in advice.keeps:
        assert option.value == pytest.approx(worth(option.keep), abs=1e-9), option.keep
    top = max(max(worth(o.keep) for o in advice.keeps), max(_category_values(state, terms).values()))
    assert advice.best.value == pytest.approx(top, abs=1e-9)


def test_balut_advice_takes_the_category_where_pips_take_the_full_house(capsys):
    """Fours at 40 with one fours box open, the full houses spoiled by a 0, 4 4 4 6 6 after the last roll:
    the 24 pips of a full house are worth more points of total, the 12 in fours make the 52 of the fours'
    table. The coach names the fours, in expected category points, on the command line too."""
    from yambak.bots.models import model_for

    state = _balut(FOURS_OR_FULL, [(4, 4, 4, 6, 6)] * 3)
    rules, sheet, model = state.rules, state.sheets[0], model_for(state.rules)
    pips = {b: float(model.box_gain(sheet, rules.parse_box(b))[w]) for b, w in state.preview(0).items()}
    assert max(pips, key=pips.get) == "c4.full_house"  # in pips the full house
    advice = advise(state)
    assert advice.best.box == "c4.fours" and advice.measure == "category_points"
    assert next(o for o in advice.boxes if o.box == "c4.full_house").loss > 0.1
    first = advise(_balut(FOURS_OR_FULL, [(4, 4, 4, 6, 6)]))
    assert first.best.kind == "keep" and first.best.keep == (4, 4, 4)
    args = ["hint", "--rules", "balut", "--dice", "4", "4", "4", "6", "6", "--roll", "3", *FOURS_OR_FULL_ARGS]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "estimate (the strong bot's evaluation), in expected category points" in text
    assert "best: score c4.fours (12)" in text


def test_a_balut_review_and_grade_run_in_category_points(tmp_path, capsys):
    """The review grades a Balut game in the coach's measure: the hard bot's own choices lose nothing, the
    medium bot's lose; the server's grade (a seat's turns as a solo game) stores that unit."""
    from yambak.server.profiles.results import grade

    record = _played("balut", ["strong", "greedy"], 5)
    result = review(record)
    assert result.measure == "category_points" and not result.exact and result.at_stake is None
    assert result.accuracy(0) < 1e-9 < 0.01 < result.accuracy(1)
    graded = grade(record, 1)
    assert graded.rows and {r.unit for r in graded.rows} == {"category_points"}
    assert graded.accuracy == pytest.approx(result.accuracy(1), abs=1e-9)  # no row ranks seats: alone alike
    path = tmp_path / "balut.json"
    path.write_text(json.dumps(dict(record, turns=record["turns"][:6])))  # a few turns say the unit
    assert main(["review", str(path)]) == 0
    said = capsys.readouterr().out
    assert "review: estimate (the strong bot's evaluation), losses in expected category points" in said
