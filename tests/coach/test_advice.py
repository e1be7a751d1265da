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
from yambak.engine import Announce, Roll, Score, new_game, state_to_record
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


@pytest.mark.parametrize("preset", ["yammen", "yamb", "yams-de", "yams-fr"])
def test_estimates_are_the_strong_bots_own_choice(preset):
    rules = load_ruleset(preset)
    checked = 0
    for seed in range(12):
        state = _mid_turn(rules, 2, seed)
        if state is None:
            continue
        advice = advise(state)
        assert not advice.exact
        assert advice.measure == ("match_points" if rules.match.kind == "column_points" else "score")
        values = [o.value for o in advice.options]
        assert advice.best.value == max(values) and all(o.loss >= 0 for o in advice.options)
        assert [o.value for o in advice.boxes] == sorted((o.value for o in advice.boxes), reverse=True)
        action = choose_action(state, state.current, "strong", random.Random(0))
        best = advice.best
        if isinstance(action, Score):
            assert best.kind == "box" and best.box == action.box
        elif isinstance(action, Announce):
            assert best.kind == "announce" and best.box == action.box
        else:
            kept = tuple(sorted(state.turn.dice[i] for i in action.held))
            assert best.kind == "keep" and best.keep == kept
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
    blind = dict(record, turns=[{k: v for k, v in t.items() if k != "held"} for t in record["turns"]])
    boxes_only = review(blind)
    assert not boxes_only.graded_keeps and {d.chosen.kind for d in boxes_only.decisions} == {"box"}


def test_review_on_an_estimate_ruleset_and_on_the_command_line(tmp_path, capsys):
    record = _played("yammen", ["strong", "greedy"], 2)
    result = review(record)
    assert not result.exact and result.measure == "match_points"
    assert result.accuracy(0) == pytest.approx(0, abs=1e-9)  # the estimate is the strong bot's own
    assert result.accuracy(1) > 0
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert main(["review", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["players"][1]["accuracy"] == pytest.approx(result.accuracy(1), abs=1e-4)
    assert main(["review", str(path)]) == 0
    text = capsys.readouterr().out
    assert "estimate" in text and "P1:" in text and "turn " in text
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
    assert data["win_note"].startswith("approximation")
    for option in advice.options:
        assert option.win is not None and 0.0 <= option.win <= 1.0
    assert all("win" in o for o in data["keeps"] + data["boxes"])
    # among boxes that leave the same spread, a higher expected total never wins less often
    boxes = sorted(advice.boxes, key=lambda o: o.value)
    assert boxes[-1].win >= boxes[0].win - 0.05
    for key in ("exact", "measure", "roll", "best", "keeps", "boxes", "announces"):
        assert key in data


def test_no_win_chance_alone_or_in_match_points():
    assert advise(_midgame("yams", 1, 10)).win_note is None
    assert "win" not in json.dumps(advise(_midgame("yams", 1, 10)).to_dict())
    assert advise(_midgame("yammen", 2, 30)).win_note is None  # column points: the values are match points


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
