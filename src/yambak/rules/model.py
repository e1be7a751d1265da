"""Frozen ruleset objects: what a ruleset *is*, independent of where it came from.

A ruleset is a sheet of rows x columns plus a handful of rules that span boxes
(upper bonus, relations, joker, match result). Every column holds the same rows.
Nothing here does I/O; `build.py` builds these from TOML data (`loader.py` is the front door).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from ..viewtypes import JSONValue, RulesColumn, RulesLayout, RulesRow
from ..viewtypes import Phrase as PhraseJSON

ROW_KINDS: tuple[str, ...] = (
    "upper",
    "kind",
    "one_pair",
    "two_pairs",
    "three_pairs",
    "full_house",
    "house",
    "straight",
    "flush",
    "yam",
    "sum",
)
# Row kinds whose combination is some dice of the roll, so that points = "matched" means those dice.
MATCHED_KINDS: tuple[str, ...] = ("kind", "one_pair", "two_pairs", "three_pairs", "full_house", "house", "yam")
JOKER_PLACEMENTS: tuple[str, ...] = ("forced", "free", "none")
ORDER_KINDS: tuple[str, ...] = ("free", "down", "up", "updown", "middle")
RELATION_KINDS: tuple[str, ...] = ("max_gt_min", "min_lt_max_at_entry", "minimax")
MATCH_KINDS: tuple[str, ...] = ("total", "column_points", "category_points")
TIE_RULES: tuple[str, ...] = ("rolloff", "share")
MODIFIERS: tuple[str, ...] = ("six_dice", "duplicate")
DICE_COUNTS: tuple[int, ...] = (5, 6)  # dice that all count (six_dice is five of six)


def _repr(obj: Any, newer: tuple[str, ...]) -> str:
    """A dataclass's repr without the fields added since the first format while they hold their
    defaults: fingerprints of rules (solver tables, fitted models) hash reprs, and a ruleset that
    uses none of the newer keys keeps the fingerprint it always had."""
    parts = []
    for f in fields(obj):
        if not f.repr:
            continue
        value = getattr(obj, f.name)
        if f.name in newer and value == f.default:
            continue
        parts.append(f"{f.name}={value!r}")
    return f"{type(obj).__name__}({', '.join(parts)})"


# How a row turns dice into points: a fixed number, the sum of all dice, the
# dice that make the combination ("matched"), or a value per roll number.
Points = int | Literal["sum", "matched"] | tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CategoryPoints:
    """What a row is worth in points at the end of a `category_points` game (Balut), read off the row's boxes
    across every column as the dice wrote them (no multiplier): each part that applies adds up."""

    table: tuple[tuple[int, float], ...] = ()  # (threshold, points), rising: the highest the row's total reaches
    every_box: float = 0  # every box of the row scored (none is 0)
    per_box: float = 0  # each box of the row that scored
    rank: tuple[float, ...] = ()  # by the row's total among the players, best first; level seats share places

    @staticmethod
    def step(table: tuple[tuple[int, float], ...], value: int) -> float:
        """The points of the highest step `value` reaches (0 below the first)."""
        out = 0.0
        for threshold, points in table:
            if value >= threshold:
                out = points
        return out


@dataclass(frozen=True, slots=True, repr=False)
class Row:
    id: str
    kind: str
    points: Points = "sum"
    bonus: int = 0
    face: int = 0  # upper rows: the face counted
    n: int = 0  # kind rows: how many alike
    runs: tuple[frozenset[int], ...] = ()  # straight rows: the runs that count
    exact: bool = False  # kind rows: exactly n alike, not more
    sizes: tuple[int, ...] = ()  # house rows: how many of each of two different faces (3, 2 is a full house)
    colours: tuple[int, ...] = ()  # the colour of faces 1..6 (index 0 unused), for flush and same_colour rows
    same_colour: bool = False  # the dice that make the combination show one colour
    needs: str = ""  # a row of the same column filled first; this box scores only if that one scored
    wins_by_roll: int = 0  # an entry that scores here by this roll number wins the game at once
    five_alike: bool = False  # full_house rows: five alike counts as a full house too (no joker needed)
    wild_faces: tuple[int, ...] = ()  # straight rows: dice showing these faces stand for any face of a run
    category_points: CategoryPoints | None = None  # category_points games: what the row's boxes earn at the end
    # The file's own name for the row (shown where no translation names it) and its short form; not rules.
    label: str = field(default="", repr=False, compare=False)
    short: str = field(default="", repr=False, compare=False)
    # The names players say for the row, by language ((lang, names), ...): what a typed box may be; not rules.
    aliases: tuple[tuple[str, tuple[str, ...]], ...] = field(default=(), repr=False, compare=False)

    def __repr__(self) -> str:
        return _repr(
            self,
            (
                "exact",
                "sizes",
                "colours",
                "same_colour",
                "needs",
                "wins_by_roll",
                "five_alike",
                "wild_faces",
                "category_points",
            ),
        )

    @property
    def is_upper(self) -> bool:
        return self.kind == "upper"

    @property
    def house(self) -> tuple[int, int]:
        """The two counts of a house row (a full house is 3 and 2)."""
        return (self.sizes[0], self.sizes[1]) if self.sizes else (3, 2)


@dataclass(frozen=True, slots=True, repr=False)
class Column:
    id: str
    order: str = "free"
    rolls: int | None = None  # only right after this roll number (poot, dry, en deux, hand)
    announce: bool = False
    withdraw: bool = False  # an announcement here may be withdrawn before roll 2 (yams-de)
    start: tuple[str, ...] = ()  # middle columns: the row ids an empty column starts from
    points: float = 0  # column_points match result
    label: str = field(default="", repr=False, compare=False)  # the file's own name for the column
    multiplier: int = 1  # the column's total counts this many times (Triple Yahtzee's x1, x2, x3)

    def __repr__(self) -> str:
        return _repr(self, ("multiplier",))


@dataclass(frozen=True, slots=True)
class Relation:
    id: str
    kind: str
    high: str  # the row that must stay higher (max, plus)
    low: str  # the row that must stay lower (min)
    factor: str = ""  # minimax: the row whose value multiplies (ones)
    last_resort: bool = False  # max_gt_min: a zeroing entry only when nothing else fits
    strict: bool = False  # min_lt_max_at_entry: compare against every column


@dataclass(frozen=True, slots=True, repr=False)
class UpperBonus:
    """The upper bonus: `points` once the upper sum reaches `threshold`; a stepped bonus has further
    `steps` (threshold, points), each replacing the one before (Kismet: 35 at 63, 55 at 71, 75 at 78)."""

    threshold: int
    points: int
    steps: tuple[tuple[int, int], ...] = ()  # every (threshold, points), ascending; empty: just the one

    def __repr__(self) -> str:
        return _repr(self, ("steps",))

    @property
    def all_steps(self) -> tuple[tuple[int, int], ...]:
        return self.steps or ((self.threshold, self.points),)

    @property
    def top(self) -> int:
        """The highest threshold: past it the upper sum no longer matters."""
        return self.all_steps[-1][0]

    def points_for(self, upper: int) -> int:
        """The bonus an upper sum earns."""
        out = 0
        for threshold, points in self.all_steps:
            if upper >= threshold:
                out = points
        return out


@dataclass(frozen=True, slots=True, repr=False)
class Joker:
    """The extra bonus for further yams and the joker of docs/rules.md §6 (docs/rulesets.md).

    `placement`: `forced` (the official rule: the face's upper box if open, else any lower box,
    else any upper box), `free` (any open box; a joker's fixed values once the face's upper box is
    filled: Verhoeff's reading), `none` (no joker: a further yam scores as the dice are; the bonus
    alone)."""

    row: str  # the yam row whose filling switches the joker on
    bonus: int  # extra bonus per further yam while the row holds a non-zero value
    placement: str = "forced"

    def __repr__(self) -> str:
        return _repr(self, ("placement",))

    @property
    def scores(self) -> bool:
        """Whether a further yam counts as a full house and every straight."""
        return self.placement != "none"


@dataclass(frozen=True, slots=True, repr=False)
class Match:
    kind: str = "total"
    total_points: float = 0  # column_points: points for the highest grand total
    ties: str = "share"
    # category_points: (threshold, points), rising: the grand total's points, the highest step it reaches
    total_table: tuple[tuple[int, float], ...] = ()

    def __repr__(self) -> str:
        return _repr(self, ("total_table",))


def _option_text(value: object) -> str:
    """An option's value in a variant key: yes/no, items joined by +, else as written."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return "+".join(map(str, value)) or "none"
    return str(value)


def _row_layout(r: Row) -> RulesRow:
    out: RulesRow = {"id": r.id, "upper": r.is_upper, "kind": r.kind}
    if r.label:
        out["label"] = r.label
    if r.short:
        out["short"] = r.short
    return out


def _column_layout(c: Column, notes: list[PhraseJSON]) -> RulesColumn:
    out: RulesColumn = {
        "id": c.id,
        "order": c.order,
        "rolls": c.rolls,
        "announce": c.announce,
        "withdraw": c.withdraw,
        "points": c.points,
        "multiplier": c.multiplier,  # the column total is its boxes and bonus times this
        "notes": notes,  # how it fills, for a header's tap
    }
    if c.label:
        out["label"] = c.label
    return out


@dataclass(frozen=True, slots=True)
class Ruleset:
    id: str
    name: str
    description: str
    rows: tuple[Row, ...]
    columns: tuple[Column, ...]
    dice: int = 5
    rolls_per_turn: int = 3
    save_rolls: bool = False  # rolls a turn leaves unused are saved for the player's later turns
    colours: tuple[str, ...] = ()  # faces 1 to 6: the colour of their pips, where the ruleset gives them
    win_points: int | None = None  # what an outright win is worth to the solver and the bots (docs/rulesets.md)
    sources: tuple[str, ...] = field(default=(), compare=False, repr=False)  # where the rules come from
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
    spec: JSONValue = field(default=None, compare=False, repr=False)

    # Derived lookups, filled in __post_init__ (still immutable from outside).
    row_index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    column_index: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    upper_rows: tuple[bool, ...] = field(default=(), init=False, repr=False, compare=False)  # each row's is_upper
    n_rows: int = field(default=0, init=False, repr=False, compare=False)
    n_boxes: int = field(default=0, init=False, repr=False, compare=False)
    _box_ids: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)
    _roll_matters: tuple[bool, ...] = field(default=(), init=False, repr=False, compare=False)
    _layout: RulesLayout | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "row_index", {r.id: i for i, r in enumerate(self.rows)})
        object.__setattr__(self, "column_index", {c.id: i for i, c in enumerate(self.columns)})
        object.__setattr__(self, "upper_rows", tuple(r.is_upper for r in self.rows))
        # asked for every box of every view: computed once
        object.__setattr__(self, "n_rows", len(self.rows))
        object.__setattr__(self, "n_boxes", len(self.rows) * len(self.columns))
        object.__setattr__(self, "_box_ids", tuple(f"{c.id}.{r.id}" for c in self.columns for r in self.rows))
        matters = tuple(
            c.rolls is not None or c.announce or isinstance(r.points, tuple) or r.wins_by_roll > 0
            for c in self.columns
            for r in self.rows
        )
        object.__setattr__(self, "_roll_matters", matters)

    @property
    def rolled_dice(self) -> int:
        """Dice thrown per roll: `dice`, or one more with the six_dice modifier (five of six count)."""
        return self.dice + 1 if "six_dice" in self.modifiers else self.dice

    @property
    def rolloff_dice(self) -> int:
        """Dice each tied player rolls in a roll-off (docs/rules.md §7): five, six-dice games included."""
        return self.dice

    def box_index(self, column: str, row: str) -> int:
        return self.column_index[column] * len(self.rows) + self.row_index[row]

    def box_roll_matters(self, box: int) -> bool:
        """Whether the roll number a box is filled on can change its score, whether it may be
        filled or what it does (poot, dry, en deux, hand, announce columns; Yamb's straight by roll
        number; Generala's served combinations and outright win)."""
        return self._roll_matters[box]

    @property
    def wins_outright(self) -> bool:
        """Whether some entry can win the game at once (Generala's served generala)."""
        return any(r.wins_by_roll for r in self.rows)

    @property
    def voids_at_entry(self) -> bool:
        """Whether an entry can be zeroed as it is written (a min_lt_max_at_entry relation)."""
        return any(r.kind == "min_lt_max_at_entry" for r in self.relations)

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
        """Whether any box's score or fill rule depends on the roll number, or the rolls a turn used are
        saved for later (score-keepers ask for it)."""
        return self.save_rolls or any(self.box_roll_matters(b) for b in range(self.n_boxes))

    def box_id(self, box: int) -> str:
        return self._box_ids[box]

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
        if not duplicate and isinstance(spec, dict) and isinstance(mods := spec.get("modifiers"), list):
            spec = {**spec, "modifiers": [m for m in mods if m != "duplicate"]}
        described = spec if spec is not None else repr(self)  # a ruleset built in code: its content
        digest = hashlib.sha1(json.dumps(described, sort_keys=True, default=str).encode()).hexdigest()[:8]
        return f"custom:{self.name[:80]}:{digest}"

    def layout(self) -> RulesLayout:
        """The sheet's layout for a face to draw it (ids, order kinds, roll restrictions, bonuses,
        column points): what the table page and the score-keeper read instead of the rules file. Made
        once per ruleset (every view of every event carries it): read it, never change it."""
        if self._layout is None:
            object.__setattr__(self, "_layout", self._make_layout())
        assert self._layout is not None
        return self._layout

    def _make_layout(self) -> RulesLayout:
        from .describe import column_notes  # the describer reads this module: imported when first used

        bonus = self.upper_bonus
        return {
            "id": self.id,
            "name": self.name,
            "preset": self.preset,
            "options": dict(self.options),
            "rows": [_row_layout(r) for r in self.rows],
            "columns": [_column_layout(c, [note.to_json() for note in column_notes(c)]) for c in self.columns],
            "rolled_dice": self.rolled_dice,  # thrown per roll: six with the six_dice modifier
            "rolloff_dice": self.rolloff_dice,
            "rolls_per_turn": self.rolls_per_turn,
            "upper_bonus": (
                {"threshold": bonus.threshold, "points": bonus.points, "steps": [list(s) for s in bonus.all_steps]}
                if bonus
                else None
            ),
            "save_rolls": self.save_rolls,
            "colours": list(self.colours),
            "match": self.match.kind,
            "ties": self.match.ties,
            "total_points": self.match.total_points,
            "roll_matters": self.roll_matters,
            "minimax": self.has_minimax,
            "minimax_rows": list(self.minimax_rows) if self.minimax_rows else None,
            "strike_any": self.strike_any,
            "joker_bonus": self.joker.bonus if self.joker else None,  # the extra for each further yam
            "joker": self.joker.placement if self.joker else None,
            "wins_outright": self.wins_outright,
            # what the exact coach's values count an outright win as (docs/rulesets.md), for the faces to say
            "win_points": self.win_points if self.wins_outright else None,
        }
