"""The advisor: the expected final score of every keep and every box in one position.

Only the turn-start table is stored, so a query rebuilds the widget of the one
state it is in (a few hundred microseconds) and reads off the stage it needs.
Values are expected *final* scores: points already on the sheet plus the
table's expectation of the points still to come.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import FrozenInstanceError, dataclass
from itertools import repeat
from operator import itemgetter
from types import ModuleType
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..viewtypes import JSONObject
from . import dice as D
from ._induction import box_values, keep_values
from ._layout import SolverRules, solver_rules
from .table import Strategy

if TYPE_CHECKING:  # the kernels' module compiles numba code: imported at run time only when needed
    from ..engine import GameState
    from ..rules import Ruleset
    from ._kernels import RuleArgs

__all__ = [
    "Advice",
    "Choice",
    "Position",
    "PositionError",
    "advise",
    "TurnTable",
    "check_position",
    "position_key",
    "position_of",
    "position_state",
    "position_values",
    "turn_table",
]


class PositionError(ValueError):
    """A position that cannot occur under the ruleset (bad dice, unknown box, impossible value)."""


@dataclass(frozen=True)
class Position:
    """A player's situation during a turn.

    `roll` is the number of rolls made this turn (0 with no dice: the turn start).
    `filled` maps row ids (or `column.row` box ids) to the value written there, 0 for a
    scratch. `held` is the dice currently held; holding is free and may be undone
    (docs/rules.md §1), so it only marks which keep is current.
    `extra_bonus` counts joker bonuses already won, for the final-score figures.
    """

    filled: Mapping[str, int]
    dice: tuple[int, ...] = ()
    roll: int = 0
    held: tuple[int, ...] = ()
    extra_bonus: int = 0
    voided: frozenset[str] = frozenset()  # rows whose entry scored 0 at entry (min_lt_max_at_entry)


class Choice(NamedTuple):
    """One option: hold `keep` and roll again, or fill `box` for `points`. (A named tuple, not a
    dataclass: an answer makes some forty of them, and the coach's budget is counted in microseconds.)"""

    value: float  # expected final score after this choice
    keep: tuple[int, ...] | None = None
    box: str | None = None
    points: int | None = None  # what the box adds now, bonuses included
    current: bool = False  # this keep is the dice currently held
    wins: bool = False  # the entry wins the game at once (docs/rules.md §7): `value` counts it as win_points

    def label(self) -> str:
        if self.box is not None:
            return f"score {self.box} ({self.points}{', wins outright' if self.wins else ''})"
        return "reroll all" if not self.keep else "keep " + " ".join(map(str, self.keep))

    def to_dict(self) -> JSONObject:
        if self.box is not None:
            out: JSONObject = {"box": self.box, "points": self.points, "value": self.value}
            if self.wins:
                out["wins"] = True
            return out
        return {"keep": [*(self.keep or ())], "value": self.value}


class Advice:
    """Every keep (after a roll that may be followed by another) and every legal box, best first.

    Frozen; equal when its fields are. `advise` values every choice and names the best at once, but makes
    the `Choice` objects of `keeps` and `boxes` when they are first read: a bot reads `best` alone, and the
    forty-odd tuples an answer holds cost more than its numbers."""

    __slots__ = ("score", "value", "best", "_keeps", "_boxes", "_source")
    score: int  # points already on the sheet, bonuses included
    value: float  # expected final score of the position under optimal play
    best: Choice | None  # None at the turn start: the only move is to roll
    _keeps: tuple[Choice, ...] | None  # None until read (`_source` makes them)
    _boxes: tuple[Choice, ...] | None
    _source: _Numbers | None

    def __init__(
        self, score: int, value: float, keeps: tuple[Choice, ...] = (), boxes: tuple[Choice, ...] = ()
    ) -> None:
        choices = keeps + boxes
        best = max(choices, key=_BY_VALUE) if choices else None
        for name, v in zip(self.__slots__, (score, value, best, keeps, boxes, None), strict=True):
            object.__setattr__(self, name, v)

    @property
    def keeps(self) -> tuple[Choice, ...]:
        keeps = self._keeps
        if keeps is None:
            assert self._source is not None
            keeps = _keep_choices(self._source, self.best)
            object.__setattr__(self, "_keeps", keeps)
        return keeps

    @property
    def boxes(self) -> tuple[Choice, ...]:
        boxes = self._boxes
        if boxes is None:
            assert self._source is not None
            boxes = _box_choices(self._source, self.best)
            object.__setattr__(self, "_boxes", boxes)
        return boxes

    def _fields(self) -> tuple[object, ...]:
        return self.score, self.value, self.keeps, self.boxes, self.best

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, Advice) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "Advice(score={!r}, value={!r}, keeps={!r}, boxes={!r}, best={!r})".format(*self._fields())

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[object, ...]:
        return Advice, (self.score, self.value, self.keeps, self.boxes)

    def to_dict(self) -> JSONObject:
        return {
            "score": self.score,
            "value": self.value,
            "best": self.best.to_dict() if self.best else None,
            "keeps": [c.to_dict() for c in self.keeps],
            "boxes": [c.to_dict() for c in self.boxes],
        }


class _Numbers(NamedTuple):
    """What an answer's choices are made from: the points on the sheet, the final score of each keep the
    hand allows (in `_HAND_KEEPS` order; None after the last roll), the hand, the current keep's multiset
    index, the value and points of filling each row (-inf: it may not be), the row ids, and whether each
    row's entry wins at once on this roll (where it scores)."""

    score: int
    keeps: np.ndarray | None
    hand: int
    held: int
    rows: np.ndarray
    points: np.ndarray
    row_ids: tuple[str, ...]
    wins: tuple[bool, ...]


def _keep_choices(n: _Numbers, best: Choice | None) -> tuple[Choice, ...]:
    if n.keeps is None:
        return ()
    _, dice, where = _HAND_KEEPS[n.hand]
    current = [False] * len(dice)
    at = where.get(n.held)
    if at is not None:
        current[at] = True
    # the tuples made and filled in C: no Python frame per choice
    none, false = repeat(None), repeat(False)  # endless: the zip stops with the values
    keeps = list(map(_NEW, repeat(Choice), zip(n.keeps.tolist(), dice, none, none, current, false, strict=False)))
    keeps.sort(key=_BY_VALUE, reverse=True)  # best first; stable: sheet order among equals
    if best is not None and best.keep is not None:
        keeps[0] = best  # the same Choice (an equal one was made): `best` is one of the listed choices
    return tuple(keeps)


def _box_choices(n: _Numbers, best: Choice | None) -> tuple[Choice, ...]:
    score, new, low, high = n.score, _NEW, -math.inf, math.inf
    # an entry that scores by its row's wins_by_roll wins at once, as the solver counts it (_induction)
    rows = [
        new(Choice, (score + v, None, row, pts, False, wins and pts > 0))
        for row, v, pts, wins in zip(n.row_ids, n.rows.tolist(), n.points.tolist(), n.wins, strict=True)
        if low < v < high
    ]
    rows.sort(key=_BY_VALUE, reverse=True)
    if best is not None and best.box is not None:
        rows[0] = best  # as for the keeps
    return tuple(rows)


_BY_VALUE = itemgetter(0)  # Choice.value, read in C


_POSSIBLE: dict[tuple[int, int], tuple[SolverRules, frozenset[int]]] = {}


def _possible(sr: SolverRules, box: int) -> frozenset[int]:
    """The values row `box` can hold (0 for a scratch), kept per ruleset: a hint reads it per filled box."""
    hit = _POSSIBLE.get((id(sr), box))
    if hit is not None and hit[0] is sr:
        return hit[1]
    face = int(sr.upper_face[box])
    values = {face * c for c in range(D.DICE + 1)} if face else {int(v) for v in sr.score_by_roll[1:, box].ravel()}
    out = frozenset(values | {0})
    if len(_POSSIBLE) > 4096:
        _POSSIBLE.clear()
    _POSSIBLE[(id(sr), box)] = (sr, out)
    return out


_NAMES: dict[int, tuple[SolverRules, dict[str, tuple[int, int, frozenset[int]]]]] = {}


def _names(sr: SolverRules) -> dict[str, tuple[int, int, frozenset[int]]]:
    """Per ruleset: each box name a position has used -> (box, upper face, the values it can hold), so
    that a hint does not parse its names again (`parse_box` is the authority: a name is added after it)."""
    hit = _NAMES.get(id(sr))
    if hit is not None and hit[0] is sr:
        return hit[1]
    if len(_NAMES) > 64:
        _NAMES.clear()
    names: dict[str, tuple[int, int, frozenset[int]]] = {}
    _NAMES[id(sr)] = (sr, names)
    return names


def position_state(strategy: Strategy, position: Position) -> tuple[int, int, int, int]:
    """(filled-box key (see `_layout`), capped upper sum, yam flag, points on the sheet), or PositionError."""
    return position_key(strategy.rules, position)


def check_position(ruleset: Ruleset, position: Position) -> None:
    """PositionError when `position` is not one of the ruleset's (or `UnsupportedRuleset`): what a command
    checks before it solves a table, so that bad input costs nothing."""
    position_key(solver_rules(ruleset), position)


_SHEETS: dict[
    tuple[int, tuple[tuple[str, int], ...], frozenset[str]], tuple[SolverRules, tuple[type, ...], tuple[int, ...]]
] = {}


def position_key(sr: SolverRules, position: Position) -> tuple[int, int, int, int]:
    """(filled-box key, capped upper sum, yam flag, points on the sheet) of a valid position, or PositionError."""
    boxes, upper, yam, score, _, _ = _checked(sr, position)
    return boxes, upper, yam, score


_FIVE_INTS = (int,) * D.DICE


def _checked(sr: SolverRules, position: Position) -> tuple[int, int, int, int, int, int]:
    """`position_key`'s four, the hand's roll index (-1 before the first roll) and the held dice's multiset
    index (`dice.keep_index`), or PositionError."""
    # the sheet's part (boxes, upper, yam, points), kept per sheet: a turn asks about one sheet three times,
    # and a game's sheets recur in the coach and the bots; its values' types are compared too (3.0 == 3)
    filled = position.filled
    try:
        key = (id(sr), tuple(filled.items()), position.voided)
        hit = _SHEETS.get(key)
    except TypeError:  # an unhashable value or voided: the checks below say what is wrong
        key, hit = None, None
    if hit is not None and hit[0] is sr and hit[1] == tuple(map(type, filled.values())):
        boxes, upper, yam, score = hit[2]
    else:
        boxes, upper, yam, score = _sheet_key(sr, position)
        if key is not None:
            if len(_SHEETS) > 4096:
                _SHEETS.clear()
            _SHEETS[key] = (sr, tuple(map(type, filled.values())), (boxes, upper, yam, score))
    roll, dice = position.roll, position.dice
    if not isinstance(roll, int) or not 0 <= roll <= sr.rolls:
        raise PositionError(f"roll must be 1 to {sr.rolls} (0 before the first roll)")
    hand = -1
    if roll and len(dice) == D.DICE and tuple(map(type, dice)) == _FIVE_INTS:  # the usual case, checked at once:
        hand = D.INDEX.get(tuple(sorted(dice)), -1)  # five ints are a hand when they are five faces
        hand = hand - D.FULL if hand >= 0 else -1
    if hand < 0:
        n_dice = D.DICE if roll else 0
        if len(dice) != n_dice or any(not isinstance(d, int) or not 1 <= d <= D.FACES for d in dice):
            raise PositionError(
                f"dice must be {D.DICE} values from 1 to {D.FACES}" if n_dice else "no dice before the first roll"
            )
        hand = D.roll_index(dice) if roll else -1
    held = 0  # no dice held: the keep of none
    if position.held:
        try:
            held = D.INDEX.get(tuple(sorted(position.held)), -1)
        except TypeError:  # not comparable: not dice
            held = -1
        # the held multiset is one of the hand's (its keeps, or all five)
        if hand < 0 or (held not in _HAND_KEEPS[hand][2] and held != D.FULL + hand):
            raise PositionError("held dice must be among the dice")
    if position.extra_bonus < 0:
        raise PositionError("extra bonus cannot be negative")
    return boxes, upper, yam, score + position.extra_bonus, hand, held


def _sheet_key(sr: SolverRules, position: Position) -> tuple[int, int, int, int]:
    """(boxes, capped upper sum, yam flag, points) of the position's sheet, or PositionError."""
    ruleset = sr.ruleset
    boxes = upper = score = 0
    names = _names(sr)
    for name, value in position.filled.items():
        known = names.get(name)
        if known is None:
            box = ruleset.parse_box(name)
            if box is None:
                raise PositionError(f"no box {name!r} in {ruleset.id} (rows: {', '.join(r.id for r in ruleset.rows)})")
            known = names[name] = (box, int(sr.upper_face[box]), _possible(sr, box))
        box, face, possible = known
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise PositionError(f"{name}: {value!r} is not a box value")
        if boxes >> box & 1:
            raise PositionError(f"box {name!r} given twice")
        if value not in possible:
            raise PositionError(f"{name}: {value} cannot be written there")
        boxes |= 1 << box
        score += value
        if face:
            upper += value
    if boxes == sr.full_mask:
        raise PositionError("the sheet is full: nothing left to decide")
    if sr.order and not bool(sr.reachable_mask(np.array(boxes))):
        order = ruleset.columns[0].order
        raise PositionError(f"{ruleset.id} is filled in order ({order}): no game leaves exactly these boxes filled")
    if sr.rel_high >= 0:  # a complete pair scores as its relation says; a lone box is remembered
        values = {i: int(v) for name, v in position.filled.items() if (i := ruleset.parse_box(name)) is not None}
        high, low = values.get(sr.rel_high), values.get(sr.rel_low)
        if high is not None and low is not None:
            if sr.rel_at_entry:  # the entry that broke min < max scored 0 (the position says which)
                for i in (sr.rel_high, sr.rel_low):
                    if ruleset.rows[i].id in position.voided or ruleset.box_id(i) in position.voided:
                        score -= values[i]
            elif high <= low:
                score -= high + low
        elif high is not None or low is not None:
            boxes |= int(sr.pend_index[high if high is not None else low]) << sr.n_rows
    score += int(sr.bonus_at[min(upper, sr.n_upper - 1)]) if sr.stepped else 0
    if not sr.stepped and sr.threshold and upper >= sr.threshold:
        score += sr.bonus
    yam = 0
    if sr.n_yam == 2 and boxes >> sr.yam_row & 1:
        yam = int(
            position.filled.get(ruleset.rows[sr.yam_row].id, 0) > 0
            or position.filled.get(ruleset.box_id(sr.yam_row), 0) > 0
        )
    return boxes, min(upper, sr.n_upper - 1), yam, score


class TurnTable(NamedTuple):
    """The optimal turn of one turn-start state, for every hand at once (what a distribution of the
    turn's outcomes reads): `values[row, h]` the expected final score of ending in `row` with hand h
    (-inf where it may not), `points[row, h]` what that entry adds (bonuses included), `keeps[m]`
    the (462,) expected final score of each keep after roll m (m = 1..rolls - 1; index 0 unused),
    `after[row, h]` the (boxes, upper, yam) key the entry leads to, `score` the points on the sheet."""

    score: int
    values: np.ndarray  # (n_rows, 252)
    points: np.ndarray  # (n_rows, 252)
    keeps: list[np.ndarray]
    after: np.ndarray  # (n_rows, 252, 3)


def turn_table(strategy: Strategy, position: Position) -> TurnTable:
    """The `TurnTable` of the turn-start state of `position` (its dice and roll are not read)."""
    sr = strategy.rules
    boxes, upper, yam, score = position_state(strategy, position)
    hands = np.arange(D.N_ROLLS)
    b, u, y = (np.full(D.N_ROLLS, v, dtype=np.int64) for v in (boxes, upper, yam))
    values = np.full((sr.n_rows, D.N_ROLLS), -np.inf)
    points = np.zeros((sr.n_rows, D.N_ROLLS), dtype=np.int64)
    after = np.zeros((sr.n_rows, D.N_ROLLS, 3), dtype=np.int64)
    from .simulate import after_entry

    for i, pts, value in box_values(sr, strategy.table, strategy.objective, b, u, y, hands):
        values[i] = score + value[:, 0]
        points[i] = pts
        row = np.full(D.N_ROLLS, i, dtype=np.int64)
        after[i] = np.stack(after_entry(sr, row, hands, pts, b, u, y), axis=1)
    stages = keep_values(sr, strategy.table, np.array([sr.flat(boxes, upper, yam)]))[0] if sr.rolls > 1 else []
    keeps = [np.zeros(0)] + [score + stages[m - 1] for m in range(1, sr.rolls)]
    return TurnTable(score, values, points, keeps, after)


def position_values(
    strategy: Strategy, position: Position, state: tuple[int, int, int, int] | None = None
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """The advisor's raw numbers, compiled (one state, no padding): (points on the sheet, keep values
    after this roll (462, expected points still to come; empty after the last roll), the value of
    filling each row with these dice (n_rows, -inf where it may not be filled), the points each
    adds). For callers that want numbers, not `Choice` objects; `advise` reads them too."""
    sr = strategy.rules
    boxes, upper, yam, score, hand, _ = _checked(sr, position)
    if state is not None:
        boxes, upper, yam, score = state
    if not position.roll:
        raise PositionError("no dice: roll first")
    keeps, rows, points, _, _ = _numbers(strategy, _prepared(sr), (boxes, upper, yam), hand, position.roll, score)
    return score, keeps if position.roll < sr.rolls else np.empty(0), rows, points


class _Prepared(NamedTuple):
    """What every compiled answer in one ruleset reads, made once: the kernels and their rule arguments."""

    sr: SolverRules
    kernels: ModuleType  # yambak.solver._kernels
    args: RuleArgs


_PREPARED: dict[int, _Prepared] = {}


def _prepared(sr: SolverRules) -> _Prepared:
    hit = _PREPARED.get(id(sr))
    if hit is not None and hit.sr is sr:
        return hit
    if _compiled_ready():  # compiled already (in this process or on disk): no first-run announcement
        K = sys.modules["yambak.solver._kernels"]
    else:
        from .compiled import kernels

        K = kernels()
    if len(_PREPARED) > 64:
        _PREPARED.clear()
    hit = _PREPARED[id(sr)] = _Prepared(sr, K, K.rule_args(sr))
    return hit


_ROWS: dict[int, tuple[object, tuple[str, ...], tuple[tuple[bool, ...], ...]]] = {}


def _rows(sr: SolverRules) -> tuple[tuple[str, ...], tuple[tuple[bool, ...], ...]]:
    """Per ruleset, made once: the row ids, and per roll m whether each row's entry wins at once
    (`sr.wins[i] >= m`)."""
    hit = _ROWS.get(id(sr))
    if hit is not None and hit[0] is sr:
        return hit[1], hit[2]
    wins = tuple(tuple(bool(w >= m) for w in sr.wins.tolist()) for m in range(sr.rolls + 1))
    if len(_ROWS) > 64:
        _ROWS.clear()
    _ROWS[id(sr)] = (sr, tuple(r.id for r in sr.ruleset.rows), wins)
    return _ROWS[id(sr)][1], wins


def _numbers(
    strategy: Strategy, prep: _Prepared, key: tuple[int, int, int], hand: int, roll: int, score: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[int, float, int, float]]:
    """The compiled kernel's keeps (462; not written after the last roll), row values, row points, the
    final score of each keep the hand allows, and its best keep and best row (`_kernels.position_values`)."""
    sr = strategy.rules
    keeps = np.empty(len(D.MULTISETS))
    rows = np.empty(sr.n_rows)
    points = np.empty(sr.n_rows, dtype=np.int64)
    hand_keeps = np.empty(len(_HAND_KEEPS[hand][1]))
    best = prep.kernels.position_values(
        strategy.table.reshape(-1), *key, hand, roll, prep.args, sr.rolls, keeps, rows, points, score, hand_keeps
    )  # fmt: skip
    return keeps, rows, points, hand_keeps, best


_READY = False


def _compiled_ready() -> bool:
    """Use the compiled position kernel when the process already has the kernels loaded and this one
    compiled (in memory or in numba's disk cache): never compile, nor import numba, for one hint."""
    global _READY
    if _READY:
        return True
    K = sys.modules.get("yambak.solver._kernels")
    if K is None:
        return False
    from .compiled import kernels_compiled

    _READY = bool(K.position_values.signatures) or kernels_compiled(("position_values",))
    return _READY


# Per hand (0..251): the keeps a roll may be followed by (every sub-multiset but the whole hand: holding all
# five is not a roll, docs/rules.md §1), as multiset indexes (an array), their dice, and each index's place.
_HAND_KEEPS: tuple[tuple[np.ndarray, list[tuple[int, ...]], dict[int, int]], ...] = tuple(
    (np.array(ks, dtype=np.int64), [D.MULTISETS[k] for k in ks], {k: j for j, k in enumerate(ks)})
    for ks in ([k for k in D.SUBKEEPS[h, : D.N_SUBKEEPS[h]].tolist() if k != D.FULL + h] for h in range(D.N_ROLLS))
)
_NEW = tuple.__new__  # a Choice made without its Python-level __new__
_NEW_ADVICE = object.__new__
_SET = object.__setattr__


def _first_best(values: list[float | None]) -> tuple[int, float]:
    """(index, value) of the first highest of `values` (None: not a choice), (-1, -inf) when none: as the
    compiled kernel names an answer's best (numpy path)."""
    at, best = -1, -math.inf
    for i, v in enumerate(values):
        if v is not None and (at < 0 or v > best):
            at, best = i, v
    return at, best


def advise(strategy: Strategy, position: Position, compiled: bool | None = None) -> Advice:
    """Expected final score of every keep and every legal box in `position` (MeanScore tables).

    `compiled` None: the compiled single-state kernel once the kernels are loaded in the process and
    this one is compiled (a server, a bot), numpy otherwise (a one-shot `yambak hint` does not pay
    numba's import or a compile); both give the same values."""
    if strategy.objective.width != 1:
        raise ValueError("the advisor reads expected-score tables (MeanScore)")
    sr = strategy.rules
    boxes, upper, yam, score, hand, held = _checked(sr, position)
    roll = position.roll
    if roll == 0:
        return Advice(score=score, value=score + float(strategy.table[sr.flat(boxes, upper, yam), 0]))
    more = roll < sr.rolls
    row_ids, wins = _rows(sr)
    keeps: np.ndarray | None
    if compiled if compiled is not None else _compiled_ready():
        _, row_values, row_points, keeps, (keep_at, keep_value, row_at, row_value) = _numbers(
            strategy, _prepared(sr), (boxes, upper, yam), hand, roll, score
        )
        if not more:
            keeps = None
    else:
        b, u, y = (np.array([v], dtype=np.int64) for v in (boxes, upper, yam))
        keeps, keep_at, keep_value = None, -1, -math.inf
        if more:
            stage = keep_values(sr, strategy.table, np.array([sr.flat(boxes, upper, yam)]))[0, roll - 1]
            keeps = stage[_HAND_KEEPS[hand][0]] + score  # the same doubles as score + each value
            keep_at, keep_value = _first_best(keeps.tolist())
        row_values = np.full(sr.n_rows, -math.inf)
        row_points = np.zeros(sr.n_rows, dtype=np.int64)
        for i, pts, value in box_values(sr, strategy.table, strategy.objective, b, u, y, np.array(hand), roll):
            row_values[i], row_points[i] = value[0, 0], pts[0]
        row_at, row_value = _first_best([score + v if -math.inf < v < math.inf else None for v in row_values.tolist()])
    # the best: the first highest keep, unless a box is worth more (ties go to the keep, listed first)
    best: Choice | None = None
    if keep_at >= 0 and (row_at < 0 or keep_value >= row_value):
        ids, dice, _ = _HAND_KEEPS[hand]
        best = _NEW(Choice, (keep_value, dice[keep_at], None, None, int(ids[keep_at]) == held, False))
    elif row_at >= 0:
        got = int(row_points[row_at])
        best = _NEW(Choice, (row_value, None, row_ids[row_at], got, False, wins[roll][row_at] and got > 0))
    advice = _NEW_ADVICE(Advice)
    _SET(advice, "score", score)
    _SET(advice, "value", best[0] if best else -math.inf)
    _SET(advice, "best", best)
    _SET(advice, "_keeps", None)
    _SET(advice, "_boxes", None)
    _SET(advice, "_source", _Numbers(score, keeps, hand, held, row_values, row_points, row_ids, wins[roll]))
    return advice


def position_of(state: GameState, player: int | None = None) -> Position:
    """The position of a seat (the seat to act by default) in an engine `GameState` (single-column rulesets)."""
    if state.finished:
        raise PositionError("the game is over: nothing left to decide")
    ruleset = state.rules
    p = state.current if player is None else player
    sheet = state.sheets[p]
    if len(ruleset.columns) != 1:
        raise PositionError(f"{ruleset.id} has {len(ruleset.columns)} columns: no exact advice")
    filled = {ruleset.rows[i].id: int(v) for i, v in enumerate(sheet.written) if v is not None}
    turn = state.turns[p]
    dice = tuple(int(d) for d in turn.dice)
    held = tuple(dice[i] for i in sorted(turn.held)) if dice else ()
    voided = frozenset(ruleset.rows[i].id for i in sheet.voided)
    return Position(
        filled=filled,
        dice=dice,
        roll=len(turn.rolls),
        held=held,
        extra_bonus=int(sheet.extra_bonus),
        voided=voided,
    )
