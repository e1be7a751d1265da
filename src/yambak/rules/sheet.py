"""One row, column or relation of a sheet from its raw table: each key checked against the kind that reads
it, each number of points within the limit."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from ..names import InvalidName, normalize_name
from .checks import (
    RulesetError,
    as_list,
    check_points,
    choice,
    ident,
    nearest,
    no_unknown,
    read_key,
    read_points,
)
from .model import MATCHED_KINDS, ORDER_KINDS, RELATION_KINDS, ROW_KINDS, CategoryPoints, Column, Relation, Row

__all__ = ["build_column", "build_relation", "build_row", "read_steps"]

_ROW_KEYS = {
    "id", "kind", "points", "bonus", "face", "n", "exact", "sizes", "runs", "same_colour", "needs",
    "wins_by_roll", "enabled", "label", "short", "aliases", "five_alike", "wild_faces", "category_points",
}  # fmt: skip
# The languages a row's aliases may be given in (the catalogs' languages, web/locale).
ALIAS_LANGUAGES = ("en", "nl", "fr", "de", "sv", "hr", "es", "it")
_ALIASES_MAX = 12  # names per language
_ROW_HINTS = {
    "value": 'a row\'s points are points (a number, "sum", "matched" or a list by roll number)',
    "score": 'a row\'s points are points (a number, "sum", "matched" or a list by roll number)',
    "same_color": "write same_colour",
    "requires": "a box that needs another box filled first names it in needs",
    "after": "a box that needs another box filled first names it in needs",
    "served": "points by roll number are a list: points = [25, 20, 20] (roll 1, 2, 3)",
    "wins": "an outright win is wins_by_roll = N (an entry that scores by roll N wins the game)",
    "wild": "a straight row's wild faces are wild_faces = [1] (dice showing them stand for any face of a run)",
}
# Which keys each row kind reads (the others are refused with the kinds that read them).
_KIND_KEYS = {
    "face": ("upper",),
    "n": ("kind",),
    "exact": ("kind",),
    "sizes": ("house",),
    "runs": ("straight",),
    "same_colour": ("one_pair", "two_pairs", "three_pairs", "full_house", "house"),
    "five_alike": ("full_house",),
    "wild_faces": ("straight",),
}
_MIN_DICE = {"three_pairs": 6}


def build_row(item: Mapping[str, object], key: str, dice: int, colours: tuple[int, ...]) -> Row:
    no_unknown(item, _ROW_KEYS, key, _ROW_HINTS)
    rid = ident(read_key(item, "id", str, key), f"{key}.id")
    kind = choice(read_key(item, "kind", str, key), ROW_KINDS, f"{key}.kind")
    for name, kinds in _KIND_KEYS.items():
        if name in item and kind not in kinds:
            raise RulesetError(f"{key}.{name}", f"only rows of kind {' or '.join(kinds)} have it")
    if dice < _MIN_DICE.get(kind, 0):
        raise RulesetError(f"{key}.kind", f"a {kind} row needs dice = {_MIN_DICE[kind]}")
    bonus = read_points(item, "bonus", int, key, 0)
    face = n = 0
    runs: tuple[frozenset[int], ...] = ()
    sizes: tuple[int, ...] = ()
    if kind == "upper":
        face = read_key(item, "face", int, key)
        if not 1 <= face <= 6:
            raise RulesetError(f"{key}.face", "must be 1 to 6")
    if kind == "kind":
        n = read_key(item, "n", int, key)
        if not 2 <= n <= dice:
            raise RulesetError(f"{key}.n", f"must be 2 to {dice} (the dice that count)")
    if kind == "house":
        raw = as_list(read_key(item, "sizes", list, key), f"{key}.sizes")
        if len(raw) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in raw):
            raise RulesetError(f"{key}.sizes", "a house is two counts of two different faces, such as [3, 3]")
        if sum(raw) > dice or max(raw) < 2:
            raise RulesetError(f"{key}.sizes", f"the two counts must add up to at most {dice} (the dice that count)")
        sizes = (int(raw[0]), int(raw[1]))
    if kind == "straight":
        raw_runs = as_list(read_key(item, "runs", list, key), f"{key}.runs")
        if not raw_runs:
            raise RulesetError(f"{key}.runs", "needs at least one run")
        parsed = []
        for j, run in enumerate(raw_runs):
            if not isinstance(run, list) or not run or not all(isinstance(v, int) and 1 <= v <= 6 for v in run):
                raise RulesetError(f"{key}.runs[{j + 1}]", "must be a list of faces 1 to 6")
            if len(set(run)) != len(run) or len(run) > dice:
                raise RulesetError(f"{key}.runs[{j + 1}]", f"must list up to {dice} different faces")
            parsed.append(frozenset(run))
        runs = tuple(parsed)
    wild_faces: tuple[int, ...] = ()
    if "wild_faces" in item:
        raw_wild = as_list(item["wild_faces"], f"{key}.wild_faces")
        if not all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 6 for v in raw_wild):
            raise RulesetError(f"{key}.wild_faces", "must be a list of faces 1 to 6")
        if len(set(raw_wild)) != len(raw_wild) or not 1 <= len(raw_wild) <= 5:
            raise RulesetError(f"{key}.wild_faces", "must list one to five different faces")
        wild_faces = tuple(sorted(raw_wild))
    same_colour = read_key(item, "same_colour", bool, key, False)
    if (same_colour or kind == "flush") and not colours:
        raise RulesetError(f"{key}.kind" if kind == "flush" else f"{key}.same_colour", "needs [faces] colours")
    given = read_key(item, "points", (int, str, list), key, "sum")
    points: Literal["sum", "matched"] | int | tuple[int, ...]
    if isinstance(given, list):
        if not given or not all(isinstance(p, int) and not isinstance(p, bool) for p in given):
            raise RulesetError(f"{key}.points", "a list of points must hold whole numbers, one per roll")
        for p in given:
            check_points(p, f"{key}.points")
        points = tuple(given)
    elif isinstance(given, int):
        check_points(given, f"{key}.points")
        points = given
    else:
        if given not in ("sum", "matched"):
            guess = nearest(given, ("sum", "matched"))
            hint = f"; did you mean {guess!r}?" if guess else ""
            raise RulesetError(f"{key}.points", f"{given!r} is not a number, 'sum', 'matched' or a list{hint}")
        points = "sum" if given == "sum" else "matched"
        if points == "matched" and kind not in MATCHED_KINDS:
            raise RulesetError(f"{key}.points", f"a {kind} row has no matched dice")
    if kind == "upper" and ("points" in item or bonus):
        raise RulesetError(f"{key}.points", "upper rows always score face x count")
    needs = read_key(item, "needs", str, key, "")
    wins = read_key(item, "wins_by_roll", int, key, 0)
    if wins < 0 or (wins and kind in ("upper", "sum")):
        raise RulesetError(f"{key}.wins_by_roll", "a roll number, on a row with a combination to meet")
    return Row(
        id=rid,
        kind=kind,
        points=points,
        bonus=bonus,
        face=face,
        n=n,
        runs=runs,
        exact=read_key(item, "exact", bool, key, False),
        sizes=sizes,
        colours=colours if (same_colour or kind == "flush") else (),
        same_colour=same_colour,
        five_alike=read_key(item, "five_alike", bool, key, False),
        wild_faces=wild_faces,
        category_points=_category_points(item, key),
        needs=needs,
        wins_by_roll=wins,
        label=_label(item, key),
        short=_label(item, key, "short", 12),
        aliases=_aliases(item, key),
    )


_CATEGORY_KEYS = {"table", "every_box", "per_box", "rank"}
_CATEGORY_HINTS = {
    "steps": "a row's points by its total are table = [[threshold, points], ...]",
    "thresholds": "a row's points by its total are table = [[threshold, points], ...]",
    "all": "points when every box of the row scored are every_box = N",
    "each": "points for each box of the row that scored are per_box = N",
    "ranks": "points by rank among the players are rank = [first, second, ...]",
}


def _category_points(item: Mapping[str, object], key: str) -> CategoryPoints | None:
    """`category_points = { table = [[52, 2]], every_box = 4, per_box = 2, rank = [3, 1] }`: what the row's
    boxes earn at the end of a category_points game (each part optional, at least one given)."""
    if "category_points" not in item:
        return None
    where = f"{key}.category_points"
    t = read_key(item, "category_points", dict, key)
    no_unknown(t, _CATEGORY_KEYS, where, _CATEGORY_HINTS)
    if not t:
        raise RulesetError(where, "give at least one of " + ", ".join(sorted(_CATEGORY_KEYS)))
    rank = as_list(read_key(t, "rank", list, where, []), f"{where}.rank")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in rank) or len(rank) > 20:
        raise RulesetError(f"{where}.rank", "a list of up to 20 numbers: the points for first, second, ...")
    for v in rank:
        check_points(v, f"{where}.rank")
    return CategoryPoints(
        table=read_steps(t, "table", where) if "table" in t else (),
        every_box=read_points(t, "every_box", (int, float), where, 0),
        per_box=read_points(t, "per_box", (int, float), where, 0),
        rank=tuple(float(v) for v in rank),
    )


def read_steps(table: Mapping[str, object], name: str, key: str) -> tuple[tuple[int, float], ...]:
    """A table of points by a total: [[threshold, points], ...], thresholds whole and rising."""
    where = f"{key}.{name}"
    raw = as_list(read_key(table, name, list, key), where)
    if not raw:
        raise RulesetError(where, "needs at least one [threshold, points]")
    steps: list[tuple[int, float]] = []
    for j, step in enumerate(raw):
        at = f"{where}[{j + 1}]"
        if (
            not isinstance(step, list)
            or len(step) != 2
            or not isinstance(step[0], int)
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in step)
        ):
            raise RulesetError(at, "a step is [threshold, points]: a whole number and a number")
        check_points(step[0], at)
        check_points(step[1], at)
        steps.append((int(step[0]), float(step[1])))
    if any(b[0] <= a[0] for a, b in zip(steps, steps[1:], strict=False)):
        raise RulesetError(where, "thresholds must rise from step to step")
    return tuple(steps)


def _aliases(item: Mapping[str, object], key: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`aliases = { en = ["four of a kind", "poker"], fr = ["carré"] }`: the names players say, by language,
    each cleaned as a label is; a language at most once, a name at most once in it."""
    table = read_key(item, "aliases", dict, key, {})
    out = []
    for lang, names in table.items():
        where = f"{key}.aliases.{lang}"
        if lang not in ALIAS_LANGUAGES:
            raise RulesetError(where, f"not a language of the catalogs ({', '.join(ALIAS_LANGUAGES)})")
        names = as_list(names, where)
        if len(names) > _ALIASES_MAX:
            raise RulesetError(where, f"at most {_ALIASES_MAX} names")
        cleaned: list[str] = []
        for i, name in enumerate(names):
            try:
                text = normalize_name(name, "an alias", 40)
            except InvalidName as exc:
                raise RulesetError(f"{where}[{i}]", exc.message) from None
            if text.casefold() in (c.casefold() for c in cleaned):
                raise RulesetError(f"{where}[{i}]", f"{text!r} is given twice")
            cleaned.append(text)
        out.append((lang, tuple(cleaned)))
    return tuple(out)


def _label(item: Mapping[str, object], key: str, name: str = "label", limit: int = 40) -> str:
    """A row's or column's own name, cleaned as every name players read is (yambak.names)."""
    label: str = read_key(item, name, str, key, "")
    if not label:
        return ""
    try:
        return normalize_name(label, name, limit)
    except InvalidName as exc:
        raise RulesetError(f"{key}.{name}", exc.message) from None


_COLUMN_KEYS = {"id", "order", "rolls", "announce", "withdraw", "start", "points", "enabled", "label", "multiplier"}


def build_column(item: Mapping[str, object], key: str, row_ids: list[str], rolls_per_turn: int) -> Column:
    no_unknown(item, _COLUMN_KEYS, key, {"kind": "a column's fill order is order"})
    cid = ident(read_key(item, "id", str, key), f"{key}.id")
    order = choice(read_key(item, "order", str, key, "free"), ORDER_KINDS, f"{key}.order")
    rolls = read_key(item, "rolls", int, key, None)
    if rolls is not None and not 1 <= rolls <= rolls_per_turn:
        raise RulesetError(f"{key}.rolls", f"must be between 1 and {rolls_per_turn}")
    announce = read_key(item, "announce", bool, key, False)
    withdraw = read_key(item, "withdraw", bool, key, False)
    if withdraw and not announce:
        raise RulesetError(f"{key}.withdraw", "only announce columns have announcements to withdraw")
    if announce and rolls is not None:
        raise RulesetError(f"{key}.announce", "an announce column cannot also restrict rolls")
    start = tuple(as_list(read_key(item, "start", list, key, []), f"{key}.start"))
    if order == "middle":
        if len(start) != 2 or any(s not in row_ids for s in start):
            raise RulesetError(f"{key}.start", "a middle column names the two rows it starts from")
        a, b = sorted(row_ids.index(s) for s in start)
        if b != a + 1:
            raise RulesetError(f"{key}.start", "the two start rows must be next to each other")
        start = (row_ids[a], row_ids[b])
    elif start:
        raise RulesetError(f"{key}.start", "only middle columns have start rows")
    points = read_points(item, "points", (int, float), key, 0)
    multiplier = read_key(item, "multiplier", int, key, 1)
    if not 1 <= multiplier <= 100:
        raise RulesetError(f"{key}.multiplier", "must be a whole number from 1 to 100 (the column's total times it)")
    return Column(
        id=cid,
        order=order,
        rolls=rolls,
        announce=announce,
        withdraw=withdraw,
        start=start,
        points=points,
        label=_label(item, key),
        multiplier=multiplier,
    )


def build_relation(item: Mapping[str, object], key: str, row_ids: list[str]) -> Relation:
    no_unknown(item, {"id", "kind", "high", "low", "factor", "last_resort", "strict", "enabled"}, key)
    kind = choice(read_key(item, "kind", str, key), RELATION_KINDS, f"{key}.kind")
    rel = Relation(
        id=read_key(item, "id", str, key, kind),
        kind=kind,
        high=read_key(item, "high", str, key),
        low=read_key(item, "low", str, key),
        factor=read_key(item, "factor", str, key, ""),
        last_resort=read_key(item, "last_resort", bool, key, False),
        strict=read_key(item, "strict", bool, key, False),
    )
    for name in ("high", "low") + (("factor",) if kind == "minimax" else ()):
        if getattr(rel, name) not in row_ids:
            guess = nearest(getattr(rel, name), row_ids)
            hint = f"; did you mean {guess!r}?" if guess else ""
            raise RulesetError(f"{key}.{name}", f"no row {getattr(rel, name)!r}{hint}")
    if rel.high == rel.low:
        raise RulesetError(f"{key}.low", "must differ from high")
    if rel.last_resort and kind != "max_gt_min":
        raise RulesetError(f"{key}.last_resort", "only max_gt_min relations have it")
    if rel.strict and kind != "min_lt_max_at_entry":
        raise RulesetError(f"{key}.strict", "only min_lt_max_at_entry relations have it")
    return rel
