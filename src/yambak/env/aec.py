"""The multiplayer PettingZoo AEC environment (see the package docstring and `_core` for the spaces)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..engine import GameState, IllegalAction, Roll, new_game
from ._core import Layout, Observation, RulesArg, flat_space, flatten, ruleset_of

__all__ = ["YambakAEC", "yambak_aec"]


class YambakAEC(AECEnv):  # type: ignore[misc]
    """Seats `player_0`... take turns as the engine says (seat order). Rewards: `score` (default), the
    change of the agent's own grand total; or `win`, 0 until the end, then +1 to the winners (shared
    wins split 1 among them) and -1 / (players - winners) to the others (`GameState.returns`).
    Column-points rulesets (yammen) with `win` use the match result (docs/rules.md §7).
    Observations put the observing seat first (`flat=True`: as one vector, the mask in `infos`).
    All agents terminate together when every sheet is full."""

    metadata = {"render_modes": ["ansi"], "name": "yambak_v0", "is_parallelizable": False}

    def __init__(
        self,
        rules: RulesArg = "yams",
        players: int = 2,
        options: Mapping[str, object] | None = None,
        reward: str = "score",
        render_mode: str | None = None,
        flat: bool = False,
    ) -> None:
        super().__init__()
        if players < 1:
            raise ValueError("at least one player")
        if reward not in ("score", "win"):
            raise ValueError("reward is 'score' or 'win'")
        self.rules = ruleset_of(rules, options)
        self.layout = Layout(self.rules, players)
        self.reward_kind = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.flat = flat
        space = flat_space(self.layout.observation_space) if flat else self.layout.observation_space
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: self.layout.action_space for a in self.possible_agents}
        self.state_: GameState = new_game(self.rules, list(self.possible_agents))
        self._rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Box | spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    @property
    def game(self) -> GameState:
        """The engine's state (for bots: `choose_action(env.game, seat)`)."""
        return self.state_

    def _auto_roll(self) -> None:
        s = self.state_
        if not s.finished and not s.turns[s.current].rolls:
            self.state_, _ = s.apply(Roll(s.current))

    def observe(self, agent: str) -> Observation:
        obs = self.layout.observe(self.state_, self._seat[agent])
        return flatten(self.layout.observation_space, obs) if self.flat else obs

    def reset(self, seed: int | None = None, options: dict[str, object] | None = None) -> None:  # noqa: ARG002 (PettingZoo's signature: no option is read)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.state_ = new_game(self.rules, list(self.possible_agents), seed=int(self._rng.integers(0, 2**62)))
        self._auto_roll()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"action_mask": self.layout.mask(self.state_, self._seat[a])} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state_.current]

    def _final_rewards(self) -> dict[str, float]:
        returns = self.state_.returns()  # the engine's zero-sum shares of the win
        return {a: returns[seat] for a, seat in self._seat.items()}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        if action is None:
            raise ValueError("a live agent must act")
        before = self.state_.totals()
        try:
            self.state_, _ = self.state_.apply(self.layout.action(int(action), seat))
        except IllegalAction as exc:
            raise ValueError(f"illegal action {int(action)} for {agent}: {exc}") from None
        self._auto_roll()
        self._cumulative_rewards[agent] = 0.0
        if self.reward_kind == "score":
            after = self.state_.totals()
            self.rewards = {a: float(after[s] - before[s]) for a, s in self._seat.items() if a in self.agents}
        else:
            self.rewards = {a: 0.0 for a in self.agents}
        if self.state_.finished:
            if self.reward_kind == "win":
                self.rewards = self._final_rewards()
            self.terminations = {a: True for a in self.agents}
        for a in self.agents:
            self.infos[a] = {"action_mask": self.layout.mask(self.state_, self._seat[a])}
        self._accumulate_rewards()
        if not self.state_.finished:
            self.agent_selection = self.possible_agents[self.state_.current]
        else:
            self.agent_selection = self._next_dead(agent)

    def _next_dead(self, agent: str) -> str:
        i = self.agents.index(agent)
        return self.agents[(i + 1) % len(self.agents)]

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        s = self.state_
        return f"seat {s.current} to act, dice {s.dice}, totals {s.totals()}"

    def close(self) -> None:
        pass


def yambak_aec(rules: RulesArg = "yams", players: int = 2, **kwargs: Any) -> YambakAEC:
    """A wrapped AEC environment (PettingZoo's order enforcing and bounds checks)."""
    from pettingzoo.utils import wrappers

    env = YambakAEC(rules, players, **kwargs)
    return wrappers.OrderEnforcingWrapper(env)  # type: ignore[no-any-return]
