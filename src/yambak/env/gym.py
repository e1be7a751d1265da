"""The solitaire Gymnasium environment (see the package docstring and `_core` for the spaces)."""

from __future__ import annotations

from collections.abc import Mapping

import gymnasium as gym
import numpy as np

from ..engine import GameState, IllegalAction, Roll, new_game
from ._core import Info, Layout, Observation, RulesArg, flat_space, flatten, ruleset_of

__all__ = ["YambakEnv"]


class YambakEnv(gym.Env):
    """One player fills a sheet of any ruleset. Reward: the change of the grand total at each step
    (bonuses and relations as scored, so it can be negative); the episode ends when the sheet is full.

    `info["action_mask"]` (and `action_masks()`) hold the legal actions. A masked action leaves the
    game as it was and earns `illegal_reward` (default -1) with `info["illegal"] = True`, or raises
    `ValueError` with `illegal="raise"`. `state` is the engine's `GameState`, for bots.
    `flat=True` gives observations as one vector (`_core.flat_space`); the mask stays in `info`."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        rules: RulesArg = "yams",
        options: Mapping[str, object] | None = None,
        render_mode: str | None = None,
        illegal: str = "penalize",
        illegal_reward: float = -1.0,
        flat: bool = False,
    ) -> None:
        if illegal not in ("penalize", "raise"):
            raise ValueError("illegal is 'penalize' or 'raise'")
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.rules = ruleset_of(rules, options)
        self.layout = Layout(self.rules, 1)
        self.flat = flat
        self.observation_space = flat_space(self.layout.observation_space) if flat else self.layout.observation_space
        self.action_space = self.layout.action_space
        self.render_mode = render_mode
        self.state: GameState = new_game(self.rules, ["agent"])

    def _auto_roll(self) -> None:
        if not self.state.finished and not self.state.turns[0].rolls:
            self.state, _ = self.state.apply(Roll(0))

    def _info(self) -> Info:
        return {"action_mask": self.layout.mask(self.state, 0), "total": self.state.total(0)}

    def _observe(self) -> Observation:
        obs = self.layout.observe(self.state, 0)
        return flatten(self.layout.observation_space, obs) if self.flat else obs

    def action_masks(self) -> np.ndarray:
        return self.layout.mask(self.state, 0).astype(bool)

    def reset(self, *, seed: int | None = None, options: dict[str, object] | None = None) -> tuple[Observation, Info]:  # noqa: ARG002 (Gymnasium's signature: no option is read)
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**62))
        self.state = new_game(self.rules, ["agent"], seed=game_seed)
        self._auto_roll()
        return self._observe(), self._info()

    def step(self, action: int) -> tuple[Observation, float, bool, bool, Info]:
        if self.state.finished:
            raise ValueError("the episode is over: call reset()")
        before = self.state.total(0)
        try:
            self.state, _ = self.state.apply(self.layout.action(int(action), 0))
        except IllegalAction as exc:
            if self.illegal == "raise":
                raise ValueError(f"illegal action {int(action)}: {exc}") from None
            info = {**self._info(), "illegal": True}
            return self._observe(), self.illegal_reward, False, False, info
        self._auto_roll()
        reward = float(self.state.total(0) - before)
        return self._observe(), reward, self.state.finished, False, self._info()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        turn = self.state.turns[0]
        boxes = ", ".join(
            f"{self.layout.box_ids[b]}={v}" for b, v in enumerate(self.state.sheets[0].written) if v is not None
        )
        return f"dice {turn.dice} after roll {len(turn.rolls)}; total {self.state.total(0)}; {boxes}"
