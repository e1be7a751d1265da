"""Bots only ever choose legal actions, are reproducible, and the strong bot is strong."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yambak.bots import LEVELS, POLICIES, choose_action, duel, play_game, simulate_games
from yambak.bots._widget import turn_stages
from yambak.bots.models import model_for
from yambak.cli import main
from yambak.engine import GameState, IllegalAction, new_game
from yambak.rules import load_ruleset, preset_ids
from yambak.solver import dice as D

PRESETS = preset_ids()
VARIANTS = [(p, {}) for p in PRESETS] + [
    ("yams-fr", {"columns": 3}),
    ("yams-fr", {"columns": 1}),
    ("yams-fr", {"columns": 1, "max_min": False}),
    ("yams-de", {"strict": True}),
    ("yams-de", {"flat_bonus": True}),
    ("yammen", {"ties": "share"}),
    ("yamb", {"extra": ["updown", "middle", "hand"]}),
    ("yamb", {"four_kind": "four"}),
]
RULES = {f"{p}{options}": load_ruleset(p, options) for p, options in VARIANTS}


def random_position(rules, players: int, steps: int, seed: int) -> GameState:
    """A position reached by `steps` uniformly random legal actions (announcements, withdrawals,
    holds and strikes included)."""
    state = new_game(rules, [f"P{i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.finished:
            break
        actions = state.legal_actions(state.current)
        state, _ = state.apply(rng.choice(actions))
    return state


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    key=st.sampled_from(sorted(RULES)),
    players=st.integers(1, 3),
    steps=st.integers(0, 400),
    seed=st.integers(0, 10**6),
)
def test_every_bot_chooses_legal_actions(key: str, players: int, steps: int, seed: int) -> None:
    state = random_position(RULES[key], players, steps, seed)
    if state.finished:
        return
    p = state.current
    for bot in POLICIES:
        action = choose_action(state, p, bot, random.Random(seed))
        try:
            after, _ = state.apply(action)
        except IllegalAction as exc:  # pragma: no cover - the failure message
            pytest.fail(f"{bot} chose an illegal {action} on {key}: {exc}")
        # and keeps doing so to the end of that turn
        while after.current == p and not after.finished and after.turns[p].rolls:
            after, _ = after.apply(choose_action(after, p, bot, random.Random(seed)))


@pytest.mark.parametrize("preset", PRESETS)
def test_every_bot_finishes_a_game(preset: str) -> None:
    rules = load_ruleset(preset)
    for bot in POLICIES:
        state = play_game(rules, [bot, "greedy"], seed=f"t-{preset}")
        assert state.finished and all(s.full for s in state.sheets)


@pytest.mark.parametrize("preset", ["yams", "yams-fr", "yammen", "yamb"])
def test_a_fixed_seed_gives_the_same_game(preset: str) -> None:
    rules = load_ruleset(preset)
    one = play_game(rules, ["strong", "random"], seed=7, duplicate=True)
    two = play_game(rules, ["strong", "random"], seed=7, duplicate=True)
    assert one.history == two.history and one.totals() == two.totals()
    other = play_game(rules, ["strong", "random"], seed=8, duplicate=True)
    assert other.history != one.history


def test_simulate_games_is_reproducible_across_workers() -> None:
    rules = load_ruleset("yams-de")
    assert simulate_games(rules, "strong", 4, seed=3) == simulate_games(rules, "strong", 4, seed=3, workers=2)


@pytest.mark.parametrize("preset", ["yams-fr", "yams-de", "yammen", "yamb"])
def test_strong_beats_greedy_in_duplicate_games(preset: str) -> None:
    result = duel(load_ruleset(preset), "strong", "greedy", games=6, seed=1).to_dict()
    assert result["win_rate"] >= 5 / 6
    assert result["bots"][0]["mean"] > result["bots"][1]["mean"] + 100


def test_strong_is_the_exact_table_on_yams() -> None:
    rules = load_ruleset("yams")
    for seed in range(3):
        a = play_game(rules, ["strong"], seed=seed)
        b = play_game(rules, ["optimal"], seed=seed)
        assert a.history == b.history


def test_widget_pins_the_best_expected_sum() -> None:
    """Maximising the sum of five dice over three rolls: each die independently is worth
    3.5 on roll 3, 4.25 from roll 2 (keep 4+), 14/3 from roll 1 (keep 5+): 5 x 14/3 = 70/3."""
    hands = np.array([sum(D.MULTISETS[D.FULL + r]) for r in range(D.N_ROLLS)], dtype=float)
    values, _ = turn_stages([hands, hands, hands])
    start = float(D.ROLL_PROB @ values[1])
    assert abs(start - 70 / 3) < 1e-9


def test_model_distributions_are_distributions() -> None:
    for preset in PRESETS:
        model = model_for(load_ruleset(preset))
        assert np.allclose(model.dist.sum(axis=-1), 1.0)
        assert (model.mean >= 0).all()


def test_levels_name_policies() -> None:
    assert set(LEVELS) == {"easy", "medium", "hard"} and set(LEVELS.values()) <= set(POLICIES)
    state = new_game(load_ruleset("yammen"), ["A"], seed=1)
    state, _ = state.apply(choose_action(state, 0, "hard"))
    assert choose_action(state, 0, "hard", random.Random(1)) == choose_action(state, 0, "strong", random.Random(1))


def test_duel_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["duel", "--rules", "yamb", "--bots", "strong", "random", "--games", "2", "--json", "--no-progress"])
    out, _ = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 2 and [b["bot"] for b in data["bots"]] == ["strong", "random"]
    assert data["win_rate"] == 1.0


def test_duel_cli_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", "--rules", "nope", "--games", "2"]) == 2
    assert capsys.readouterr().err.startswith("yambak: ")
    assert main(["duel", "--rules", "yams", "--bots", "strong", "nobody", "--games", "2"]) == 2
    assert "unknown bot" in capsys.readouterr().err
    assert main(["duel", "--rules", "yams", "--games", "0"]) == 2


def _saved_rolls(level: str, games: int) -> tuple[float, float]:
    """Over solitaire Maxi Yatzy games at a level: (the share of turns that left a roll unused, so saved
    it, the share of games with a turn that rolled more than a turn's three, so spent saved rolls)."""
    rules = load_ruleset("maxi-yatzy")
    turns = saving = spending = 0
    for g in range(games):
        state = new_game(rules, [level], seed=f"saved-{g}")
        rng = random.Random(g)
        spent = False
        while not state.finished:
            before = state.sheets[0].turns
            rolls = len(state.turns[0].rolls)
            state, _ = state.apply(choose_action(state, 0, level, rng))
            if state.sheets[0].turns != before:  # the turn ended after `rolls` rolls
                turns += 1
                saving += rolls < rules.rolls_per_turn
                spent = spent or rolls > rules.rolls_per_turn
        spending += spent
    return saving / turns, spending / games


# The hard bot takes about 0.2 s a Maxi Yatzy game: 30 games keep its check cheap (it saves in about
# 40% of turns and spends in every game: bench/bot_rules.py plays 200 at every level).
@pytest.mark.parametrize("level, games", [("easy", 200), ("medium", 200), ("hard", 30)])
def test_every_level_saves_rolls_and_spends_them(level: str, games: int) -> None:
    saving, spending = _saved_rolls(level, games)
    assert saving >= 0.10 and spending >= 0.5, (level, saving, spending)


@pytest.mark.parametrize("level", ["easy", "medium"])
def test_every_level_announces(level: str) -> None:
    """Announcements at every level (the hard bot's are the expectimax's own): some turns of ten yammen
    games are announced, and every announced turn ends in its box, as the engine requires."""
    rules = load_ruleset("yammen")
    announced = 0
    for g in range(10):
        state = new_game(rules, [level], seed=f"announce-{g}")
        rng = random.Random(g)
        while not state.finished:
            state, event = state.apply(choose_action(state, 0, level, rng))
            announced += event.type == "announced"
    assert announced >= 10, (level, announced)
