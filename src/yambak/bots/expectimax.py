"""The heuristic bot: an exact expectimax over the turn, positions valued by `evaluate.Model`.

Each turn (a sheet and an announcement) gets a *plan*: for every box fillable
after roll m (order, roll restrictions and announcements from the engine), the
terminal value of ending there with each of the 252 hands, i.e. the change in
the estimated final total (`Model.box_gain`, gathered at the points the hand
writes after roll m, so Yamb's 66/56/46 straight is exact). Yammen's
last-resort rule is honoured per hand: a plus/min entry that zeroes the pair
only counts where no other box is fillable. The widget (`_widget.turn_stages`)
then gives the value of every keep after rolls 1 and 2. After roll 1 every
announceable box a is weighed by the same widget with the turn forced to end
in a. Every decision compares: each legal box now, the best keep (if a roll is
allowed), each announcement; the best wins (ties: scoring first, then rolling,
then announcing, boxes in sheet order).

Five dice, or six that all count (`dice = 6`, on the six-dice lattice); rulesets
rolling six of which five count (the six_dice modifier) fall back to greedy.
Saved rolls (save_rolls): the turn may roll as often as the player has rolls, and
each end of the turn is worth what it leaves saved (`Model.saved_change`). `match.py` passes a `gain_fn` that
values boxes in expected match points instead; `strong.py` picks between this,
the match-aware play and the exact table (`optimal.py`).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

import numpy as np

from ..engine import Action, Announce, GameState, Roll, Score
from ..solver import dice as D
from ._widget import follow_values, keep_transition, turn_ends, turn_stages
from .baseline import greedy
from .evaluate import Model, joker_hands
from .models import model_for

__all__ = [
    "Choices",
    "Plan",
    "evaluate_choices",
    "follow_values",
    "held_positions",
    "heuristic",
    "keep_transition",
    "plan_for",
    "turn_ends",
]

_CACHE_LIMIT = 512

GainFn = Callable[[int], np.ndarray]  # a box's terminal value for every roll of the turn's table
JokerFn = Callable[[int, int, int], float]  # (box, written, extra bonus) -> the value of a joker entry


@dataclass
class Plan:
    values: dict[int, list[np.ndarray | None]]  # box -> per roll m (1..R): (252,) terminal values or None
    V: list[np.ndarray]
    E: list[np.ndarray]
    announce: list[int]  # announceable boxes after roll 1 (when nothing is announced)
    V_announce: np.ndarray | None  # (252, A): value after roll 1 of announcing each box
    T: list[np.ndarray] = field(default_factory=list)  # T[m - 1]: (252,) best terminal value after roll m
    E_announce: list[np.ndarray] = field(default_factory=list)  # the announced turns' keep values (462, A)
    # per roll m: the boxes fillable then and, for each, the hands whose entry zeroes its pair (last resort)
    candidates: list[list[tuple[int, np.ndarray | None]]] = field(default_factory=list)

    chosen: dict[int, np.ndarray] = field(default_factory=dict)

    def announced(self, box: int, table: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """The turn once `box` is announced after roll 1 (`table`: the model's score table): its
        terminal values and keep values by roll, as `turn_stages` gives them."""
        j = self.announce.index(box)
        gain = self.values[box][0]
        row = box % table.shape[0]
        terminal = [gain[table[row, min(m, table.shape[1] - 1)]] for m in range(1, len(self.T) + 1)]  # type: ignore[index]
        return terminal, [e[:, j] if e.size else e for e in self.E_announce]

    def choice(self, m: int) -> np.ndarray:
        """(252,) the box the plan ends the turn in after roll m, per hand (-1 where none may be
        filled): the best terminal value, a last-resort entry only where no other box is fillable,
        ties in sheet order (as `heuristic` chooses)."""
        if m not in self.chosen:
            self.chosen[m] = self._choice(m)
        return self.chosen[m]

    def _choice(self, m: int) -> np.ndarray:
        boxes = self.candidates[m - 1]
        n_hands = len(self.T[0])
        if not boxes:
            return np.full(n_hands, -1)
        stack = np.stack([np.asarray(self.values[b][m], dtype=float) for b, _ in boxes])
        risky = np.stack([z if z is not None else np.zeros(n_hands, dtype=bool) for _, z in boxes])
        any_safe = np.logical_not(risky).any(axis=0, keepdims=True)
        stack = np.where(risky & any_safe, -np.inf, stack)
        out = np.array([b for b, _ in boxes])[stack.argmax(axis=0)]
        return np.where(np.isfinite(stack.max(axis=0)), out, -1)


def held_positions(dice: tuple[int, ...], keep: tuple[int, ...]) -> tuple[int, ...]:
    """Die positions that hold the multiset `keep`."""
    used: list[int] = []
    for v in keep:
        for i, d in enumerate(dice):
            if d == v and i not in used:
                used.append(i)
                break
    return tuple(sorted(used))


def _terminal(
    state: GameState,
    p: int,
    model: Model,
    boxes: list[int],
    m: int,
    values: dict[int, list[np.ndarray | None]],
    gain_fn: GainFn,
    candidates: list[list[tuple[int, np.ndarray | None]]],
    joker_fn: JokerFn | None = None,
) -> np.ndarray:
    """T_m: the best terminal value per hand over `boxes` after roll m (-inf when empty); the boxes
    and their last-resort hands are appended to `candidates`."""
    rules = state.rules
    n = rules.n_rows
    sheet = state.sheets[p]
    n_hands = model.table.shape[2]
    saved = model.saved_change(sheet, m)  # what this end leaves saved (save_rolls)
    safe = np.full(n_hands, -np.inf)
    risky = np.full(n_hands, -np.inf)
    any_safe = np.zeros(n_hands, dtype=bool)
    seen: list[tuple[int, np.ndarray | None]] = []
    candidates.append(seen)
    for b in boxes:
        if b not in values:
            values[b] = [None] * (len(values_rolls(state, p)) + 1)
            values[b][0] = gain_fn(b)
        gain = values[b][0]
        row = rules.rows[b % n]
        written = model.table[b % n, min(m, model.table.shape[1] - 1)]
        if not sheet.needed_scored(rules, b):
            written = np.zeros_like(written)  # the box it needs scored 0: this one can only score 0
        v = gain[written]  # type: ignore[index]
        if row.wins_by_roll >= m and rules.win_points is not None:  # an outright win ends the game
            won = state.total(p) + written + rules.win_points - model.estimate(sheet)
            v = np.where(written > 0, won, v)
        if saved:
            v = v + saved
        values[b][m] = v
        bounds = [bound for bound in state.entry_bounds(b, p) if bound.last_resort]
        z = bounds[0].hits(written) if bounds else None
        seen.append((b, z))
        if z is None:
            np.maximum(safe, v, out=safe)
            any_safe[:] = True
        else:
            np.maximum(safe, np.where(z, -np.inf, v), out=safe)
            np.maximum(risky, np.where(z, v, -np.inf), out=risky)
            any_safe |= ~z
    out = np.where(any_safe, safe, risky)
    if rules.joker is not None and boxes:
        _joker_terminal(state, p, boxes, m, values, out, joker_fn)
    return out


def values_rolls(state: GameState, p: int) -> range:
    """The roll numbers of the seat's turn: 1 to the rolls it may make (saved rolls included)."""
    return range(1, state.rolls_allowed(p) + 1)


def _joker_terminal(
    state: GameState,
    p: int,
    boxes: list[int],
    m: int,
    values: dict[int, list[np.ndarray | None]],
    out: np.ndarray,
    joker_fn: JokerFn | None = None,
) -> None:
    """The six yam hands once the joker is on (the model's `joker_hands`): their best value and each box's.
    `joker_fn(box, written, extra)` values such an entry (default: the box's gain at `written` plus the
    extra bonus, in points)."""
    for hand, options in joker_hands(state.rules, state.sheets[p], boxes, m):
        best = -np.inf
        for b, w, extra in options:
            if joker_fn is not None:
                v = float(joker_fn(b, w, extra))
            else:
                v = float(values[b][0][w]) + extra  # type: ignore[index]
            values[b][m][hand] = v  # type: ignore[index]
            best = max(best, v)
        out[hand] = best


def plan_for(
    state: GameState,
    p: int,
    model: Model,
    gain_fn: GainFn | None = None,
    key_extra: Hashable = None,
    joker_fn: JokerFn | None = None,
) -> Plan:
    """The turn's plan for seat p (cached per sheet, announcement and `key_extra`): `gain_fn(box)` gives
    the (W,) terminal value of writing each value there (default: the model's change of the estimated
    total), `joker_fn` the value of a joker entry (see `_joker_terminal`)."""
    rules = state.rules
    sheet = state.sheets[p]
    announced = state.turns[p].announced
    key = (sheet.written, sheet.voided, sheet.saved, announced, key_extra)
    hit: Plan | None = model.cache.get(key)
    if hit is not None:
        return hit
    if gain_fn is None:

        def gain_fn(b: int) -> np.ndarray:
            return model.box_gain(sheet, b)

    R = state.rolls_allowed(p)  # saved rolls (save_rolls) make a turn longer
    values: dict[int, list[np.ndarray | None]] = {}
    candidates: list[list[tuple[int, np.ndarray | None]]] = []
    T = [
        _terminal(state, p, model, state.fillable(m, p, announced), m, values, gain_fn, candidates, joker_fn)
        for m in range(1, R + 1)
    ]
    V, E = turn_stages(T)
    announce: list[int] = []
    V_announce = None
    E_announce: list[np.ndarray] = []
    if announced is None:
        announce = [b for b in state.fillable(1, p) if rules.columns[b // rules.n_rows].announce]
        if announce:
            Ta = []
            for m in range(1, R + 1):
                cols = []
                for a in announce:
                    if a not in values:
                        values[a] = [None] * (R + 1)
                        values[a][0] = gain_fn(a)
                    m_ = min(m, model.table.shape[1] - 1)
                    cols.append(values[a][0][model.table[a % rules.n_rows, m_]])  # type: ignore[index]
                Ta.append(np.stack(cols, axis=1))
            Va, E_announce = turn_stages(Ta)
            V_announce = Va[1]
    plan = Plan(values, V, E, announce, V_announce, T, E_announce, candidates)
    if len(model.cache) > _CACHE_LIMIT:
        model.cache.clear()
    model.cache[key] = plan
    return plan


@dataclass(frozen=True)
class Choices:
    """Every choice of a decision with the bot's value for it (the change of its estimate):
    each legal box now, each keep (the dice held for another roll), each announcement."""

    boxes: list[tuple[int, float]]  # (box index, value), sheet order
    keeps: list[tuple[tuple[int, ...], float]]  # (kept dice, value), the hand's proper sub-keeps
    announces: list[tuple[int, float]]  # (box index, value)


def evaluate_choices(
    state: GameState,
    p: int,
    model: Model,
    gain_fn: GainFn | None = None,
    key_extra: Hashable = None,
    joker_fn: JokerFn | None = None,
) -> Choices:
    """The plan's value of every choice open to seat p after a roll (five dice)."""
    turn = state.turns[p]
    rules = state.rules
    plan = plan_for(state, p, model, gain_fn, key_extra, joker_fn)
    k = len(turn.rolls)
    L = D.lattice(rules.dice)
    hand = L.roll_index(turn.dice)
    boxes = []
    for b in state.legal_boxes(p):
        vals = plan.values.get(b)
        v = vals[k] if vals is not None else None
        boxes.append((b, float(v[hand]) if v is not None else -1e9))
    keeps = []
    if k < state.rolls_allowed(p) and state.can_roll(p):
        values = plan.E[k]
        whole = L.FULL + hand
        for keep in L.SUBKEEPS[hand, : L.N_SUBKEEPS[hand]]:
            if keep != whole:  # holding all the dice is not a roll
                keeps.append((L.MULTISETS[int(keep)], float(values[keep])))
    announces = []
    if k == 1 and plan.V_announce is not None:
        announces = [(a, float(v)) for a, v in zip(plan.announce, plan.V_announce[hand], strict=True)]
    return Choices(boxes, keeps, announces)


def heuristic(
    state: GameState,
    player: int,
    rng: random.Random,
    gain_fn: GainFn | None = None,
    key_extra: Hashable = None,
    model: Model | None = None,
) -> Action:
    """The expectimax decision with the model's estimate (any ruleset whose thrown dice all count)."""
    p = player
    turn = state.turns[p]
    if not turn.rolls:
        return Roll(p)
    rules = state.rules
    if rules.rolled_dice != rules.dice:  # six rolled, five count: greedy
        return greedy(state, p, rng)
    model = model or model_for(rules)
    choices = evaluate_choices(state, p, model, gain_fn, key_extra)
    best: tuple[float, Action] | None = None
    for b, value in choices.boxes:  # ties: scoring first, then rolling, then announcing
        if best is None or value > best[0]:
            best = (value, Score(p, rules.box_id(b)))
    if choices.keeps:
        keep, value = max(choices.keeps, key=lambda kv: kv[1])
        if best is None or value > best[0]:
            best = (value, Roll(p, held=held_positions(turn.dice, keep)))
    if choices.announces:
        box, value = max(choices.announces, key=lambda av: av[1])
        if best is None or value > best[0]:
            best = (value, Announce(p, rules.box_id(box)))
    if best is None:
        return greedy(state, p, rng)
    return best[1]
