"""From written values to scores and totals (docs/rules.md §4, §5 and §7).

This is the only place where sums, bonuses, relations and match points are
computed; the CLI, the server and the UI read them from here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules import Ruleset
from ..rules.model import CategoryPoints
from ..viewtypes import JSONObject

__all__ = [
    "Sheet",
    "joker_boxes",
    "ColumnScore",
    "column_scores",
    "column_winners",
    "grand_total",
    "match_points",
    "tied_groups",
    "total_after_entry",
]


@dataclass(frozen=True, slots=True)
class Sheet:
    """One player's sheet. Boxes are numbered column-major: column * n_rows + row."""

    written: tuple[int | None, ...]  # what the dice gave when the box was filled; None = open
    voided: frozenset[int] = frozenset()  # boxes zeroed at entry (min_lt_max_at_entry)
    extra_bonus: int = 0  # the Yahtzee +100s, which belong to the player, not a column
    turns: int = 0  # turns this player has completed
    saved: int = 0  # rolls saved for later turns (rulesets with save_rolls)
    # Memo for values derived from this (immutable) sheet, such as fillable boxes.
    memo: dict[Any, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    @classmethod
    def empty(cls, rules: Ruleset) -> Sheet:
        return cls(written=(None,) * rules.n_boxes)

    @property
    def full(self) -> bool:
        return self.turns >= len(self.written)  # every turn fills exactly one box

    def open_boxes(self) -> int:
        return self.written.count(None)

    def entry_score(self, box: int) -> int | None:
        """The written value after an entry-time zeroing, before column relations."""
        value = self.written[box]
        if value is None:
            return None
        return 0 if box in self.voided else value

    # The joker and the extra bonus (docs/rules.md §6, docs/rulesets.md), in the questions the
    # engine and the bots ask.
    def joker_on(self, rules: Ruleset) -> bool:
        """A further yam is a joker (or, with placement none, just earns the bonus) once the yam box is
        filled (with a yam or a 0)."""
        joker = rules.joker
        return joker is not None and self.written[rules.box_index(rules.columns[0].id, joker.row)] is not None

    def needed_scored(self, rules: Ruleset, box: int) -> bool:
        """False when the box's row needs another (`needs`) that holds 0: the box can only score 0 then."""
        row = rules.rows[box % rules.n_rows]
        if not row.needs:
            return True
        return bool(self.entry_score(box - box % rules.n_rows + rules.row_index[row.needs]))

    def face_open(self, rules: Ruleset, face: int) -> bool:
        """Whether the one column's upper box of `face` is open (the free joker scores once it is not)."""
        n = rules.n_rows
        return any(r.is_upper and r.face == face and self.written[i] is None for i, r in enumerate(rules.rows[:n]))

    def joker_extra(self, rules: Ruleset) -> int:
        """The extra bonus a further yam earns now: only when the yam box holds a yam, not a 0."""
        joker = rules.joker
        if joker is None or not self.entry_score(rules.box_index(rules.columns[0].id, joker.row)):
            return 0
        return joker.bonus


def joker_boxes(rules: Ruleset, boxes: Sequence[int], face: int) -> list[int]:
    """Where a joker yam of `face` may go among the fillable `boxes`: the face's upper box if
    open, else any lower box, else any upper box."""
    n = rules.n_rows
    upper = [b for b in boxes if rules.rows[b % n].is_upper and rules.rows[b % n].face == face]
    lower = [b for b in boxes if not rules.rows[b % n].is_upper]
    return upper or lower or list(boxes)


@dataclass(frozen=True, slots=True)
class ColumnScore:
    id: str
    boxes: dict[str, int | None]  # row id -> score after relations, None while open
    upper: int
    bonus: int
    minimax: int | None  # yamb: (max - min) x ones once all three are filled
    total: int
    bonus_to_go: int | None = None  # upper points still missing for the bonus (0: reached; None: no bonus)
    folded: frozenset[str] = frozenset()  # rows whose written value counts through the minimax line instead
    multiplier: int = 1  # `total` is the boxes, bonus and minimax line times this (Triple Yahtzee)

    def to_dict(self, with_minimax: bool) -> JSONObject:
        out: JSONObject = {"boxes": {**self.boxes}, "upper": self.upper, "bonus": self.bonus}
        if with_minimax:
            out["minimax"] = self.minimax
        if self.multiplier != 1:
            out["multiplier"] = self.multiplier
        out["total"] = self.total
        return out


def _score_column(rules: Ruleset, sheet: Sheet, base: int) -> tuple[list[int | None], int, int, int | None, set[str]]:
    """One column's box scores after relations, its upper and lower sums, its minimax line and the rows
    folded into that line: the arithmetic `column_scores` and `grand_total` share."""
    written, voided, upper_rows = sheet.written, sheet.voided, rules.upper_rows
    scores: list[int | None] = list(written[base : base + len(upper_rows)])
    if voided:
        for r in range(len(scores)):
            if base + r in voided and scores[r] is not None:
                scores[r] = 0
    minimax: int | None = None
    folded: set[str] = set()
    for rel in rules.relations:
        hi, lo = rules.row_index[rel.high], rules.row_index[rel.low]
        if rel.kind == "max_gt_min":
            high, low = scores[hi], scores[lo]
            if high is not None and low is not None and high <= low:
                scores[hi] = scores[lo] = 0
        elif rel.kind == "minimax":
            f = rules.row_index[rel.factor]
            if None not in (scores[hi], scores[lo], scores[f]):
                minimax = (scores[hi] - scores[lo]) * scores[f]  # type: ignore[operator]
            # min and max keep their written sums on the sheet but score nothing themselves
            scores[hi] = 0 if scores[hi] is not None else None
            scores[lo] = 0 if scores[lo] is not None else None
            folded.update((rel.high, rel.low))
    upper = lower = 0
    for is_upper, score in zip(upper_rows, scores, strict=True):
        if score is not None:
            if is_upper:
                upper += score
            else:
                lower += score
    return scores, upper, lower, minimax, folded


def column_scores(rules: Ruleset, sheet: Sheet) -> list[ColumnScore]:
    n_rows = rules.n_rows
    ub = rules.upper_bonus
    out = []
    for ci, column in enumerate(rules.columns):
        scores, upper, lower, minimax, folded = _score_column(rules, sheet, ci * n_rows)
        bonus = ub.points_for(upper) if ub is not None else 0
        total = (upper + bonus + lower + (minimax or 0)) * column.multiplier
        boxes = {r.id: s for r, s in zip(rules.rows, scores, strict=True)}
        to_go = max(0, ub.threshold - upper) if ub is not None else None
        out.append(
            ColumnScore(column.id, boxes, upper, bonus, minimax, total, to_go, frozenset(folded), column.multiplier)
        )
    return out


def grand_total(rules: Ruleset, sheet: Sheet) -> int:
    """The sheet's total: every column's (`column_scores`) plus the extra bonus, without the per-box
    detail, kept in the sheet's memo (the outlook asks it of every box a roll could fill, at every view)."""
    return sheet.extra_bonus + sum(_column_totals(rules, sheet))


def total_after_entry(rules: Ruleset, before: Sheet, after: Sheet, box: int) -> int:
    """`grand_total(rules, after)` where `after` is `before` with one entry in `box`: columns score apart
    from each other, so only the box's column is scored again (the outlook asks this of every legal box)."""
    c = box // rules.n_rows
    totals = _column_totals(rules, before)
    return after.extra_bonus + sum(totals) - totals[c] + _column_total(rules, after, c)


def _column_totals(rules: Ruleset, sheet: Sheet) -> tuple[int, ...]:
    known = sheet.memo.get("column_totals")
    if known is not None and known[0] is rules:
        cached: tuple[int, ...] = known[1]
        return cached
    totals = tuple(_column_total(rules, sheet, c) for c in range(len(rules.columns)))
    sheet.memo["column_totals"] = (rules, totals)
    return totals


def _column_total(rules: Ruleset, sheet: Sheet, c: int) -> int:
    """Column c's total: its boxes after relations, bonus and minimax line, times its multiplier."""
    ub = rules.upper_bonus
    _, upper, lower, minimax, _ = _score_column(rules, sheet, c * rules.n_rows)
    return (upper + (ub.points_for(upper) if ub is not None else 0) + lower + (minimax or 0)) * rules.columns[
        c
    ].multiplier


def tied_groups(values: Sequence[float]) -> list[int]:
    """Seats holding the highest value."""
    best = max(values)
    return [i for i, v in enumerate(values) if v == best]


def column_winners(
    rules: Ruleset,
    sheets: Sequence[Sheet],
    rolloffs: Mapping[str, Sequence[Mapping[int, Sequence[int]]]] | None = None,
) -> dict[str, list[int]]:
    """For each column id and "total": the seats holding the best result after any
    recorded roll-off rounds (several seats where the tie stands)."""
    per_player = [column_scores(rules, s) for s in sheets]
    results: dict[str, list[int]] = {
        col.id: [cols[ci].total for cols in per_player] for ci, col in enumerate(rules.columns)
    }
    results["total"] = [sum(c.total for c in cols) + s.extra_bonus for cols, s in zip(per_player, sheets, strict=False)]
    return {
        target: settle_tie(tied_groups(values), (rolloffs or {}).get(target, ())) for target, values in results.items()
    }


@dataclass(frozen=True, slots=True)
class CategoryScore:
    """One seat's category points (Balut, docs/rules.md §7): each row's that awards some, by its id, and the
    grand total's."""

    rows: dict[str, float]
    total: float  # the grand total's points (match.total_table)

    @property
    def points(self) -> float:
        return sum(self.rows.values()) + self.total

    def to_dict(self) -> JSONObject:
        return {"rows": {**self.rows}, "total": self.total, "points": self.points}


def category_points(rules: Ruleset, sheets: Sequence[Sheet]) -> list[CategoryScore] | None:
    """Each seat's category points on the sheets as they stand (a row's `every_box` only once all its boxes
    scored), or None where the match is not category_points. A row's total is its boxes across every column
    as the dice wrote them (after relations, without multipliers); ranks are among these seats, level seats
    sharing the points of the places they take together."""
    if rules.match.kind != "category_points":
        return None
    per_player = [column_scores(rules, s) for s in sheets]
    out = [CategoryScore({}, CategoryPoints.step(rules.match.total_table, grand_total(rules, s))) for s in sheets]
    for row in rules.rows:
        award = row.category_points
        if award is None:
            continue
        values = [[c.boxes[row.id] for c in cols] for cols in per_player]
        totals = [sum(v or 0 for v in vs) for vs in values]
        for seat, (vs, total) in enumerate(zip(values, totals, strict=True)):
            scored = sum(1 for v in vs if v)
            points = CategoryPoints.step(award.table, total) + award.per_box * scored
            if scored == len(vs):
                points += award.every_box
            if award.rank:
                first = sum(1 for t in totals if t > total)  # the places this seat shares: first .. first + level
                level = sum(1 for t in totals if t == total)
                places = award.rank[first : first + level]
                points += sum(places) / level
            out[seat].rows[row.id] = points
    return out


def match_points(
    rules: Ruleset,
    sheets: Sequence[Sheet],
    rolloffs: Mapping[str, Sequence[Mapping[int, Sequence[int]]]] | None = None,
) -> list[float] | None:
    """Column points (docs/rules.md §7), or category points (one seat too), or None where they do not apply.

    `rolloffs` maps a column id (or "total") to its recorded roll-off rounds, each
    round giving the dice of every still-tied seat. Ties not settled by recorded
    rounds are shared.
    """
    categories = category_points(rules, sheets)
    if categories is not None:
        return [c.points for c in categories]
    if rules.match.kind != "column_points" or len(sheets) < 2:
        return None
    values = {col.id: col.points for col in rules.columns} | {"total": rules.match.total_points}
    points = [0.0] * len(sheets)
    for target, winners in column_winners(rules, sheets, rolloffs).items():
        for seat in winners:
            points[seat] += values[target] / len(winners)
    return points


def settle_tie(tied: list[int], rounds: Sequence[Mapping[int, Sequence[int]]]) -> list[int]:
    """Apply recorded roll-off rounds to tied seats; whoever is left shares."""
    for round_ in rounds:
        if len(tied) < 2:
            break
        pips = [sum(round_[seat]) for seat in tied]
        best = max(pips)
        tied = [seat for seat, p in zip(tied, pips, strict=False) if p == best]
    return tied
