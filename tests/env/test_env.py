"""The research environments: Gymnasium's and PettingZoo's own checkers, masks, seeds, bots through them."""

from __future__ import annotations

import os
import random
import warnings

import numpy as np
import pytest

if os.environ.get("CI") != "true":  # `make install` installs the [rl] extra: in CI a missing one fails
    pytest.importorskip("gymnasium")
    pytest.importorskip("pettingzoo")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from yambak.bots import choose_action  # noqa: E402
from yambak.env import YambakAEC, YambakEnv, yambak_aec  # noqa: E402, F401 (registers the ids)
from yambak.rules import preset_ids  # noqa: E402


@pytest.mark.parametrize("preset", preset_ids())
def test_gymnasium_check_env(preset: str) -> None:
    """Gymnasium's checker on the registered id (as `gymnasium.make` builds it) and on the flat option."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either: bounds and dtypes as the checker wants them
        check_env(gymnasium.make(f"yambak/{preset}-v0").unwrapped, skip_render_check=True)
        check_env(YambakEnv(preset, flat=True), skip_render_check=True)


PLAYERS = {"yams": 2, "yammen": 3, "yams-de": 2, "yamb": 1, "maxi-yatzy": 2, "yamb-6": 2}


@pytest.mark.parametrize("preset", preset_ids())
def test_pettingzoo_api_test(preset: str) -> None:
    players = PLAYERS.get(preset, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(YambakAEC(preset, players), num_cycles=300)
        api_test(yambak_aec(preset, players, reward="win"), num_cycles=100)
    api_test(YambakAEC(preset, players, flat=True), num_cycles=50)


def test_saved_rolls_are_seen_within_their_bounds() -> None:
    """Maxi Yatzy: a player who scores after each first roll saves two rolls a turn; the observation
    shows them (every seat's) and stays inside its space, the turn that spends them included."""
    env = YambakAEC("maxi-yatzy", 2)
    env.reset(seed=4)
    space = env.observation_space("player_0")
    seen = []
    while not all(env.terminations.values()):
        agent = env.agent_selection
        obs = env.observe(agent)
        assert space.contains(obs), {k: v for k, v in obs.items() if not space[k].contains(v)}
        seat = int(agent.split("_")[1])
        assert obs["saved"][0] == env.game.sheets[seat].saved
        seen.append(int(obs["saved"][0]))
        mask = obs["action_mask"]
        K = env.layout.K
        if seat == 1 and obs["rolls"] < 9 and mask[: K - 1].any() and len(env.game.history) > 30:
            env.step(0)  # the second seat spends its saved rolls late in the game
        else:
            env.step(int(K + np.flatnonzero(mask[K:])[0]))
    assert max(seen) >= 20 > env.game.rules.rolls_per_turn


def test_pettingzoo_seed_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: YambakAEC("yams-fr", 2, options={"columns": 1}), num_cycles=40)


def _random_episode(env: YambakEnv, seed: int) -> list[int]:
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = []
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        assert (info["action_mask"] == obs["action_mask"]).all() and len(legal)
        action = int(rng.choice(legal))
        obs, reward, done, _, info = env.step(action)
        assert not info.get("illegal")
        trace.append(int(reward))
    return trace


@pytest.mark.parametrize("preset", ["yams", "yams-fr", "yams-de", "yamb-6"])
def test_masked_random_play_is_always_legal_and_seeded(preset: str) -> None:
    env = YambakEnv(preset, illegal="raise")
    a = _random_episode(env, 5)
    assert sum(a) == env.state.total(0) and env.state.finished
    assert _random_episode(env, 5) == a


def test_an_illegal_action_changes_nothing() -> None:
    env = YambakEnv("yams")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    again, reward, done, _, info2 = env.step(illegal)
    assert info2["illegal"] and reward == -1.0 and not done
    assert (again["dice"] == obs["dice"]).all()
    strict = YambakEnv("yams", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError):
        strict.step(illegal)


def test_a_bot_plays_through_the_environment() -> None:
    """The strong bot (the exact table on yams) through the env: the env's total is the engine's."""
    env = YambakEnv("yams")
    obs, info = env.reset(seed=3)
    rng = random.Random(0)
    total = 0.0
    done = False
    while not done:
        action = env.layout.index(choose_action(env.state, 0, "strong", rng))
        assert info["action_mask"][action]
        obs, reward, done, _, info = env.step(action)
        total += reward
    assert total == env.state.total(0) > 0


def test_observation_puts_the_observer_first() -> None:
    env = YambakAEC("yams", 2)
    env.reset(seed=1)
    first = env.agent_selection
    mask = env.observe(first)["action_mask"]
    env.step(int(env.layout.K + np.flatnonzero(mask[env.layout.K :])[0]))  # score a box
    other = env.agent_selection
    assert other != first
    assert (env.observe(first)["sheets"][0] >= 0).sum() == 1
    assert (env.observe(other)["sheets"][1] >= 0).sum() == 1


def test_a_users_ruleset_file_is_an_environment_too(tmp_path) -> None:
    path = tmp_path / "house.toml"
    path.write_text(
        'id = "house"\nname = "House"\n'
        '[[rows]]\nid = "sixes"\nkind = "upper"\nface = 6\n'
        '[[rows]]\nid = "chance"\nkind = "sum"\n'
        '[[columns]]\nid = "free"\n[[columns]]\nid = "down"\norder = "down"\n'
    )
    env = YambakEnv(str(path))
    assert env.unwrapped.rules.id == "house" and env.action_space.n > 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)
        api_test(YambakAEC(str(path), 2), num_cycles=100)
