"""How to play a ruleset, written from its data in the reader's language.

The page says what the ruleset *is* (its sheet, what each box scores, how each column
is filled, the bonus, the relations, who wins); it never decides anything. A new preset
or a house ruleset gets its page without a line of new text, as long as it uses the
row, column and relation kinds of RULES.md.
"""

from __future__ import annotations

from typing import Any

from ..rules import Ruleset
from .i18n import translations

__all__ = ["HOWTO_STRINGS", "howto"]

# Every sentence the page can say (extracted for the catalogs by scripts/messages.py).
HOWTO_STRINGS = [
    "Roll up to {n} times in a turn. Between rolls keep any dice and roll the others; then fill one box.",
    "Every box is filled once; the game ends when every sheet is full.",
    "A box whose combination the dice do not make scores 0.",
    "Any box may be struck for 0, even when the dice score there.",
    "the {face}s: {face} for each",
    "{n} alike",
    "two alike",
    "two different pairs",
    "three of one face and two of another",
    "one of the runs {runs}",
    "five alike",
    "any dice",
    "the sum of all dice",
    "the {n} matching dice",
    "the highest pair",
    "their four dice",
    "the five dice",
    "{score} + {bonus}",
    "{points} points",
    "{points} after roll 1, {points2} after roll 2, {points3} after roll 3",
    "Any open box.",
    "From the top down: the next open box.",
    "From the bottom up: the next open box.",
    "From the top or the bottom, toward the middle.",
    "Starting at {first} or {second}, then outward.",
    "Only right after the first roll.",
    "Only right after the second roll.",
    "Right after roll {n} only.",
    "Announce the box right after the first roll, then fill it (0 if the dice miss it); or fill it at once.",
    "An announcement may be withdrawn before the second roll.",
    "Bonus: +{points} when the upper section of a column reaches {threshold}.",
    "{high} must be higher than {low}, or both score 0.",
    "An entry that would zero them is allowed only when no other box can take the dice.",
    "When the second of {low} and {high} is written, {low} must stay below {high}, or that entry scores 0.",
    "Every {low} must stay below every {high} on the whole sheet.",
    "({high} − {low}) × {factor} is added to the column once all three are filled; "
    "{high} and {low} count nothing themselves.",
    "Yams bonus: +{bonus} for every further yam while the {row} box holds its points.",
    "Joker: a further yam fills its face's upper box if it is open, else any lower box at full value, "
    "else 0 in an upper box.",
    "The highest grand total wins; equal totals share the win.",
    "Each column's best total wins the column's points; the best grand total wins {n}.",
    "Ties: the tied players roll five dice once, most pips wins.",
    "Ties: the points are shared.",
    "exactly {n} alike",
    "three different pairs",
    "{a} of one face and {b} of another",
    "all dice of one colour",
    "{what}, all of one colour",
    "the {n} dice that make it",
    "only once {row} is filled, and 0 if {row} scored 0",
    "made by roll {n}, it wins the game at once",
    "All {n} dice count.",
    "Rolls a turn leaves unused are saved: a later turn may roll more than {n} times while saved rolls remain.",
    "Pip colours: {colours}.",
    "Only the highest bonus reached counts.",
    "Joker: a further yam may fill any open box, a lower box at full value.",
]


def _text(row: Any, _: Any, n_dice: int = 5, row_label: Any = str) -> str:
    """What a row asks of the dice and what it scores, e.g. "two different pairs: their four dice + 10"."""
    kind, points, bonus = row.kind, row.points, row.bonus
    if kind == "upper":
        return str(_("the {face}s: {face} for each").format(face=row.face))
    runs = " / ".join("".join(str(v) for v in sorted(run)) for run in row.runs)
    a, b = row.house
    what = {
        "kind": _("exactly {n} alike") if row.exact else _("{n} alike"),
        "one_pair": _("two alike"),
        "two_pairs": _("two different pairs"),
        "three_pairs": _("three different pairs"),
        "full_house": _("three of one face and two of another"),
        "house": _("{a} of one face and {b} of another"),
        "straight": _("one of the runs {runs}"),
        "flush": _("all dice of one colour"),
        "yam": _("five alike") if n_dice == 5 else _("{n} alike"),
        "sum": _("any dice"),
    }[kind].format(n=row.n if kind == "kind" else n_dice, runs=runs, a=a, b=b)
    if row.same_colour:
        what = _("{what}, all of one colour").format(what=what)
    notes = []
    if row.needs:
        notes.append(_("only once {row} is filled, and 0 if {row} scored 0").format(row=row_label(row.needs)))
    if row.wins_by_roll:
        notes.append(_("made by roll {n}, it wins the game at once").format(n=row.wins_by_roll))
    tail = "".join(f"; {note}" for note in notes)
    if isinstance(points, tuple):
        p = list(points) + [points[-1]] * 3
        score = _("{points} after roll 1, {points2} after roll 2, {points3} after roll 3").format(
            points=p[0] + bonus, points2=p[1] + bonus, points3=p[2] + bonus
        )
        return f"{what}: {score}{tail}"
    if points == "sum":
        score = _("the sum of all dice")
    elif points == "matched":
        made = sum(row.house) if kind in ("full_house", "house") else 6 if kind == "three_pairs" else n_dice
        score = {
            "kind": _("the {n} matching dice"),
            "one_pair": _("the highest pair"),
            "two_pairs": _("their four dice"),
            "yam": _("the five dice") if n_dice == 5 else _("the {n} dice that make it"),
            "three_pairs": _("the {n} dice that make it"),
            "full_house": _("the five dice"),
            "house": _("the {n} dice that make it"),
        }[kind].format(n=row.n if kind == "kind" else made)
    else:
        return f"{what}: " + _("{points} points").format(points=int(points) + bonus) + tail
    if bonus:
        score = _("{score} + {bonus}").format(score=score, bonus=bonus)
    return f"{what}: {score}{tail}"


def howto(rules: Ruleset, lang: str, labels: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The page's content: sentences and tables, already in `lang`."""
    _ = translations(lang).gettext
    row_label = lambda r: labels["rows"].get(r, r)  # noqa: E731
    col_label = lambda c: labels["columns"].get(c, c)  # noqa: E731
    general = [
        _("Roll up to {n} times in a turn. Between rolls keep any dice and roll the others; then fill one box.").format(
            n=rules.rolls_per_turn
        ),
        _("Every box is filled once; the game ends when every sheet is full."),
        _("A box whose combination the dice do not make scores 0."),
    ]
    if rules.strike_any:
        general.append(_("Any box may be struck for 0, even when the dice score there."))
    if rules.dice != 5 and rules.rolled_dice == rules.dice:
        general.append(_("All {n} dice count.").format(n=rules.dice))
    if rules.save_rolls:
        general.append(
            _(
                "Rolls a turn leaves unused are saved: a later turn may roll more than {n} times while saved "
                "rolls remain."
            ).format(n=rules.rolls_per_turn)
        )
    if rules.colours:
        groups: dict[str, list[int]] = {}
        for face, colour in enumerate(rules.colours, start=1):
            groups.setdefault(colour, []).append(face)
        named = "; ".join(
            " + ".join(map(str, faces)) + ": " + translations(lang).pgettext("colour", colour)
            for colour, faces in groups.items()
        )
        general.append(_("Pip colours: {colours}.").format(colours=named))
    rows = [
        {"id": r.id, "label": row_label(r.id), "scores": _text(r, _, rules.dice, row_label), "upper": r.is_upper}
        for r in rules.rows
    ]
    columns = []
    for c in rules.columns:
        how = {
            "free": _("Any open box."),
            "down": _("From the top down: the next open box."),
            "up": _("From the bottom up: the next open box."),
            "updown": _("From the top or the bottom, toward the middle."),
            "middle": _("Starting at {first} or {second}, then outward."),
        }[c.order].format(
            first=row_label(c.start[0]) if c.start else "", second=row_label(c.start[1]) if c.start else ""
        )
        notes = [how]
        if c.rolls == 1:
            notes.append(_("Only right after the first roll."))
        elif c.rolls == 2:
            notes.append(_("Only right after the second roll."))
        elif c.rolls:
            notes.append(_("Right after roll {n} only.").format(n=c.rolls))
        if c.announce:
            notes.append(
                _(
                    "Announce the box right after the first roll, then fill it (0 if the dice miss it); "
                    "or fill it at once."
                )
            )
        if c.withdraw:
            notes.append(_("An announcement may be withdrawn before the second roll."))
        entry = {"id": c.id, "label": col_label(c.id), "notes": notes}
        if rules.match.kind == "column_points":
            entry["points"] = _("{points} points").format(points=f"{c.points:g}")
        columns.append(entry)
    scoring = []
    if rules.upper_bonus:
        for threshold, points in rules.upper_bonus.all_steps:
            scoring.append(
                _("Bonus: +{points} when the upper section of a column reaches {threshold}.").format(
                    points=points, threshold=threshold
                )
            )
        if len(rules.upper_bonus.all_steps) > 1:
            scoring.append(_("Only the highest bonus reached counts."))
    for rel in rules.relations:
        high, low = row_label(rel.high), row_label(rel.low)
        if rel.kind == "max_gt_min":
            scoring.append(_("{high} must be higher than {low}, or both score 0.").format(high=high, low=low))
            if rel.last_resort:
                scoring.append(_("An entry that would zero them is allowed only when no other box can take the dice."))
        elif rel.kind == "min_lt_max_at_entry":
            text = _(
                "When the second of {low} and {high} is written, {low} must stay below {high}, or that entry scores 0."
            )
            scoring.append(text.format(high=high, low=low))
            if rel.strict:
                scoring.append(
                    _("Every {low} must stay below every {high} on the whole sheet.").format(high=high, low=low)
                )
        else:
            text = _(
                "({high} − {low}) × {factor} is added to the column once all three are filled; "
                "{high} and {low} count nothing themselves."
            )
            scoring.append(text.format(high=high, low=low, factor=row_label(rel.factor)))
    if rules.joker is not None:
        scoring.append(
            _("Yams bonus: +{bonus} for every further yam while the {row} box holds its points.").format(
                bonus=rules.joker.bonus, row=row_label(rules.joker.row)
            )
        )
        if rules.joker.placement == "forced":
            scoring.append(
                _(
                    "Joker: a further yam fills its face's upper box if it is open, else any lower box at full value, "
                    "else 0 in an upper box."
                )
            )
        elif rules.joker.placement == "free":
            scoring.append(_("Joker: a further yam may fill any open box, a lower box at full value."))
    if rules.match.kind == "column_points":
        winning = [
            _("Each column's best total wins the column's points; the best grand total wins {n}.").format(
                n=f"{rules.match.total_points:g}"
            )
        ]
        winning.append(
            _("Ties: the tied players roll five dice once, most pips wins.")
            if rules.match.ties == "rolloff"
            else _("Ties: the points are shared.")
        )
    else:
        winning = [_("The highest grand total wins; equal totals share the win.")]
    return {"general": general, "rows": rows, "columns": columns, "scoring": scoring, "winning": winning}
