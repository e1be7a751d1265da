"""Frozen ruleset objects: what a ruleset *is*, independent of where it came from.

A ruleset is a sheet of rows x columns plus a handful of rules that span boxes
(upper bonus, relations, joker, match result). Every column holds the same rows.
Nothing here does I/O; `loader.py` builds these from TOML data.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

RowKind = Literal["upper", "kind", "one_pair", "two_pairs", "full_house", "straight", "yam", "sum"]
ROW_KINDS: tuple[str, ...] = ("upper", "kind", "one_pair", "two_pairs", "full_house", "straight", "yam", "sum")
OrderKind = Literal["free", "down", "up", "updown", "middle"]
ORDER_KINDS: tuple[str, ...] = ("free", "down", "up", "updown", "middle")
RELATION_KINDS: tuple[str, ...] = ("max_gt_min", "min_lt_max_at_entry", "minimax")
MATCH_KINDS: tuple[str, ...] = ("total", "column_points")
TIE_RULES: tuple[str, ...] = ("rolloff", "share")
MODIFIERS: tuple[str, ...] = ("six_dice", "duplicate")

# How a row turns dice into points: a fixed number, the sum of all dice, the
# dice that make the combination ("matched"), or a value per roll number.
Points = int | Literal["sum", "matched"] | tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    kind: str
    points: Points = "sum"
    bonus: int = 0
    face: int = 0  # upper rows: the face counted
    n: int = 0  # kind rows: how many alike
    runs: tuple[frozenset[int], ...] = ()  # straight rows: the runs that count

    @property
    def is_upper(self) -> bool:
        return self.kind == "upper"


@dataclass(frozen=True, slots=True)
class Column:
    id: str
    order: str = "free"
    rolls: int | None = None  # only right after this roll number (poot, dry, en deux, hand)
    announce: bool = False
    withdraw: bool = False  # an announcement here may be withdrawn before roll 2 (yams-de)
    start: tuple[str, ...] = ()  # middle columns: the row ids an empty column starts from
    points: float = 0  # column_points match result


@dataclass(frozen=True, slots=True)
class Relation:
    id: str
    kind: str
    high: str  # the row that must stay higher (max, plus)
    low: str  # the row that must stay lower (min)
    factor: str = ""  # minimax: the row whose value multiplies (ones)
    last_resort: bool = False  # max_gt_min: a zeroing entry only when nothing else fits
    strict: bool = False  # min_lt_max_at_entry: compare against every column


@dataclass(frozen=True, slots=True)
class UpperBonus:
    threshold: int
    points: int


@dataclass(frozen=True, slots=True)
class Joker:
    """The Yahtzee extra bonus and forced joker of docs/rules.md §6."""

    row: str  # the yam row whose filling switches the joker on
    bonus: int  # extra bonus per further yam while the row holds a non-zero value


@dataclass(frozen=True, slots=True)
class Match:
    kind: str = "total"
    total_points: float = 0  # column_points: points for the highest grand total
    ties: str = "share"


def _option_text(value: object) -> str:
    """An option's value in a variant key: yes/no, items joined by +, else as written."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return "+".join(map(str, value)) or "none"
    return str(value)


@dataclass(frozen=True, slots=True)
class Ruleset:
    id: str
    name: str
    description: str
    rows: tuple[Row, ...]
    columns: tuple[Column, ...]
    dice: int = 5
    rolls_per_turn: int = 3
    upper_bonus: UpperBonus | None = None
    relations: tuple[Relation, ...] = ()
    joker: Joker | None = None
    strike_any: bool = False
    match: Match = field(default_factory=Match)
    modifiers: frozenset[str] = frozenset()
    options: tuple[tuple[str, object], ...] = ()  # the option values this ruleset was built with
    option_defaults: tuple[tuple[str, object], ...] = field(default=(), compare=False, repr=False)
    preset: str | None = None
    # The JSON-able description this ruleset was built from (a record's `rules`).
    spec: object = field(default=None, compare=False, repr=False)

    # Derived lookups, filled in __post_init__ (still immutable from outside).
    row_index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    column_index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    _layout: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "row_index", {r.id: i for i, r in enumerate(self.rows)})
        object.__setattr__(self, "column_index", {c.id: i for i, c in enumerate(self.columns)})

    @property
    def n_rows(self) -> int:
        return len(self.rows)

    @property
    def n_boxes(self) -> int:
        return len(self.rows) * len(self.columns)

    @property
    def rolled_dice(self) -> int:
        """Dice thrown per roll: 5, or 6 with the six_dice modifier."""
        return self.dice + 1 if "six_dice" in self.modifiers else self.dice

    @property
    def rolloff_dice(self) -> int:
        """Dice each tied player rolls in a roll-off (docs/rules.md §7): five, six-dice games included."""
        return self.dice

    def box_index(self, column: str, row: str) -> int:
        return self.column_index[column] * len(self.rows) + self.row_index[row]

    def box_roll_matters(self, box: int) -> bool:
        """Whether the roll number a box is filled on can change its score or whether it may be
        filled (poot, dry, en deux, hand, announce columns; Yamb's straight by roll number)."""
        column = self.columns[box // len(self.rows)]
        return column.rolls is not None or column.announce or isinstance(self.rows[box % len(self.rows)].points, tuple)

    @property
    def has_minimax(self) -> bool:
        """Whether columns carry Yamb's (max - min) x ones line."""
        return any(r.kind == "minimax" for r in self.relations)

    @property
    def minimax_rows(self) -> tuple[str, str, str] | None:
        """Yamb's (max, min, factor) row ids: the rows whose written values make the minimax line."""
        for r in self.relations:
            if r.kind == "minimax":
                return (r.high, r.low, r.factor)
        return None

    @property
    def roll_matters(self) -> bool:
        """Whether any box's score or fill rule depends on the roll number (score-keepers ask for it)."""
        return any(self.box_roll_matters(b) for b in range(self.n_boxes))

    def box_id(self, box: int) -> str:
        c, r = divmod(box, len(self.rows))
        return f"{self.columns[c].id}.{self.rows[r].id}"

    def parse_box(self, text: str) -> int | None:
        """`column.row`, or a bare row id when the sheet has one column; None if unknown."""
        if not isinstance(text, str):
            return None
        column, dot, row = text.rpartition(".")
        if not dot:
            if len(self.columns) != 1:
                return None
            column, row = self.columns[0].id, text
        if column not in self.column_index or row not in self.row_index:
            return None
        return self.box_index(column, row)

    @property
    def options_dict(self) -> dict[str, object]:
        return dict(self.options)

    def variant_key(self, *, duplicate: bool = True) -> str:
        """Which game this is, as one short string: two rulesets share a key exactly when they are the same game.

        A preset's key is its id, each option that differs from the preset's default (`name=value`) and its
        modifiers: `yams`, `yams-fr columns=3`, `yams six_dice`, `yamb extra=updown+middle`. A preset never
        changes its rules under its id (game records name presets by id alone), so the id stands for its
        content. Any other ruleset is `custom:<name>:<digest>`, the digest of the description it was built
        from, so that an edited file is another game. Statistics are grouped by this key, and the solver's
        tables and the bots' models are stored under it. `duplicate=False` leaves the duplicate modifier out:
        it decides who gets which dice, never what a sheet is worth.
        """
        modifiers = sorted(m for m in self.modifiers if duplicate or m != "duplicate")
        if self.preset is not None:
            defaults = dict(self.option_defaults)
            parts = [f"{k}={_option_text(v)}" for k, v in self.options if defaults.get(k, v) != v]
            return " ".join([self.preset, *parts, *modifiers])[:120]
        spec = self.spec
        if not duplicate and isinstance(spec, dict) and isinstance(spec.get("modifiers"), list):
            spec = {**spec, "modifiers": [m for m in spec["modifiers"] if m != "duplicate"]}
        described = spec if spec is not None else repr(self)  # a ruleset built in code: its content
        digest = hashlib.sha1(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()[:8]
        return f"custom:{self.name[:80]}:{digest}"

    def layout(self) -> dict[str, Any]:
        """The sheet's layout for a face to draw it (ids, order kinds, roll restrictions, bonuses,
        column points): what the table page and the score-keeper read instead of the rules file. Made
        once per ruleset (every view of every event carries it): read it, never change it."""
        if self._layout is None:
            object.__setattr__(self, "_layout", self._make_layout())
        assert self._layout is not None
        return self._layout

    def _make_layout(self) -> dict[str, Any]:
        bonus = self.upper_bonus
        return {
            "id": self.id,
            "name": self.name,
            "preset": self.preset,
            "options": dict(self.options),
            "rows": [{"id": r.id, "upper": r.is_upper, "kind": r.kind} for r in self.rows],
            "columns": [
                {
                    "id": c.id,
                    "order": c.order,
                    "rolls": c.rolls,
                    "announce": c.announce,
                    "withdraw": c.withdraw,
                    "points": c.points,
                }
                for c in self.columns
            ],
            "rolled_dice": self.rolled_dice,  # thrown per roll: six with the six_dice modifier
            "rolloff_dice": self.rolloff_dice,
            "rolls_per_turn": self.rolls_per_turn,
            "upper_bonus": {"threshold": bonus.threshold, "points": bonus.points} if bonus else None,
            "match": self.match.kind,
            "ties": self.match.ties,
            "total_points": self.match.total_points,
            "roll_matters": self.roll_matters,
            "minimax": self.has_minimax,
            "minimax_rows": list(self.minimax_rows) if self.minimax_rows else None,
            "strike_any": self.strike_any,
            "joker_bonus": self.joker.bonus if self.joker else None,  # the extra for each further yam
        }
