"""A whole `Ruleset` from raw data: options applied, then every top-level key checked and each part built."""

from __future__ import annotations

import copy
from collections.abc import Mapping

from .checks import (
    RulesetError,
    as_list,
    as_table,
    check_points,
    choice,
    clean_text,
    enabled_items,
    no_unknown,
    read_key,
    read_points,
    unique,
)
from .model import (
    DICE_COUNTS,
    JOKER_PLACEMENTS,
    MATCH_KINDS,
    MODIFIERS,
    TIE_RULES,
    Joker,
    Match,
    Row,
    Ruleset,
    UpperBonus,
)
from .options import apply_options
from .sheet import build_column, build_relation, build_row, read_steps

__all__ = ["build_ruleset"]

_TOP_KEYS = {
    "id",
    "name",
    "description",
    "dice",
    "rolls_per_turn",
    "save_rolls",
    "strike_any",
    "faces",
    "upper_bonus",
    "joker",
    "match",
    "rows",
    "columns",
    "relations",
    "options",
    "win_points",
    "sources",
    "lobby",
    # read before validation; listed so that the list of allowed keys is whole
    "extends",
    "option_defaults",
    "modifiers",
}
_TOP_HINTS = {
    "six_dice": 'write dice = 6 for six dice that all count, or modifiers = ["six_dice"] to roll six and count five',
    "rolls": "the rolls of a turn are rolls_per_turn",
    "bonus": "the upper section's bonus is the table [upper_bonus] (threshold and points, or steps)",
    "colours": "face colours are [faces] colours = [...], one per face 1 to 6",
    "colors": "face colours are [faces] colours = [...], one per face 1 to 6",
}


def build_ruleset(
    data: dict[str, object], chosen: Mapping[str, object], modifiers: list[str], preset: str | None
) -> Ruleset:
    """The ruleset of raw data with the options `chosen` and the `modifiers` (both checked here)."""
    data = copy.deepcopy(data)
    options, defaults = apply_options(data, as_table(dict(chosen), "options"))
    data.pop("modifiers", None)  # a file's own modifiers were taken by load_ruleset
    no_unknown(data, _TOP_KEYS, "", _TOP_HINTS)
    rid = read_key(data, "id", str, "", "custom")
    rolls_per_turn, dice = _turn(data)
    colours, colour_names = _faces(data)
    rows = _rows(data, dice, colours, rolls_per_turn)
    row_ids = [r.id for r in rows]
    columns = tuple(build_column(item, key, row_ids, rolls_per_turn) for key, item in _items(data, "columns"))
    if not columns:
        raise RulesetError("columns", "a ruleset needs at least one column")
    unique([c.id for c in columns], "columns")
    if len(columns) == 1 and columns[0].multiplier != 1:
        raise RulesetError(
            f"columns.{columns[0].id}.multiplier",
            "a multiplier weighs columns against each other: a one-column sheet has none (scale its points instead)",
        )
    relations = tuple(build_relation(item, key, row_ids) for key, item in _items(data, "relations"))
    unique([r.id for r in relations], "relations")
    upper_bonus = _upper_bonus(data) if "upper_bonus" in data else None
    joker = _joker(data, rows, len(columns)) if "joker" in data else None
    match = _match(data) if "match" in data else Match()
    _check_category_points(rows, match)
    mods = _modifiers(modifiers, dice)
    _lobby(data)
    save_rolls = read_key(data, "save_rolls", bool, "", False)
    sources = as_list(read_key(data, "sources", list, "", []), "sources")
    if not all(isinstance(x, str) and 0 < len(x) <= 300 for x in sources) or len(sources) > 10:
        raise RulesetError("sources", "at most 10 strings (a title and an address each), 300 characters at most")
    win_points = read_points(data, "win_points", int, "", None)
    return Ruleset(
        id=rid,
        name=clean_text(read_key(data, "name", str, "", rid), rid),
        description=clean_text(read_key(data, "description", str, "", ""), ""),
        rows=rows,
        columns=columns,
        dice=dice,
        rolls_per_turn=rolls_per_turn,
        save_rolls=save_rolls,
        colours=colour_names,
        win_points=win_points,
        sources=tuple(sources),
        upper_bonus=upper_bonus,
        relations=relations,
        joker=joker,
        strike_any=read_key(data, "strike_any", bool, "", False),
        match=match,
        modifiers=frozenset(mods),
        options=options,
        option_defaults=defaults,
        preset=preset,
    )


def _turn(data: Mapping[str, object]) -> tuple[int, int]:
    """(rolls per turn, dice that count)."""
    rolls_per_turn: int = read_key(data, "rolls_per_turn", int, "", 3)
    if not 1 <= rolls_per_turn <= 10:
        raise RulesetError("rolls_per_turn", "must be between 1 and 10")
    dice: int = read_key(data, "dice", int, "", 5)
    if dice not in DICE_COUNTS:
        raise RulesetError(
            "dice",
            f"{dice} dice are not supported: 5 or 6 dice that all count "
            '(or modifiers = ["six_dice"]: six rolled, five count)',
        )
    return rolls_per_turn, dice


def _items(data: Mapping[str, object], section: str) -> list[tuple[str, dict[str, object]]]:
    """(key, table) of each enabled item of [[rows]], [[columns]] or [[relations]]."""
    return enabled_items(as_list(data.get(section, []), section), section)


def _aliases_name_one_row(rows: tuple[Row, ...]) -> None:
    """An alias names one row: no other row's id, label or alias (in any language) is the same name."""

    def key(text: str) -> str:
        return "".join(ch for ch in text.casefold() if ch not in "_- ")

    owner = {key(name): r.id for r in rows for name in (r.id, r.label) if name}
    for r in rows:
        for lang, names in r.aliases:
            for name in names:
                other = owner.setdefault(key(name), r.id)
                if other != r.id:
                    raise RulesetError(f"rows.{r.id}.aliases.{lang}", f"{name!r} already names the row {other!r}")


def _rows(data: Mapping[str, object], dice: int, colours: tuple[int, ...], rolls_per_turn: int) -> tuple[Row, ...]:
    """The enabled rows, their ids unique and every `needs` naming another row, with no circle."""
    rows = tuple(build_row(item, key, dice, colours) for key, item in _items(data, "rows"))
    if not rows:
        raise RulesetError("rows", "a ruleset needs at least one row")
    row_ids = [r.id for r in rows]
    unique(row_ids, "rows")
    _aliases_name_one_row(rows)
    for row in rows:
        if row.needs and (row.needs not in row_ids or row.needs == row.id):
            raise RulesetError(f"rows.{row.id}.needs", f"no other row {row.needs!r}")
        if row.wins_by_roll > rolls_per_turn:
            raise RulesetError(f"rows.{row.id}.wins_by_roll", f"must be between 1 and {rolls_per_turn}")
    chains = {r.id: r.needs for r in rows if r.needs}
    for start in chains:
        seen, at = {start}, chains[start]
        while at in chains:
            if chains[at] in seen:
                raise RulesetError(f"rows.{start}.needs", "rows needing each other can never be filled")
            seen.add(at)
            at = chains[at]
    return rows


def _joker(data: Mapping[str, object], rows: tuple[Row, ...], n_columns: int) -> Joker:
    t = as_table(data["joker"], "joker")
    no_unknown(t, {"row", "bonus", "placement"}, "joker", {
        "forced": 'the joker\'s placement is placement = "forced", "free" or "none"',
        "free": 'the joker\'s placement is placement = "forced", "free" or "none"',
    })  # fmt: skip
    joker = Joker(
        read_key(t, "row", str, "joker"),
        read_points(t, "bonus", int, "joker", 0),
        choice(read_key(t, "placement", str, "joker", "forced"), JOKER_PLACEMENTS, "joker.placement"),
    )
    if next((r.kind for r in rows if r.id == joker.row), None) != "yam":
        raise RulesetError("joker.row", "must name a row of kind yam")
    if n_columns != 1:
        raise RulesetError("joker", "not supported: the joker is defined for one-column sheets only")
    return joker


def _match(data: Mapping[str, object]) -> Match:
    t = as_table(data["match"], "match")
    no_unknown(t, {"kind", "total_points", "ties", "total_table"}, "match")
    kind = choice(read_key(t, "kind", str, "match", "total"), MATCH_KINDS, "match.kind")
    ties = choice(read_key(t, "ties", str, "match", "share"), TIE_RULES, "match.ties")
    if kind == "category_points" and ties != "share":
        raise RulesetError("match.ties", 'category points are shared when level: ties = "share"')
    if "total_table" in t and kind != "category_points":
        raise RulesetError("match.total_table", 'only with kind = "category_points"')
    return Match(
        kind=kind,
        total_points=read_points(t, "total_points", (int, float), "match", 0),
        ties=ties,
        total_table=read_steps(t, "total_table", "match") if "total_table" in t else (),
    )


def _check_category_points(rows: tuple[Row, ...], match: Match) -> None:
    """Category points belong to a category_points game, which has something to award."""
    scored = [r for r in rows if r.category_points is not None]
    if match.kind != "category_points":
        if scored:
            raise RulesetError(f"rows.{scored[0].id}.category_points", 'only with [match] kind = "category_points"')
        return
    if not scored and not match.total_table:
        raise RulesetError("match.kind", "category_points needs a row with category_points or match.total_table")


def _modifiers(modifiers: list[str], dice: int) -> list[str]:
    """The modifiers named, each known, in their first order."""
    mods: list[str] = []
    for m in modifiers:
        choice(m, MODIFIERS, "modifiers")
        if m not in mods:
            mods.append(m)
    if "six_dice" in mods and dice != 5:
        raise RulesetError("modifiers", "six_dice rolls six dice of which five count: not with dice = 6")
    return mods


_LOBBY_KEYS = {"blurb", "order", "first_in", "daily", "clubs"}


def _lobby(data: Mapping[str, object]) -> None:
    """[lobby]: where the preset's faces list it (rules/registry.py); checked, not part of the rules."""
    if "lobby" not in data:
        return
    t = as_table(data["lobby"], "lobby")
    no_unknown(t, _LOBBY_KEYS, "lobby")
    read_key(t, "blurb", str, "lobby", "")
    read_key(t, "order", int, "lobby", 100)
    read_key(t, "daily", bool, "lobby", False)
    read_key(t, "clubs", bool, "lobby", True)
    first = as_list(read_key(t, "first_in", list, "lobby", []), "lobby.first_in")
    if not all(isinstance(x, str) and len(x) == 2 for x in first):
        raise RulesetError("lobby.first_in", "a list of two-letter language codes")


def _faces(data: Mapping[str, object]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """[faces] colours = ["black", "red", ...] (faces 1 to 6): colour numbers by face (index 0 unused), and
    the names."""
    if "faces" not in data:
        return (), ()
    t = as_table(data["faces"], "faces")
    no_unknown(t, {"colours"}, "faces", {"colors": "write colours (one per face 1 to 6)"})
    names = as_list(read_key(t, "colours", list, "faces"), "faces.colours")
    if len(names) != 6 or not all(isinstance(n, str) and n for n in names):
        raise RulesetError("faces.colours", "must list six colour names, one per face 1 to 6")
    order = list(dict.fromkeys(names))
    return (0,) + tuple(order.index(n) for n in names), tuple(names)


def _upper_bonus(data: Mapping[str, object]) -> UpperBonus:
    t = as_table(data["upper_bonus"], "upper_bonus")
    no_unknown(t, {"threshold", "points", "steps"}, "upper_bonus")
    if "steps" in t:
        if "threshold" in t or "points" in t:
            raise RulesetError("upper_bonus.steps", "write either threshold and points, or steps")
        raw = as_list(t["steps"], "upper_bonus.steps")
        steps: list[tuple[int, int]] = []
        for j, step in enumerate(raw):
            key = f"upper_bonus.steps[{j + 1}]"
            if (
                not isinstance(step, list)
                or len(step) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in step)
            ):
                raise RulesetError(key, "a step is [threshold, points], two whole numbers")
            check_points(step[0], key)
            check_points(step[1], key)
            steps.append((step[0], step[1]))
        if not steps:
            raise RulesetError("upper_bonus.steps", "needs at least one step")
        if any(b[0] <= a[0] for a, b in zip(steps, steps[1:], strict=False)):
            raise RulesetError("upper_bonus.steps", "thresholds must rise from step to step")
        bonus = UpperBonus(steps[0][0], steps[0][1], tuple(steps) if len(steps) > 1 else ())
    else:
        threshold = read_points(t, "threshold", int, "upper_bonus")
        bonus = UpperBonus(threshold, read_points(t, "points", int, "upper_bonus"))
    if bonus.threshold < 1:
        raise RulesetError("upper_bonus.threshold", "must be at least 1")
    return bonus
