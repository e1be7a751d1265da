"""The trainer's core: its grades are the coach's, its pool is where greedy loses, seeded and reproducible,
its ratings are OpenSkill's own."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

import pytest
from openskill.models import PlackettLuce

from yambak.bots.baseline import greedy
from yambak.bots.optimal import strategy_for
from yambak.coach.advice import advise
from yambak.rules import load_ruleset
from yambak.solver import advise as solver_advise
from yambak.solver.advisor import position_of
from yambak.trainer import (
    SOLVED_WITHIN,
    THRESHOLD,
    Choice,
    PoolSpec,
    Puzzle,
    Rating,
    TrainerError,
    daily_puzzle,
    generate_pool,
    grade,
    initial,
    rate,
    state_of,
)

SPECS = {"yams": PoolSpec("yams", size=10, seed=3), "yamb": PoolSpec("yamb", size=5, seed=3)}


@pytest.fixture(scope="module", params=sorted(SPECS))
def pool(request: pytest.FixtureRequest) -> tuple[Puzzle, ...]:
    return generate_pool(SPECS[request.param])


def _choice_of(option) -> Choice:  # the coach's option as a player would send it, written out here
    if option.kind == "keep":
        return Choice.from_dict({"kind": "keep", "keep": list(option.keep)})
    if option.kind == "announce":
        return Choice.from_dict({"kind": "announce", "box": option.box})
    return Choice.from_dict({"kind": "box", "box": option.box, "strike": option.strike})


def test_every_answers_loss_is_the_coachs(pool: tuple[Puzzle, ...]) -> None:
    assert pool
    for puzzle in pool:
        state = state_of(puzzle)
        advice = advise(state, 0, wins=False)
        assert advice.exact == puzzle.exact and len(advice.options) == len(puzzle.options)
        top = max(o.value for o in advice.options)
        for option in advice.options:
            result = grade(puzzle, _choice_of(option))
            assert result.loss == pytest.approx(top - option.value, abs=1e-4)
            assert result.solved == (top - option.value <= SOLVED_WITHIN + 1e-9)
            assert result.chosen.label == option.label()


def test_exact_puzzles_carry_the_solvers_values() -> None:
    rules = load_ruleset("yams")
    strategy = strategy_for(rules)
    for puzzle in generate_pool(SPECS["yams"]):
        assert puzzle.exact
        table = solver_advise(strategy, position_of(state_of(puzzle)))
        assert puzzle.best.value == pytest.approx(table.value, abs=1e-4)
        for keep in table.keeps:
            assert grade(puzzle, {"kind": "keep", "keep": list(keep.keep or ())}).chosen.value == pytest.approx(
                keep.value, abs=1e-4
            )


def test_the_obvious_choice_loses_at_least_the_threshold(pool: tuple[Puzzle, ...]) -> None:
    for puzzle in pool:
        state = state_of(puzzle)
        action = greedy(state, 0, random.Random(0))
        option = advise(state, 0, wins=False).option_for(action)
        assert option is not None and option.loss >= THRESHOLD
        assert puzzle.option_for(puzzle.obvious) is not None
        assert puzzle.option_for(puzzle.obvious).label == option.label()  # type: ignore[union-attr]
        assert grade(puzzle, puzzle.obvious).loss == pytest.approx(option.loss, abs=1e-4)
        assert not grade(puzzle, puzzle.obvious).solved


def test_a_higher_threshold_keeps_only_bigger_mistakes() -> None:
    pool = generate_pool(PoolSpec("yams", size=4, seed=3, threshold=8.0))
    assert len(pool) == 4 and all(p.obvious_loss >= 8.0 for p in pool)


def test_the_pool_is_reproducible_from_its_seed(pool: tuple[Puzzle, ...]) -> None:
    spec = SPECS[pool[0].preset]
    assert generate_pool(spec) == pool
    other = generate_pool(PoolSpec(spec.preset, size=spec.size, seed=spec.seed + 1))
    assert {p.id for p in other} != {p.id for p in pool}
    assert len({p.id for p in pool}) == len(pool)


def test_a_puzzle_round_trips_through_json(pool: tuple[Puzzle, ...]) -> None:
    for puzzle in pool:
        assert Puzzle.from_dict(json.loads(json.dumps(puzzle.to_dict()))) == puzzle


def test_the_unrevealed_puzzle_hides_the_answer(pool: tuple[Puzzle, ...]) -> None:
    shown = pool[0].to_dict(reveal=False)
    text = json.dumps(shown)
    assert "value" not in text and "loss" not in text and "obvious" not in text and "record" not in shown
    assert len(shown["choices"]) == len(pool[0].options)
    assert shown["dice"] == list(pool[0].dice)


def test_the_best_answer_solves_and_the_grade_names_the_best_three(pool: tuple[Puzzle, ...]) -> None:
    puzzle = pool[0]
    result = grade(puzzle, puzzle.best.choice)
    assert result.solved and result.loss == 0
    assert [o.loss for o in result.top] == sorted(o.loss for o in puzzle.options)[:3]
    assert result.odds is None and result.to_dict()["odds"] is None


def test_the_odds_hook_is_asked_for_the_options_shown() -> None:
    puzzle = generate_pool(SPECS["yams"])[0]
    asked: list[str] = []
    result = grade(puzzle, puzzle.obvious, odds=lambda _p, o: asked.append(o.label) or len(asked))
    assert asked[0] == result.chosen.label and set(asked) == {result.chosen.label, *(o.label for o in result.top)}


def test_a_box_typed_without_its_column_is_found() -> None:
    puzzle = generate_pool(SPECS["yams"])[0]
    box = next(o for o in puzzle.options if o.choice.kind == "box")
    row = (box.choice.box or "").split(".")[-1]
    assert grade(puzzle, {"kind": "box", "box": row}).chosen == box


@pytest.mark.parametrize(
    "bad",
    [
        None, [], "keep", {}, {"kind": "pass"}, {"kind": "keep", "keep": [7]}, {"kind": "keep", "keep": "66"},
        {"kind": "keep", "keep": [True]}, {"kind": "keep", "keep": [1] * 7}, {"kind": "box"},
        {"kind": "box", "box": ""}, {"kind": "box", "box": 3}, {"kind": "box", "box": "yam", "strike": "yes"},
        {"kind": "keep", "keep": [], "box": "yam"}, {"kind": "announce", "box": "x", "strike": True},
    ],
)  # fmt: skip
def test_bad_choices_are_refused_with_a_code(bad: object) -> None:
    with pytest.raises(TrainerError) as info:
        Choice.from_dict(bad)
    assert info.value.code == "train/choice"


def test_a_choice_not_in_the_position_is_refused() -> None:
    puzzle = generate_pool(SPECS["yams"])[0]
    with pytest.raises(TrainerError) as info:
        grade(puzzle, {"kind": "box", "box": "no-such-box"})
    assert info.value.code == "train/not-a-choice"
    impossible = [d for d in range(1, 7) if d not in puzzle.dice][:1] or [7]
    with pytest.raises(TrainerError):
        grade(puzzle, {"kind": "keep", "keep": impossible * 5})


def test_the_daily_position_depends_on_the_date_only(pool: tuple[Puzzle, ...]) -> None:
    day = date(2026, 12, 7)
    assert daily_puzzle(pool, day) == daily_puzzle(tuple(pool), day)
    days = {daily_puzzle(pool, day + timedelta(days=k)).id for k in range(30)}
    assert len(days) > 1 and days <= {p.id for p in pool}
    with pytest.raises(TrainerError):
        daily_puzzle((), day)


@pytest.mark.parametrize("solved", [True, False])
def test_the_rating_update_is_openskills(solved: bool) -> None:
    model = PlackettLuce()
    player, position = Rating(27.0, 6.5), Rating(22.0, 4.0)
    me, it = model.rating(mu=27.0, sigma=6.5), model.rating(mu=22.0, sigma=4.0)
    [[me2], [it2]] = model.rate([[me], [it]], ranks=[1, 2] if solved else [2, 1])
    new_player, new_position = rate(player, position, solved)
    assert (new_player.mu, new_player.sigma) == pytest.approx((me2.mu, me2.sigma), abs=1e-12)
    assert (new_position.mu, new_position.sigma) == pytest.approx((it2.mu, it2.sigma), abs=1e-12)
    assert (new_player.mu > player.mu) == solved and new_player.sigma < player.sigma
    assert initial() == Rating(model.mu, model.sigma)
    assert new_player.ordinal == pytest.approx(me2.mu - 3 * me2.sigma)
