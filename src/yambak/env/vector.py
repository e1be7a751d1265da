"""Many solitaire games stepped at once in numpy, for the rulesets the exact solver takes.

The rules are never written twice: what each entry scores, whether it is legal (the joker, a box
that needs another, a served win) and the state it leaves come from the solver's own tables and
functions (`solver._layout.solver_rules`, `_induction.box_values`, `simulate.after_entry`), the
ones its exact tables are built from. Actions, masks and observations are those of `YambakEnv`
(`_core.Layout`), batched: `tests/env/test_vector.py` replays 1,000 random games through the engine
and finds the same masks, rewards, sheets and totals at every step.

Gymnasium's vector API with next-step autoreset: the step after a game ends starts a new one
(that step's action is ignored, its reward 0).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..rules import Ruleset, RulesetError
from ..solver import MeanScore, SolverRules, box_values, solver_rules
from ..solver import dice as D
from ..solver.simulate import after_entry
from ._core import Info, Layout, RulesArg, flat_space, flatten_batch, ruleset_of

__all__ = ["YambakVectorEnv", "vectorisable"]

# Sorted five dice -> roll index (0..251), through a base-7 code of the sorted hand.
_CODE = np.array([7**i for i in range(D.DICE)], dtype=np.int64)
_HAND_OF_CODE = np.full(7**D.DICE, -1, dtype=np.int64)
for _r in range(D.N_ROLLS):
    _HAND_OF_CODE[np.array(D.MULTISETS[D.FULL + _r]) @ _CODE] = _r


def _why_not(rules: Ruleset) -> str | None:
    try:
        sr = solver_rules(rules)
    except RulesetError as exc:
        return str(exc)
    if sr.strike_any or sr.rel_high >= 0:
        return "strikes and relations between boxes are not vectorised"
    return None


def vectorisable(rules: Ruleset) -> bool:
    """Whether `YambakVectorEnv` takes this ruleset (one column, five dice, as the exact solver)."""
    return _why_not(rules) is None

Observations = dict[str, np.ndarray] | np.ndarray  # every game's fields, batched, or one row per game (`flat`)


class YambakVectorEnv(VectorEnv):
    """`num_envs` solitaire games of one ruleset, stepped together. Spaces, actions and rewards are
    `YambakEnv`'s (batched); `infos["action_mask"]` holds the masks, `infos["total"]` the totals.
    A masked action earns `illegal_reward` and changes nothing (`infos["illegal"]`), or raises
    `ValueError` with `illegal="raise"`."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        rules: RulesArg = "yams",
        num_envs: int = 1,
        options: Mapping[str, object] | None = None,
        flat: bool = False,
        illegal: str = "penalize",
        illegal_reward: float = -1.0,
    ) -> None:
        if illegal not in ("penalize", "raise"):
            raise ValueError("illegal is 'penalize' or 'raise'")
        if num_envs < 1:
            raise ValueError("num_envs is at least 1")
        self.rules = ruleset_of(rules, options)
        why = _why_not(self.rules)
        if why is not None:
            raise ValueError(
                f"{self.rules.id} cannot be vectorised ({why}): use gymnasium.vector.SyncVectorEnv over YambakEnv"
            )
        self.sr: SolverRules = solver_rules(self.rules)
        self.layout = Layout(self.rules, 1)
        self.num_envs = num_envs
        self.flat = flat
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.single_action_space = self.layout.action_space
        self.single_observation_space = (
            flat_space(self.layout.observation_space) if flat else self.layout.observation_space
        )
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        # Every entry's value read from an all-zero table is its points: the legality (-inf) and
        # the points of `box_values` without a strategy (a zero-stride view, no memory).
        self._zero = np.broadcast_to(np.zeros((1, 1)), (self.sr.n_states, 1))
        self._objective = MeanScore()
        self._rng = np.random.default_rng()
        n, B = num_envs, self.layout.B
        self.dice = np.zeros((n, D.DICE), dtype=np.int64)
        self.held = np.zeros((n, D.DICE), dtype=np.int8)
        self.rolls = np.zeros(n, dtype=np.int64)
        self.boxes = np.zeros(n, dtype=np.int64)
        self.upper = np.zeros(n, dtype=np.int64)
        self.yam = np.zeros(n, dtype=np.int64)
        self.sheets = np.full((n, B), -1, dtype=np.int64)
        self.totals = np.zeros(n, dtype=np.int64)
        self.finished = np.zeros(n, dtype=bool)
        self._legal = np.zeros((n, B), dtype=bool)
        self._points = np.zeros((n, B), dtype=np.int64)  # what each entry adds to the total
        self._written = np.zeros((n, B), dtype=np.int64)  # ... and the value it writes in its box
        self._wins = np.zeros((n, B), dtype=bool)  # ... and whether it wins the game at once

    # -- the games ------------------------------------------------------------------------------
    def _new_games(self, games: np.ndarray) -> None:
        self.boxes[games] = self.upper[games] = self.yam[games] = self.totals[games] = 0
        self.sheets[games] = -1
        self.finished[games] = False
        self._first_roll(games)

    def _first_roll(self, games: np.ndarray) -> None:
        self.dice[games] = self._rng.integers(1, D.FACES + 1, (len(games), D.DICE))
        self.held[games] = 0
        self.rolls[games] = 1

    def _entries(self, games: np.ndarray) -> None:
        """Legality, points, written values and outright wins of every box for these games' hands."""
        sr = self.sr
        hand = _HAND_OF_CODE[np.sort(self.dice[games], axis=1) @ _CODE]
        for m in np.unique(self.rolls[games]) if sr.any_byroll else (sr.rolls,):
            at = games if not sr.any_byroll else games[self.rolls[games] == m]
            h = hand if not sr.any_byroll else hand[self.rolls[games] == m]
            boxes, upper, yam = self.boxes[at], self.upper[at], self.yam[at]
            active = 0
            if sr.has_joker:  # the joker's +bonus, which `box_values` adds to every entry's points
                active = sr.joker_bonus * yam * (((boxes >> sr.yam_row) & 1) & (sr.yam_face[h] > 0))
            for row, points, value in box_values(sr, self._zero, self._objective, boxes, upper, yam, h, int(m)):
                raw = (sr.score_by_roll[int(m)] if sr.any_byroll else sr.score)[row][h]
                self._legal[at, row] = value[:, 0] > -np.inf
                self._points[at, row] = points
                bonus = sr.bonus_gain(upper, raw) if sr.upper_face[row] else 0
                self._written[at, row] = points - bonus - active
                self._wins[at, row] = (sr.wins[row] >= m) & (points > 0)

    def _mask(self) -> np.ndarray:
        L = self.layout
        mask = np.zeros((self.num_envs, L.n_actions), dtype=np.int8)
        live = ~self.finished
        mask[:, : L.K - 1] = (live & (self.rolls < self.sr.rolls))[:, None]
        mask[:, L.K : L.K + L.B] = self._legal & live[:, None]
        return mask

    def _observe(self, mask: np.ndarray) -> Observations:
        n, B = self.num_envs, self.layout.B
        obs = {
            "action_mask": mask,
            "announced": np.full(n, B, dtype=np.int64),
            "dice": np.where(self.finished[:, None], 0, self.dice),
            "held": np.where(self.finished[:, None], 0, self.held).astype(np.int8),
            "rolls": np.where(self.finished, 0, self.rolls),
            "sheets": self.sheets[:, None, :].copy(),
            "totals": self.totals[:, None].copy(),
        }
        return flatten_batch(self.layout.observation_space, obs) if self.flat else obs

    # -- the vector API -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, object] | None = None) -> tuple[Observations, Info]:  # noqa: ARG002 (Gymnasium's signature: no option is read)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        every = np.arange(self.num_envs)
        self._new_games(every)
        self._entries(every)
        mask = self._mask()
        return self._observe(mask), {"action_mask": mask, "total": self.totals.copy()}

    def step(self, actions: npt.ArrayLike) -> tuple[Observations, np.ndarray, np.ndarray, np.ndarray, Info]:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        L, sr = self.layout, self.sr
        rewards = np.zeros(self.num_envs)
        restart = np.flatnonzero(self.finished)  # next-step autoreset: these start a new game
        self._new_games(restart)
        mask = self._mask()
        playing = np.ones(self.num_envs, dtype=bool)
        playing[restart] = False
        inside = (actions >= 0) & (actions < L.n_actions)
        legal = inside & (mask[np.arange(self.num_envs), np.clip(actions, 0, L.n_actions - 1)] == 1)
        illegal = playing & ~legal
        if illegal.any() and self.illegal == "raise":
            g = int(np.flatnonzero(illegal)[0])
            raise ValueError(f"illegal action {int(actions[g])} in game {g}")
        rewards[illegal] = self.illegal_reward
        act = playing & legal

        rolled = np.flatnonzero(act & (actions < L.K))
        if len(rolled):
            bits = ((actions[rolled, None] >> np.arange(D.DICE)) & 1).astype(np.int8)
            fresh = self._rng.integers(1, D.FACES + 1, (len(rolled), D.DICE))
            self.dice[rolled] = np.where(bits == 1, self.dice[rolled], fresh)
            self.held[rolled] = bits
            self.rolls[rolled] += 1

        scored = np.flatnonzero(act & (actions >= L.K))
        if len(scored):
            row = actions[scored] - L.K
            points = self._points[scored, row]
            self.sheets[scored, row] = self._written[scored, row]
            self.totals[scored] += points
            rewards[scored] = points
            hand = _HAND_OF_CODE[np.sort(self.dice[scored], axis=1) @ _CODE]
            boxes, upper, yam = after_entry(
                sr, row, hand, points, self.boxes[scored], self.upper[scored], self.yam[scored]
            )
            self.boxes[scored], self.upper[scored], self.yam[scored] = boxes, upper, yam
            ended = self._wins[scored, row] | ((boxes & sr.full_mask) == sr.full_mask)
            self.finished[scored[ended]] = True
            self._first_roll(scored[~ended])

        self._entries(np.flatnonzero(~self.finished))
        mask = self._mask()
        terminated = self.finished & playing
        infos: Info = {"action_mask": mask, "total": self.totals.copy()}
        if illegal.any():
            infos["illegal"], infos["_illegal"] = illegal, illegal
        truncated = np.zeros(self.num_envs, dtype=bool)
        return self._observe(mask), rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """(num_envs, n_actions) bool: the legal actions of every game now."""
        return self._mask().astype(bool)
