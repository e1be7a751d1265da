"""What a ruleset says, in sentences: the one rule describer every face reads.

`describe(rules)` turns a ruleset's data into phrases: how a turn goes, what each row scores, how
each column is filled, the bonus and the relations, who wins. A phrase is an English template (the
message id a face translates) with its values; a value is a number, another phrase, or a row or
column (`Named`) that the face names its own way: `yambak rules` by id, the how-to pages by the
names players know in their language. Nothing here decides anything; a new preset or a house
ruleset is described without a new sentence as long as it uses the kinds of docs/rules.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..viewtypes import Phrase as PhraseJSON
from .model import Column, Row, Ruleset

__all__ = [
    "COLUMN_PHRASES",
    "PHRASES",
    "ColumnNotes",
    "Description",
    "Named",
    "Phrase",
    "column_notes",
    "describe",
    "row_phrase",
]


@dataclass(frozen=True, slots=True)
class Named:
    """A row or a column in a phrase: each face names it (a label in the reader's language, or the id)."""

    kind: str  # "row", "column" or "colour" (a pip colour a ruleset's [faces] name)
    id: str


@dataclass(frozen=True, slots=True)
class Phrase:
    """An English template and its values. `translated`: whether the template is a message of its own
    (a phrase that only joins two others, "{what}: {score}", is not)."""

    text: str
    args: tuple[tuple[str, int | str | Named | Phrase], ...] = ()
    translated: bool = True

    def render(self, translate: Callable[[str], str], name: Callable[[Named], str]) -> str:
        """The phrase in words: `translate` gives a template in the reader's language, `name` a row's or
        a column's name."""
        values = {
            key: value.render(translate, name)
            if isinstance(value, Phrase)
            else name(value)
            if isinstance(value, Named)
            else value
            for key, value in self.args
        }
        return (translate(self.text) if self.translated else self.text).format(**values)

    def to_json(self) -> PhraseJSON:
        """The phrase for a page script to word (page.js `phrase`): {"t": template, "a": values}, a row or a
        column as {"row": id}; "raw" when the template is not a message of its own."""
        args: dict[str, int | float | str | PhraseJSON | dict[str, str]] = {
            key: value.to_json()
            if isinstance(value, Phrase)
            else {value.kind: value.id}
            if isinstance(value, Named)
            else value
            for key, value in self.args
        }
        out: PhraseJSON = {"t": self.text}
        if args:
            out["a"] = args
        if not self.translated:
            out["raw"] = True
        return out


def _p(text: str, **args: int | str | Named | Phrase) -> Phrase:
    return Phrase(text, tuple(args.items()))


@dataclass(frozen=True, slots=True)
class ColumnNotes:
    id: str
    notes: tuple[Phrase, ...]  # how the column is filled
    points: Phrase | None  # column points: what winning the column is worth


@dataclass(frozen=True, slots=True)
class Description:
    general: tuple[Phrase, ...]  # a turn, the dice, the end of the game
    rows: tuple[tuple[str, Phrase], ...]  # each row id and what it asks of the dice and scores
    columns: tuple[ColumnNotes, ...]
    scoring: tuple[Phrase, ...]  # the upper bonus, the relations, the joker
    winning: tuple[Phrase, ...]  # who wins, and ties


def describe(rules: Ruleset) -> Description:
    general = [
        _p(
            "Roll up to {n} times in a turn. Between rolls keep any dice and roll the others; then fill one box.",
            n=rules.rolls_per_turn,
        ),
        _p("Every box is filled once; the game ends when every sheet is full."),
        _p("A box whose combination the dice do not make scores 0."),
    ]
    if rules.rolled_dice != rules.dice:
        general.append(
            _p(
                "{rolled} dice are rolled; the {n} that count are the best ones for the sheet, unless the player "
                "names them.",
                rolled=rules.rolled_dice,
                n=rules.dice,
            )
        )
    if rules.dice != 5 and rules.rolled_dice == rules.dice:
        general.append(_p("All {n} dice count.", n=rules.dice))
    if rules.save_rolls:
        general.append(
            _p(
                "Rolls a turn leaves unused are saved: a later turn may roll more than {n} times while saved "
                "rolls remain.",
                n=rules.rolls_per_turn,
            )
        )
    if rules.colours:
        general.append(_p("Pip colours: {colours}.", colours=_colours(rules.colours)))
    if "duplicate" in rules.modifiers:
        general.append(_p("Duplicate: everyone gets the same dice."))
    if rules.strike_any:
        general.append(_p("Any box may be struck for 0, even when the dice score there."))
    column_points = rules.match.kind == "column_points"
    columns = tuple(
        ColumnNotes(c.id, column_notes(c), _p("{points} points", points=f"{c.points:g}") if column_points else None)
        for c in rules.columns
    )
    return Description(
        general=tuple(general),
        rows=tuple((r.id, row_phrase(r, rules.dice)) for r in rules.rows),
        columns=columns,
        scoring=_scoring(rules),
        winning=_winning(rules),
    )


def _colours(names: tuple[str, ...]) -> Phrase:
    """Faces grouped by colour, "1 + 6: black; 2 + 5: red; 3 + 4: green"; each face names a colour its way
    (the how-to pages in the reader's language)."""
    groups: dict[str, list[int]] = {}
    for face, colour in enumerate(names, start=1):
        groups.setdefault(colour, []).append(face)
    parts = [
        Phrase("{faces}: {colour}", (("faces", " + ".join(map(str, faces))), ("colour", Named("colour", c))), False)
        for c, faces in groups.items()
    ]
    text = "; ".join(f"{{c{i}}}" for i in range(len(parts)))
    return Phrase(text, tuple((f"c{i}", part) for i, part in enumerate(parts)), translated=False)


def row_phrase(row: Row, n_dice: int = 5) -> Phrase:
    """What a row asks of the dice and what it scores, e.g. "two different pairs: their four dice + 10"; a
    box that needs another and one that wins outright say so after it."""
    kind, points, bonus = row.kind, row.points, row.bonus
    if kind == "upper":
        return _p("the {face}s: {face} for each", face=row.face)
    a, b = row.house
    runs = " / ".join("".join(map(str, sorted(r))) for r in row.runs)
    what = {
        "kind": _p("exactly {n} alike", n=row.n) if row.exact else _p("{n} alike", n=row.n),
        "one_pair": _p("two alike"),
        "two_pairs": _p("two different pairs"),
        "three_pairs": _p("three different pairs"),
        "full_house": _p("three of one face and two of another"),
        "house": _p("{a} of one face and {b} of another", a=a, b=b),
        "straight": _p("one of the runs {runs}", runs=runs),
        "flush": _p("all dice of one colour"),
        "yam": _p("five alike") if n_dice == 5 else _p("{n} alike", n=n_dice),
        "sum": _p("any dice"),
    }[kind]
    if row.same_colour:
        what = _p("{what}, all of one colour", what=what)
    if row.five_alike:
        what = _p("{what}, or five alike", what=what)
    if row.wild_faces:
        faces = ", ".join(map(str, row.wild_faces))
        what = _p("{what}; a die showing {faces} stands for any face of the run", what=what, faces=faces)
    score: Phrase
    if isinstance(points, tuple):
        p = list(points) + [points[-1]] * 3
        score = _p(
            "{points} after roll 1, {points2} after roll 2, {points3} after roll 3",
            points=p[0] + bonus,
            points2=p[1] + bonus,
            points3=p[2] + bonus,
        )
    elif points == "sum" or points == "matched":
        made = sum(row.house) if kind in ("full_house", "house") else 6 if kind == "three_pairs" else n_dice
        score = (
            _p("the sum of all dice")
            if points == "sum"
            else {
                "kind": _p("the {n} matching dice", n=row.n),
                "one_pair": _p("the highest pair"),
                "two_pairs": _p("their four dice"),
                "yam": _p("the five dice") if n_dice == 5 else _p("the {n} dice that make it", n=made),
                "three_pairs": _p("the {n} dice that make it", n=made),
                "full_house": _p("the five dice"),
                "house": _p("the {n} dice that make it", n=made),
            }[kind]
        )
        if bonus:
            score = _p("{score} + {bonus}", score=score, bonus=bonus)
    else:
        score = _p("{points} points", points=int(points) + bonus)
    phrase = Phrase("{what}: {score}", (("what", what), ("score", score)), translated=False)
    notes: list[Phrase] = []
    if row.needs:
        notes.append(_p("only once {row} is filled, and 0 if {row} scored 0", row=Named("row", row.needs)))
    if row.wins_by_roll:
        notes.append(_p("made by roll {n}, it wins the game at once", n=row.wins_by_roll))
    for note in notes:
        phrase = Phrase("{phrase}; {note}", (("phrase", phrase), ("note", note)), translated=False)
    return phrase


def column_notes(c: Column) -> tuple[Phrase, ...]:
    """How a column is filled, and when."""
    start = [Named("row", r) for r in c.start] + [Named("row", "")] * 2
    notes = [
        {
            "free": _p("Any open box."),
            "down": _p("From the top down: the next open box."),
            "up": _p("From the bottom up: the next open box."),
            "updown": _p("From the top or the bottom, toward the middle."),
            "middle": _p("Starting at {first} or {second}, then outward.", first=start[0], second=start[1]),
        }[c.order]
    ]
    if c.rolls == 1:
        notes.append(_p("Only right after the first roll."))
    elif c.rolls == 2:
        notes.append(_p("Only right after the second roll."))
    elif c.rolls:
        notes.append(_p("Right after roll {n} only.", n=c.rolls))
    if c.announce:
        notes.append(
            _p("Announce the box right after the first roll, then fill it (0 if the dice miss it); or fill it at once.")
        )
    if c.withdraw:
        notes.append(_p("An announcement may be withdrawn before the second roll."))
    if c.multiplier != 1:
        notes.append(_p("The column's total is multiplied by {n}.", n=c.multiplier))
    return tuple(notes)


def _scoring(rules: Ruleset) -> tuple[Phrase, ...]:
    out = []
    if rules.upper_bonus:
        for threshold, points in rules.upper_bonus.all_steps:  # one step, or a stepped bonus's
            out.append(
                _p(
                    "Bonus: +{points} when the upper section of a column reaches {threshold}.",
                    points=points,
                    threshold=threshold,
                )
            )
        if len(rules.upper_bonus.all_steps) > 1:
            out.append(_p("Only the highest bonus reached counts."))
    for rel in rules.relations:
        high, low = Named("row", rel.high), Named("row", rel.low)
        if rel.kind == "max_gt_min":
            out.append(_p("{high} must be higher than {low}, or both score 0.", high=high, low=low))
            if rel.last_resort:
                out.append(_p("An entry that would zero them is allowed only when no other box can take the dice."))
        elif rel.kind == "min_lt_max_at_entry":
            out.append(
                _p(
                    "When the second of {low} and {high} is written, {low} must stay below {high}, "
                    "or that entry scores 0.",
                    high=high,
                    low=low,
                )
            )
            if rel.strict:
                out.append(_p("Every {low} must stay below every {high} on the whole sheet.", high=high, low=low))
        else:
            out.append(
                _p(
                    "({high} − {low}) × {factor} is added to the column once all three are filled; "
                    "{high} and {low} count nothing themselves.",
                    high=high,
                    low=low,
                    factor=Named("row", rel.factor),
                )
            )
    if rules.joker is not None:
        out.append(
            _p(
                "Yams bonus: +{bonus} for every further yam while the {row} box holds its points.",
                bonus=rules.joker.bonus,
                row=Named("row", rules.joker.row),
            )
        )
        if rules.joker.placement == "forced":
            out.append(
                _p(
                    "Joker: a further yam fills its face's upper box if it is open, else any lower box at full "
                    "value, else 0 in an upper box."
                )
            )
        elif rules.joker.placement == "free":
            out.append(_p("Joker: a further yam may fill any open box, a lower box at full value."))
    return tuple(out)


def _category_points(rules: Ruleset) -> tuple[Phrase, ...]:
    """What each row and the grand total earn in a category_points game (docs/rules.md §12)."""
    out = []
    for r in rules.rows:
        award, row = r.category_points, Named("row", r.id)
        if award is None:
            continue
        for threshold, points in award.table:
            out.append(
                _p(
                    "{row}: {points} points when its boxes together make {threshold} or more.",
                    row=row,
                    points=f"{points:g}",
                    threshold=threshold,
                )
            )
        if award.every_box:
            out.append(
                _p("{row}: {points} points when every one of its boxes scored.", row=row, points=f"{award.every_box:g}")
            )
        if award.per_box:
            out.append(
                _p("{row}: {points} points for each of its boxes that scored.", row=row, points=f"{award.per_box:g}")
            )
        if award.rank:
            ranks = " / ".join(f"{v:g}" for v in award.rank)
            out.append(_p("{row}: by rank among the players, best first: {points} points.", row=row, points=ranks))
    for threshold, points in rules.match.total_table:
        out.append(
            _p("{points} points for a grand total of {threshold} or more.", points=f"{points:g}", threshold=threshold)
        )
    if (
        any(len(r.category_points.table) > 1 for r in rules.rows if r.category_points)
        or len(rules.match.total_table) > 1
    ):
        out.append(_p("Of a table's steps only the highest reached counts."))
    out.append(_p("The most points wins; equal points go to the higher grand total, then the win is shared."))
    return tuple(out)


def _winning(rules: Ruleset) -> tuple[Phrase, ...]:
    if rules.match.kind == "category_points":
        return _category_points(rules)
    if rules.match.kind != "column_points":
        return (_p("The highest grand total wins; equal totals share the win."),)
    return (
        _p(
            "Each column's best total wins the column's points; the best grand total wins {n}.",
            n=f"{rules.match.total_points:g}",
        ),
        _p(
            "Ties: each tied player rolls {n} dice, most pips wins; players still tied roll again until one wins.",
            n=rules.rolloff_dice,
        )
        if rules.match.ties == "rolloff"
        else _p("Ties: the points are shared."),
    )


# What `column_notes` can say: the page scripts word it too (a column header's tap), so the pages carry these.
COLUMN_PHRASES = [
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
    "The column's total is multiplied by {n}.",
]

# Every template a description can hold, for the message catalogs (scripts/messages.py); a test keeps
# this list and `describe` in step.
PHRASES = [
    "Roll up to {n} times in a turn. Between rolls keep any dice and roll the others; then fill one box.",
    "Every box is filled once; the game ends when every sheet is full.",
    "A box whose combination the dice do not make scores 0.",
    "{rolled} dice are rolled; the {n} that count are the best ones for the sheet, unless the player names them.",
    "Duplicate: everyone gets the same dice.",
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
    *COLUMN_PHRASES,
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
    "Ties: each tied player rolls {n} dice, most pips wins; players still tied roll again until one wins.",
    "Ties: the points are shared.",
    # the family's rules (docs/rulesets.md)
    "All {n} dice count.",
    "Rolls a turn leaves unused are saved: a later turn may roll more than {n} times while saved rolls remain.",
    "Pip colours: {colours}.",
    "exactly {n} alike",
    "three different pairs",
    "{a} of one face and {b} of another",
    "all dice of one colour",
    "{what}, all of one colour",
    "the {n} dice that make it",
    "only once {row} is filled, and 0 if {row} scored 0",
    "{what}, or five alike",
    "{what}; a die showing {faces} stands for any face of the run",
    "made by roll {n}, it wins the game at once",
    "Only the highest bonus reached counts.",
    "Joker: a further yam may fill any open box, a lower box at full value.",
    # category points (Balut, docs/rules.md §12)
    "{row}: {points} points when its boxes together make {threshold} or more.",
    "{row}: {points} points when every one of its boxes scored.",
    "{row}: {points} points for each of its boxes that scored.",
    "{row}: by rank among the players, best first: {points} points.",
    "{points} points for a grand total of {threshold} or more.",
    "Of a table's steps only the highest reached counts.",
    "The most points wins; equal points go to the higher grand total, then the win is shared.",
]
