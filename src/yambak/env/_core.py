"""What both environments share: the action layout, masks and observations over the engine.

Actions are integers in one `Discrete(n)` space, laid out per ruleset (B = boxes, n = dice rolled):

    [0, 2**n)            roll again holding the dice at the positions in the bitmask (bit i = die i);
                         holding every die is never legal (docs/rules.md §1)
    [K, K + B)           score box b (K = 2**n; box index = column * rows + row, `box_ids` names them)
    [K + B, K + 2B)      strike box b for 0 (strike_any rulesets, where the dice would score)
    [K + 2B, K + 3B)     announce box b (after roll 1, announce columns)
    K + 3B               withdraw the announcement (yams-de, before roll 2)

The first roll of a turn is automatic: an agent only ever sees a position after a roll. The mask
comes from the engine (`GameState.legal_actions`, `can_roll`), never from a rule written here.

Observation (a `Dict` space; `P` = players, the observing seat first, then the others in seat order):

    dice         (n,) int, 1..6, 0 where no die (never at a decision)
    held         (n,) 0/1, the dice held now
    rolls        int, rolls made this turn (1..rolls_per_turn, more while saved rolls are spent)
    saved        (P,) int, every seat's saved rolls (only in save_rolls rulesets)
    sheets       (P, B) int, the written value of every box, -1 while open
    voided       (P, B) 0/1, the boxes zeroed at entry, written but counting 0 (only in rulesets
                 with a min_lt_max_at_entry relation)
    totals       (P,) int, every seat's grand total now (bonuses and relations applied)
    announced    int, the announced box, or B for none
    action_mask  (A,) 0/1, the legal actions

Bounds: a turn saves at most rolls_per_turn - 1 rolls (it rolls once), so a seat holds at most
(rolls_per_turn - 1) * B saved rolls and a turn rolls at most rolls_per_turn plus those.
`flat=True` (both environments) gives the same observation as one integer vector,
`gymnasium.spaces.flatten` of this `Dict` (`flat_space`, `flatten_batch`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from ..engine import Action, Announce, GameState, Roll, Score, Withdraw
from ..rules import POINTS_LIMIT, Ruleset, load_ruleset, load_ruleset_arg

__all__ = ["Layout", "flat_space", "flatten_batch", "ruleset_of"]


RulesArg = str | Ruleset | Mapping[str, object]  # a preset id, a .toml path, a spec table or a Ruleset
Fields = dict[str, np.ndarray | int]  # an observation's fields (a `Discrete` space's: a number)
Observation = Fields | np.ndarray  # the fields, or one vector (`flat`)
Info = dict[str, np.ndarray | float | bool]


def ruleset_of(rules: RulesArg, options: Mapping[str, object] | None = None) -> Ruleset:
    """A preset id (with options), a ruleset .toml file, a ruleset spec dict or a `Ruleset`."""
    if isinstance(rules, Ruleset):
        return rules
    if isinstance(rules, Mapping):
        return load_ruleset(rules, options)
    if rules.endswith(".toml"):
        return load_ruleset_arg(rules)
    return load_ruleset(rules, options)


class Layout:
    """The action and observation layout of one ruleset and table size."""

    def __init__(self, rules: Ruleset, players: int) -> None:
        self.rules = rules
        self.players = players
        self.n_dice = rules.rolled_dice
        self.B = rules.n_boxes
        self.K = 1 << self.n_dice
        self.n_actions = self.K + 3 * self.B + 1
        self.box_ids = tuple(rules.box_id(b) for b in range(self.B))
        limit = POINTS_LIMIT
        self.max_saved = (rules.rolls_per_turn - 1) * self.B if rules.save_rolls else 0
        self.voids = rules.voids_at_entry
        fields: dict[str, spaces.Space[Any]] = {
            "dice": spaces.Box(0, 6, (self.n_dice,), dtype=np.int64),
            "held": spaces.MultiBinary(self.n_dice),
            "rolls": spaces.Discrete(rules.rolls_per_turn + self.max_saved + 1),
            "sheets": spaces.Box(-1, limit, (players, self.B), dtype=np.int64),
            "totals": spaces.Box(-limit * self.B, limit * self.B, (players,), dtype=np.int64),
            "announced": spaces.Discrete(self.B + 1),
            "action_mask": spaces.MultiBinary(self.n_actions),
        }
        if rules.save_rolls:
            fields["saved"] = spaces.Box(0, self.max_saved, (players,), dtype=np.int64)
        if self.voids:
            fields["voided"] = spaces.MultiBinary((players, self.B))
        self.observation_space = spaces.Dict(fields)
        self.action_space = spaces.Discrete(self.n_actions)

    # -- actions ---------------------------------------------------------------------------------
    def mask(self, state: GameState, p: int) -> np.ndarray:
        out = np.zeros(self.n_actions, dtype=np.int8)
        if state.finished or p not in state.to_act() or not state.turns[p].rolls:
            return out
        if state.can_roll(p):
            out[: self.K - 1] = 1  # every hold but all dice
        for action in state.legal_actions(p):
            if isinstance(action, Score):
                b = self.rules.parse_box(action.box)
                assert b is not None
                out[self.K + (self.B if action.strike else 0) + b] = 1
            elif isinstance(action, Announce):
                b = self.rules.parse_box(action.box)
                assert b is not None
                out[self.K + 2 * self.B + b] = 1
            elif isinstance(action, Withdraw):
                out[self.K + 3 * self.B] = 1
        return out

    def action(self, index: int, p: int) -> Action:
        """The engine action of an action index (any index in range; legality is the engine's)."""
        index = int(index)
        if not 0 <= index < self.n_actions:
            raise ValueError(f"action {index} is outside 0..{self.n_actions - 1}")
        if index < self.K:
            return Roll(p, held=tuple(i for i in range(self.n_dice) if index >> i & 1))
        index -= self.K
        if index < self.B:
            return Score(p, self.box_ids[index])
        index -= self.B
        if index < self.B:
            return Score(p, self.box_ids[index], strike=True)
        index -= self.B
        if index < self.B:
            return Announce(p, self.box_ids[index])
        return Withdraw(p)

    def index(self, action: Action) -> int:
        """The action index of an engine action (what a bot chose), the inverse of `action`."""
        if isinstance(action, Roll):
            return sum(1 << i for i in action.held or ())
        if isinstance(action, Score):
            b = self.rules.parse_box(action.box)
            assert b is not None
            return self.K + (self.B if action.strike else 0) + b
        if isinstance(action, Announce):
            b = self.rules.parse_box(action.box)
            assert b is not None
            return self.K + 2 * self.B + b
        if isinstance(action, Withdraw):
            return self.K + 3 * self.B
        raise ValueError(f"no action index for {action!r}")

    # -- observations ----------------------------------------------------------------------------
    def observe(self, state: GameState, p: int) -> Fields:
        turn = state.turns[p]
        dice = np.zeros(self.n_dice, dtype=np.int64)
        dice[: len(turn.dice)] = turn.dice
        held = np.zeros(self.n_dice, dtype=np.int8)
        for i in turn.held:
            held[i] = 1
        seats = [p] + [o for o in range(self.players) if o != p]
        sheets = np.array([[-1 if v is None else v for v in state.sheets[o].written] for o in seats], dtype=np.int64)
        announced = self.B if turn.announced is None else int(turn.announced)
        out: Fields = {
            "dice": dice,
            "held": held,
            "rolls": len(turn.rolls),
            "sheets": sheets,
            "totals": np.array([state.total(o) for o in seats], dtype=np.int64),
            "announced": announced,
            "action_mask": self.mask(state, p),
        }
        if self.rules.save_rolls:
            out["saved"] = np.array([state.sheets[o].saved for o in seats], dtype=np.int64)
        if self.voids:
            voided = np.zeros((self.players, self.B), dtype=np.int8)
            for i, o in enumerate(seats):
                voided[i, sorted(state.sheets[o].voided)] = 1
            out["voided"] = voided
        return out


def flatten(space: spaces.Dict, observation: Fields) -> np.ndarray:
    """One observation as one vector (`gymnasium.spaces.flatten`, which gives a `Dict` space's as an array)."""
    flat = spaces.flatten(space, observation)
    assert isinstance(flat, np.ndarray)
    return flat


def flat_space(space: spaces.Dict) -> spaces.Box:
    """The flat observation space (`gymnasium.spaces.flatten_space` of the `Dict`)."""
    return spaces.flatten_space(space)  # type: ignore[return-value]


def flatten_batch(space: spaces.Dict, batch: dict[str, np.ndarray]) -> np.ndarray:
    """(N, flatdim) int64: row i is `gymnasium.spaces.flatten(space, observation i)`, for N
    observations batched field by field (the vector environment's), without a loop over them."""
    parts = []
    for key, sub in space.spaces.items():  # the Dict's own (sorted) key order, as flatten walks it
        value = np.asarray(batch[key])
        n = value.shape[0]
        if isinstance(sub, spaces.Discrete):
            one_hot = np.zeros((n, int(sub.n)), dtype=np.int64)
            one_hot[np.arange(n), value - int(sub.start)] = 1
            parts.append(one_hot)
        else:
            parts.append(value.reshape(n, -1).astype(np.int64))
    return np.concatenate(parts, axis=1)
