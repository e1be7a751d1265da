"""The vector environment against the engine: the same masks, rewards, sheets and totals at every
step of 1,000 random games, fed the same dice; its spaces, seeds, autoreset and illegal actions."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("CI") != "true":  # `make install` installs the [rl] extra: in CI a missing one fails
    pytest.importorskip("gymnasium")

import gymnasium  # noqa: E402
from gymnasium import spaces  # noqa: E402

from yambak.engine import GameState, ManualDice, Roll, new_game  # noqa: E402
from yambak.env import YambakVectorEnv  # noqa: E402
from yambak.env.vector import vectorisable  # noqa: E402
from yambak.rules import load_ruleset, preset_ids  # noqa: E402
from yambak.rules.loader import load_ruleset_file  # noqa: E402

GAMES = {"yams": 300, "generala": 200, "kismet": 125, "kniffel": 125, "yatzy": 125, "yacht": 125}  # 1,000
# Forced Yatzy: a column filled from the top down, whose masks allow the next box only.
FORCED_YATZY = Path(__file__).parents[2] / "bench" / "rulesets" / "yatzy-down.toml"
ORDERED = {"yatzy-down": 40}


def _random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def _dice(obs: dict, i: int) -> tuple[int, ...]:
    return tuple(int(d) for d in obs["dice"][i])


@pytest.mark.parametrize("preset", list(GAMES) + list(ORDERED))
def test_every_step_of_random_games_is_the_engines(preset: str) -> None:
    """Each game is mirrored by an engine game with manual dice given the vector environment's dice:
    the engine's own observation (mask included) equals the batched one after every step, through
    the next-step autoreset, until every seat has finished a game (and two served wins were seen)."""
    n = GAMES.get(preset) or ORDERED[preset]
    env = YambakVectorEnv(load_ruleset_file(FORCED_YATZY) if preset in ORDERED else preset, num_envs=n)
    layout = env.layout
    obs, info = env.reset(seed=7)

    def fresh(i: int) -> GameState:
        return new_game(env.rules, ["agent"], dice=ManualDice()).apply(Roll(0, dice=_dice(obs, i)))[0]

    games = [fresh(i) for i in range(n)]
    rng = np.random.default_rng(7)
    finished = np.zeros(n, dtype=int)
    outright = 0
    wins = [layout.K + b for b, row in enumerate(env.rules.rows) if row.wins_by_roll]  # one column: box = row
    while not finished.all() or (wins and outright < 2):
        actions = _random_legal(rng, info["action_mask"])
        for box in wins:  # a served win is taken when offered (random play would mostly pass it by)
            served = (obs["rolls"] == 1) & (obs["dice"] == obs["dice"][:, :1]).all(axis=1)
            actions[served & (info["action_mask"][:, box] == 1)] = box
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any() and "illegal" not in info
        for i in range(n):
            if finished[i] and not wins:
                continue  # this seat has finished a game: enough of it
            state, before = games[i], games[i].total(0)
            if state.finished:  # the autoreset: a new game, the action ignored
                state, before = fresh(i), 0
            else:
                action = layout.action(int(actions[i]), 0)
                if isinstance(action, Roll):
                    action = Roll(0, held=action.held, dice=_dice(obs, i))
                state = state.apply(action)[0]
                if not state.finished and not state.turns[0].rolls:
                    state = state.apply(Roll(0, dice=_dice(obs, i)))[0]
            games[i] = state
            for key, value in layout.observe(state, 0).items():
                assert np.array_equal(np.asarray(value), obs[key][i]), (preset, i, key)
            assert rewards[i] == state.total(0) - before and info["total"][i] == state.total(0)
            assert terminated[i] == state.finished
            finished[i] += state.finished
            outright += state.outright is not None and state.finished
    assert finished.sum() >= n


def test_spaces_flat_observations_and_seeds() -> None:
    env = YambakVectorEnv("yatzy", num_envs=64)
    flat = YambakVectorEnv("yatzy", num_envs=64, flat=True)
    obs, info = env.reset(seed=3)
    vec, _ = flat.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(60):
        assert env.observation_space.contains(obs) and flat.observation_space.contains(vec)
        single = env.single_observation_space
        rows = [spaces.flatten(single, {k: v[i] for k, v in obs.items()}) for i in range(64)]
        assert np.array_equal(np.stack(rows), vec)
        actions = _random_legal(rng, info["action_mask"])
        obs, _, _, _, info = env.step(actions)
        vec, *_ = flat.step(actions)


def test_a_game_that_ends_starts_again_on_the_next_step() -> None:
    env = YambakVectorEnv("yacht", num_envs=2)
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    while True:
        obs, rewards, terminated, _, info = env.step(_random_legal(rng, info["action_mask"]))
        if terminated.any():
            break
    g = int(np.flatnonzero(terminated)[0])
    assert not info["action_mask"][g].any() and obs["rolls"][g] == 0 and (obs["sheets"][g] >= 0).all()
    obs, rewards, terminated, _, info = env.step(np.zeros(2, dtype=np.int64))  # the action is ignored there
    assert rewards[g] == 0 and not terminated[g] and obs["rolls"][g] == 1 and (obs["sheets"][g] == -1).all()
    assert info["total"][g] == 0 and info["action_mask"][g].any()


def test_an_illegal_action_changes_nothing() -> None:
    env = YambakVectorEnv("yams", num_envs=3)
    obs, info = env.reset(seed=2)
    illegal = np.array([int(np.flatnonzero(m == 0)[0]) for m in info["action_mask"]])
    again, rewards, *_, info2 = env.step(illegal)
    assert info2["illegal"].all() and (rewards == -1).all()
    for key in obs:
        assert np.array_equal(obs[key], again[key])
    with pytest.raises(ValueError, match="illegal action"):
        YambakVectorEnv("yams", num_envs=1, illegal="raise").step(np.array([10_000]))


def test_the_same_seed_plays_the_same_games() -> None:
    def trace(seed: int) -> list[int]:
        env = YambakVectorEnv("kniffel", num_envs=8)
        _, info = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(50):
            _, rewards, *_, info = env.step(_random_legal(rng, info["action_mask"]))
            out += rewards.astype(int).tolist()
        return out

    assert trace(5) == trace(5) != trace(6)


def test_registered_for_every_preset_and_a_users_ruleset(tmp_path) -> None:
    for preset in preset_ids():
        env = gymnasium.make(f"yambak/{preset}-v0")
        assert env.unwrapped.rules.id == preset
    flat = gymnasium.make("yambak/maxi-yatzy-v0", flat=True)
    assert isinstance(flat.observation_space, spaces.Box)
    vector = gymnasium.make_vec("yambak/yams-v0", num_envs=16, vectorization_mode="vector_entry_point")
    assert isinstance(vector.unwrapped, YambakVectorEnv) and vector.num_envs == 16
    assert vectorisable(load_ruleset("generala")) and not vectorisable(load_ruleset("yamb"))
    with pytest.raises(ValueError, match="cannot be vectorised"):
        gymnasium.make_vec("yambak/yamb-v0", num_envs=4, vectorization_mode="vector_entry_point")
    sync = gymnasium.make_vec("yambak/yamb-v0", num_envs=2, vectorization_mode="sync")
    assert sync.num_envs == 2
    path = tmp_path / "house.toml"
    path.write_text(
        'id = "house"\nname = "House"\n'
        '[[rows]]\nid = "sixes"\nkind = "upper"\nface = 6\n'
        '[[rows]]\nid = "chance"\nkind = "sum"\n'
        '[[columns]]\nid = "free"\n'
    )
    assert gymnasium.make("yambak/ruleset-v0", rules=str(path)).unwrapped.rules.id == "house"
    house = gymnasium.make_vec("yambak/ruleset-v0", 4, vectorization_mode="vector_entry_point", rules=str(path))
    assert house.unwrapped.rules.id == "house"
    with pytest.raises(ValueError, match="needs rules="):
        gymnasium.make("yambak/ruleset-v0")
