"""Build a `Ruleset` from TOML data: presets shipped with the package or a user's file.

The data format (see the presets in `presets/` for complete examples):

    id, name, description          strings
    rolls_per_turn                 int, default 3
    strike_any                     bool: any fillable box may be struck for 0
    extends                        a preset id whose data this file starts from
    [upper_bonus]                  threshold, points
    [joker]                        row, bonus (the Yahtzee joker and extra bonus)
    [match]                        kind = total | column_points, total_points, ties
    [[rows]]                       id, kind, points, bonus, face, n, runs, enabled
    [[columns]]                    id, order, rolls, announce, withdraw, start, points, enabled
    [[relations]]                  id, kind, high, low, factor, last_resort, strict, enabled
    [options.NAME]                 description, default, and either
        values.VALUE = { set = { "rows.ID.KEY" = ..., ... } }     one choice
        items.ITEM = { set = {...} }                               a list of choices
    [option_defaults]              NAME = value: new defaults (with `extends`)

Options patch the data with dotted paths before it is validated, so a variant
is a data file, never a branch in the engine.

Limits. Every number that counts points (a row's `points` and `bonus`, the
upper bonus's `threshold` and `points`, the joker's `bonus`, a column's and the
match's `points`) lies within +-`POINTS_LIMIT` (one million), and an upper bonus
threshold is at least 1. A sheet of a thousand boxes then totals below 10^10,
far inside what the engine's integers, the solver's int64 and float64 (exact to
2^53) and JSON readers (JavaScript numbers, exact to 2^53) hold exactly; a
larger value is refused with its key named. A ruleset file is UTF-8 TOML of at
most `FILE_LIMIT` bytes (1 MiB).

Texts. A ruleset's name and description are shown to other people (the lobby, a table's page): they
pass `yambak.names.normalize_name`, the one rule for every text a person types (no bidirectional
overrides, no invisible characters, whitespace folded). House rules a server takes in also pass
`check_house_rules`: an id of `[a-z0-9_-]{1,40}`, a name of at most `NAME_LIMIT` characters, row and
column ids (shown as their labels) of at most `LABEL_LIMIT`, and a sheet of at most `MAX_ROWS` rows,
`MAX_COLUMNS` columns, `MAX_BOXES` boxes and `MAX_DICE` dice: what a bot decides on, a page shows and
the coach advises on in a moment (every shipped preset, its options included, fits: 13 x 7 at most).
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from ..inputs import InputError, check_shape, parse_toml
from ..names import InvalidName, normalize_name
from .model import (
    DICE_COUNTS,
    JOKER_PLACEMENTS,
    MATCH_KINDS,
    MATCHED_KINDS,
    MODIFIERS,
    ORDER_KINDS,
    RELATION_KINDS,
    ROW_KINDS,
    TIE_RULES,
    Column,
    Joker,
    Match,
    Relation,
    Row,
    Ruleset,
    UpperBonus,
)

__all__ = [
    "FILE_LIMIT",
    "MAX_BOXES",
    "MAX_COLUMNS",
    "MAX_DICE",
    "MAX_ROWS",
    "POINTS_LIMIT",
    "RulesetError",
    "check_house_rules",
    "load_ruleset",
    "load_ruleset_arg",
    "load_ruleset_file",
    "parse_options",
    "preset_ids",
    "preset_data",
    "read_ruleset_file",
]

POINTS_LIMIT = 1_000_000  # the largest number of points any value of a ruleset may count (see above)
FILE_LIMIT = 1 << 20  # the largest ruleset file read, in bytes
# House rules a server takes in (`check_house_rules`): texts and the size of the sheet.
RULESET_ID = re.compile(r"[a-z0-9_-]{1,40}")
NAME_LIMIT = 60  # a ruleset's name, as a table's
DESCRIPTION_LIMIT = 500
LABEL_LIMIT = 24  # a row's or column's id, which a page shows as its label
MAX_ROWS, MAX_COLUMNS, MAX_BOXES, MAX_DICE = 24, 8, 128, 6


class RulesetError(ValueError):
    """A ruleset (preset request, options or user file) that cannot be built."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


PRESET_DIRS_ENV = "YAMBAK_PRESET_DIRS"  # more folders of preset files (os.pathsep between them)


def _preset_files() -> dict[str, Any]:
    """Preset id -> its file: the package's presets, then those of the folders in YAMBAK_PRESET_DIRS (a
    preset there may not take a shipped preset's id)."""
    folder = resources.files("yambak.rules") / "presets"
    files: dict[str, Any] = {p.name[: -len(".toml")]: p for p in folder.iterdir() if p.name.endswith(".toml")}
    for extra in filter(None, os.environ.get(PRESET_DIRS_ENV, "").split(os.pathsep)):
        path = Path(extra)
        if path.is_dir():
            for file in sorted(path.glob("*.toml")):
                files.setdefault(file.name[: -len(".toml")], file)
    return files


def preset_ids() -> list[str]:
    return sorted(_preset_files())


def preset_data(preset: str) -> dict[str, Any]:
    """The raw TOML data of a preset, with `extends` resolved."""
    files = _preset_files()
    if not isinstance(preset, str) or preset not in files:
        raise RulesetError("preset", _unknown_preset(preset))
    text = files[preset].read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError("preset", f"{preset}: not valid TOML ({exc})") from None
    return _resolve_extends(data, seen=(preset,))


def _unknown_preset(name: Any) -> str:
    guess = nearest(name, preset_ids()) if isinstance(name, str) else None
    hint = f"; did you mean {guess!r}?" if guess else ""
    shown = repr(name) if isinstance(name, str) else _show(name)
    return f"unknown preset {shown}{hint} (known: {', '.join(preset_ids())})"


def _resolve_extends(data: dict[str, Any], seen: tuple[str, ...] = ()) -> dict[str, Any]:
    parent_id = data.pop("extends", None)
    if parent_id is None:
        return data
    if not isinstance(parent_id, str) or parent_id in seen:
        raise RulesetError("extends", f"cannot extend {_show(parent_id)}")
    parent = preset_data(parent_id) if parent_id in preset_ids() else None
    if parent is None:
        raise RulesetError("extends", _unknown_preset(parent_id))
    defaults = data.pop("option_defaults", {})
    merged = {**parent, **data}
    if defaults:
        if not isinstance(defaults, dict):
            raise RulesetError("option_defaults", "must be a table")
        options = copy.deepcopy(merged.get("options", {}))
        for name, value in defaults.items():
            if name not in options:
                raise RulesetError(f"option_defaults.{name}", "no such option")
            options[name]["default"] = value
        merged["options"] = options
    return merged


def load_ruleset(
    spec: str | Mapping[str, Any],
    options: Mapping[str, Any] | None = None,
    modifiers: list[str] | tuple[str, ...] | None = None,
) -> Ruleset:
    """A ruleset from a preset id, a record's `rules` object, or a full inline ruleset.

    `spec` may be "yammen", {"preset": "yams-fr", "options": {...}, "modifiers": [...]},
    or a dict with the data format above (a user's ruleset).
    """
    if isinstance(spec, Mapping):
        try:  # before any copy or walk of it: a deep nest or a huge number is refused here, in one line
            check_shape(spec)
        except InputError as exc:
            raise RulesetError("rules", str(exc)) from None
    original = copy.deepcopy(spec) if isinstance(spec, Mapping) else spec
    passed_separately = bool(options) or bool(modifiers)
    if isinstance(spec, str):
        data, preset = preset_data(spec), spec
    elif isinstance(spec, Mapping):
        if "preset" in spec:
            extra = set(spec) - {"preset", "options", "modifiers"}
            if extra:
                raise RulesetError(sorted(extra)[0], "unknown key in a preset reference")
            data, preset = preset_data(spec["preset"]), spec["preset"]
            options = {**_table(spec.get("options", {}), "options"), **(options or {})}
            modifiers = list(_list(spec.get("modifiers", []), "modifiers")) + list(modifiers or [])
        else:
            data, preset = _resolve_extends(copy.deepcopy(dict(spec))), None
            if "modifiers" in data:
                modifiers = list(_list(data.pop("modifiers"), "modifiers")) + list(modifiers or [])
    else:
        raise RulesetError("rules", "must be a preset id or a table")
    ruleset = _build(data, options or {}, list(modifiers or []), preset)
    record_spec: Any = original
    if passed_separately and isinstance(original, Mapping) and preset is None:
        record_spec = {**copy.deepcopy(dict(original)), "modifiers": sorted(ruleset.modifiers)}
        chosen: dict[str, Any] = dict(ruleset.options)
        for name, spec_ in record_spec.get("options", {}).items():  # options chosen apart become the defaults
            if name in chosen and isinstance(spec_, dict):
                value = chosen[name]
                spec_["default"] = list(value) if isinstance(value, tuple) else value
    elif passed_separately and preset is not None:
        defaults = dict(ruleset.option_defaults)
        changed = {k: list(v) if isinstance(v, tuple) else v for k, v in ruleset.options if defaults.get(k) != v}
        record_spec = preset
        if changed or ruleset.modifiers:
            record_spec = {"preset": preset, "options": changed}
            if ruleset.modifiers:
                record_spec["modifiers"] = sorted(ruleset.modifiers)
    object.__setattr__(ruleset, "spec", record_spec)
    return ruleset


def check_house_rules(ruleset: Ruleset) -> None:
    """House rules as a server takes them in (the module's "Texts"): RulesetError naming what is over."""
    if not RULESET_ID.fullmatch(ruleset.id):
        raise RulesetError("id", f"{_show(ruleset.id[:50])} is not an id (1 to 40 of a-z, 0-9, _ and -)")
    texts = (("name", ruleset.name, NAME_LIMIT), ("description", ruleset.description, DESCRIPTION_LIMIT))
    for key, text, limit in texts:
        if len(text) > limit:
            raise RulesetError(key, f"is at most {limit} characters ({len(text)} given)")
    labels = [("rows", i, r.id) for i, r in enumerate(ruleset.rows)]
    labels += [("columns", i, c.id) for i, c in enumerate(ruleset.columns)]
    for key, i, label in labels:
        if len(label) > LABEL_LIMIT or _clean(label, "") != label:
            raise RulesetError(f"{key} #{i + 1}.id", f"a label of 1 to {LABEL_LIMIT} letters, digits and _")
    for key, n, limit in (
        ("rows", ruleset.n_rows, MAX_ROWS),
        ("columns", len(ruleset.columns), MAX_COLUMNS),
        ("boxes", ruleset.n_boxes, MAX_BOXES),
        ("dice", ruleset.rolled_dice, MAX_DICE),
    ):
        if n > limit:
            raise RulesetError(key, f"house rules have at most {limit} {key} ({n} given)")


def _clean(text: str, fallback: str) -> str:
    """A text others read, by the one rule for names (`normalize_name`): `fallback` when nothing is left."""
    try:
        return normalize_name(text, limit=FILE_LIMIT)
    except InvalidName:
        return fallback


def read_ruleset_file(path: str | Path) -> dict[str, Any]:
    """The raw data of a user's TOML ruleset file, `extends` resolved; `RulesetError` (keyed by the path)
    for a file that is missing, unreadable, a directory, larger than `FILE_LIMIT`, not UTF-8 or not TOML."""
    name = str(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(FILE_LIMIT + 1)
    except OSError as exc:
        raise RulesetError(name, f"cannot read ({exc.strerror or exc})") from None
    if len(raw) > FILE_LIMIT:
        raise RulesetError(name, f"larger than {FILE_LIMIT // 1024} KiB: not a ruleset file")
    try:
        data = parse_toml(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RulesetError(name, "not a text file (UTF-8 TOML expected)") from None
    except InputError as exc:
        raise RulesetError(name, str(exc)) from None
    return _resolve_extends(data)


def load_ruleset_file(
    path: str | Path, options: Mapping[str, Any] | None = None, modifiers: list[str] | tuple[str, ...] | None = None
) -> Ruleset:
    """A user's TOML ruleset file (same format as the presets)."""
    return load_ruleset(read_ruleset_file(path), options, modifiers)


def load_ruleset_arg(
    spec: str, option_pairs: list[str] | None = None, modifiers: list[str] | tuple[str, ...] | None = None
) -> Ruleset:
    """The ruleset a command line names: a preset id, or the path of a TOML ruleset file (a name
    ending in `.toml`, holding a path separator, or naming an existing file), with `KEY=VALUE`
    option strings typed by the preset's or the file's options (`parse_options`): an option the
    ruleset does not have is refused, never ignored."""
    if spec in preset_ids():
        return load_ruleset(spec, parse_options(spec, option_pairs), modifiers)
    if spec.endswith(".toml") or "/" in spec or Path(spec).is_file():
        data = read_ruleset_file(spec)
        return load_ruleset(data, parse_options(data, option_pairs), modifiers)
    raise RulesetError("preset", _unknown_preset(spec) + "; or a .toml file")


# --- options -------------------------------------------------------------------------


def _option_key(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _apply_options(
    data: dict[str, Any], chosen: Mapping[str, Any]
) -> tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]]:
    """The option values chosen (each patched into `data`), and every option's default."""
    specs = _table(data.pop("options", {}), "options")
    unknown = set(chosen) - set(specs)
    if unknown:
        name = sorted(unknown)[0]
        known = ", ".join(sorted(specs)) or "none"
        raise RulesetError(f"options.{name}", f"unknown option (known: {known})")
    resolved: list[tuple[str, Any]] = []
    defaults: list[tuple[str, Any]] = []
    for name, spec in specs.items():
        spec = _table(spec, f"options.{name}")
        default = spec.get("default")
        defaults.append((name, tuple(default) if isinstance(default, list) else default))
        value = chosen.get(name, default)
        key = f"options.{name}"
        if "items" in spec:  # a list option: any subset of the items, each patching in turn
            items = _table(spec["items"], f"{key}.items")
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise RulesetError(key, f"must be a list of {', '.join(items)}")
            for item in value:
                if item not in items:
                    raise RulesetError(key, f"{item!r} is not one of {', '.join(items)}")
            if len(set(value)) != len(value):
                raise RulesetError(key, "lists an item twice")
            for item in value:
                _patch(data, _table(items[item], f"{key}.items.{item}").get("set", {}), f"{key}.items.{item}")
            resolved.append((name, tuple(value)))
        else:
            values = _table(spec.get("values", {}), f"{key}.values")
            if type(value) is not type(default) or _option_key(value) not in values:
                choices = ", ".join(values)
                raise RulesetError(key, f"{_show(value)} is not one of {choices}")
            _patch(data, _table(values[_option_key(value)], f"{key}.values").get("set", {}), key)
            resolved.append((name, value))
    return tuple(resolved), tuple(defaults)


def _patch(data: dict[str, Any], changes: Mapping[str, Any], where: str) -> None:
    """Apply `{"rows.ID.KEY": value, "match.KEY": value, "KEY": value}` to raw data."""
    for path, value in _table(changes, f"{where}.set").items():
        parts = path.split(".")
        if len(parts) == 3 and parts[0] in ("rows", "columns", "relations"):
            section, item_id, field = parts
            for item in data.get(section, []):
                if isinstance(item, dict) and item.get("id") == item_id:
                    item[field] = value
                    break
            else:
                raise RulesetError(f"{where}.set.{path}", f"no {section[:-1]} {item_id!r}")
        elif len(parts) == 2:
            data.setdefault(parts[0], {})[parts[1]] = value
        elif len(parts) == 1:
            data[parts[0]] = value
        else:
            raise RulesetError(f"{where}.set.{path}", "not a path this format knows")


# --- validation ----------------------------------------------------------------------

# Things players know from some game of the family that this format cannot say: a key naming one
# is refused as "not supported" (docs/rulesets.md), never as a typo.
NOT_SUPPORTED = {
    "sides": "dice with other than six faces are not supported",
    "faces_per_die": "dice with other than six faces are not supported",
    "rounds": "not supported: a game lasts one turn per box of the sheet",
    "wild": "wild dice are not supported",
    "wild_dice": "wild dice are not supported",
    "teams": "team play is not supported",
    "penalty": "penalties are not supported: a box scores what its row gives, or 0",
    "penalties": "penalties are not supported: a box scores what its row gives, or 0",
    "lose_turn": "losing turns is not supported",
    "timer": "not supported in a ruleset: a table's turn clock is a table setting",
    "players": "not supported in a ruleset: a table's size is a table setting",
}

_WORDS = {int: "a whole number", float: "a number", str: "a string", bool: "true or false", list: "a list",
          dict: "a table"}  # fmt: skip


def _table(value: Any, key: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RulesetError(key, f"must be a table, not {_show(value)}")
    return value


def _list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise RulesetError(key, f"must be a list, not {_show(value)}")
    return value


def _get(table: Mapping[str, Any], name: str, kind: type | tuple[type, ...], key: str, default: Any = ...) -> Any:
    if name not in table:
        if default is ...:
            raise RulesetError(f"{key}.{name}" if key else name, "is required")
        return default
    value = table[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    bad_bool = isinstance(value, bool) and bool not in kinds
    if not isinstance(value, kind) or bad_bool:
        names = " or ".join(_WORDS.get(k, k.__name__) for k in kinds)
        raise RulesetError(f"{key}.{name}" if key else name, f"must be {names}, not {_show(value)}")
    return value


def _show(value: Any) -> str:
    """A value from a ruleset as its data reads (true, [1, 2], "x"), never a Python repr (True, (1, 2))."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:  # nan, inf
        return str(value)


def _check_points(value: int | float, key: str) -> None:
    if not -POINTS_LIMIT <= value <= POINTS_LIMIT:  # False for nan too
        raise RulesetError(key, f"must be between {-POINTS_LIMIT:,} and {POINTS_LIMIT:,} (points are limited)")


def _points(table: Mapping[str, Any], name: str, kind: type | tuple[type, ...], key: str, default: Any = ...) -> Any:
    """`_get` for a number of points: within +-POINTS_LIMIT."""
    value = _get(table, name, kind, key, default)
    if value is not None:
        _check_points(value, f"{key}.{name}" if key else name)
    return value


def nearest(word: str, choices: Any) -> str | None:
    """The choice a misspelt `word` most likely meant, or None."""
    found = difflib.get_close_matches(str(word), sorted(map(str, choices)), n=1, cutoff=0.6)
    return found[0] if found else None


def _no_unknown(table: Mapping[str, Any], allowed: set[str], key: str, hints: Mapping[str, str] | None = None) -> None:
    for name in table:
        if name in allowed:
            continue
        where = f"{key}.{name}" if key else name
        hint = (hints or {}).get(name) or NOT_SUPPORTED.get(name)
        if hint:
            raise RulesetError(where, hint)
        guess = nearest(name, allowed)
        suggestion = f"; did you mean {guess!r}?" if guess else ""
        raise RulesetError(where, f"unknown key{suggestion} (allowed: {', '.join(sorted(allowed))})")


def _item_key(section: str, i: int, item: Any) -> str:
    """How an error names a row, column or relation: by its id (`rows.four_kind`), else by its place
    counted from 1 (`rows #3`)."""
    ident = item.get("id") if isinstance(item, dict) else None
    if isinstance(ident, str) and ident and all(ch.isalnum() or ch == "_" for ch in ident):
        return f"{section}.{ident}"
    return f"{section} #{i + 1}"


def _enabled(items: list[Any], section: str) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for i, item in enumerate(items):
        key = _item_key(section, i, item)
        item = _table(item, key)
        if _get(item, "enabled", bool, key, True):
            out.append((key, item))
    return out


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


def _build(data: dict[str, Any], chosen: Mapping[str, Any], modifiers: list[str], preset: str | None) -> Ruleset:
    data = copy.deepcopy(data)
    options, defaults = _apply_options(data, _table(dict(chosen), "options"))
    data.pop("modifiers", None)  # a file's own modifiers were taken by load_ruleset
    _no_unknown(data, _TOP_KEYS, "", _TOP_HINTS)
    rid = _get(data, "id", str, "", "custom")
    rolls_per_turn = _get(data, "rolls_per_turn", int, "", 3)
    if not 1 <= rolls_per_turn <= 10:
        raise RulesetError("rolls_per_turn", "must be between 1 and 10")
    dice = _get(data, "dice", int, "", 5)
    if dice not in DICE_COUNTS:
        raise RulesetError(
            "dice",
            f"{dice} dice are not supported: 5 or 6 dice that all count "
            '(or modifiers = ["six_dice"]: six rolled, five count)',
        )
    colours, colour_names = _faces(data)

    rows = tuple(
        _build_row(item, key, dice, colours) for key, item in _enabled(_list(data.get("rows", []), "rows"), "rows")
    )
    if not rows:
        raise RulesetError("rows", "a ruleset needs at least one row")
    row_ids = [r.id for r in rows]
    _unique(row_ids, "rows")
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

    columns = tuple(
        _build_column(item, key, row_ids, rolls_per_turn)
        for key, item in _enabled(_list(data.get("columns", []), "columns"), "columns")
    )
    if not columns:
        raise RulesetError("columns", "a ruleset needs at least one column")
    _unique([c.id for c in columns], "columns")

    relations = tuple(
        _build_relation(item, key, row_ids)
        for key, item in _enabled(_list(data.get("relations", []), "relations"), "relations")
    )
    _unique([r.id for r in relations], "relations")

    upper_bonus = _upper_bonus(data) if "upper_bonus" in data else None

    joker = None
    if "joker" in data:
        t = _table(data["joker"], "joker")
        _no_unknown(t, {"row", "bonus", "placement"}, "joker", {
            "forced": 'the joker\'s placement is placement = "forced", "free" or "none"',
            "free": 'the joker\'s placement is placement = "forced", "free" or "none"',
        })  # fmt: skip
        joker = Joker(
            _get(t, "row", str, "joker"),
            _points(t, "bonus", int, "joker", 0),
            _choice(_get(t, "placement", str, "joker", "forced"), JOKER_PLACEMENTS, "joker.placement"),
        )
        if joker.row not in row_ids or next(r for r in rows if r.id == joker.row).kind != "yam":
            raise RulesetError("joker.row", "must name a row of kind yam")
        if len(columns) != 1:
            raise RulesetError("joker", "not supported: the joker is defined for one-column sheets only")

    match = Match()
    if "match" in data:
        t = _table(data["match"], "match")
        _no_unknown(t, {"kind", "total_points", "ties"}, "match")
        match = Match(
            kind=_choice(_get(t, "kind", str, "match", "total"), MATCH_KINDS, "match.kind"),
            total_points=_points(t, "total_points", (int, float), "match", 0),
            ties=_choice(_get(t, "ties", str, "match", "share"), TIE_RULES, "match.ties"),
        )

    mods = []
    for m in modifiers:
        _choice(m, MODIFIERS, "modifiers")
        if m not in mods:
            mods.append(m)
    if "six_dice" in mods and dice != 5:
        raise RulesetError("modifiers", "six_dice rolls six dice of which five count: not with dice = 6")

    _lobby(data)
    save_rolls = _get(data, "save_rolls", bool, "", False)
    sources = _list(_get(data, "sources", list, "", []), "sources")
    if not all(isinstance(x, str) and 0 < len(x) <= 300 for x in sources) or len(sources) > 10:
        raise RulesetError("sources", "at most 10 strings (a title and an address each), 300 characters at most")
    win_points = _points(data, "win_points", int, "", None)
    return Ruleset(
        id=rid,
        name=_clean(_get(data, "name", str, "", rid), rid),
        description=_clean(_get(data, "description", str, "", ""), ""),
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
        strike_any=_get(data, "strike_any", bool, "", False),
        match=match,
        modifiers=frozenset(mods),
        options=options,
        option_defaults=defaults,
        preset=preset,
    )


_LOBBY_KEYS = {"blurb", "order", "first_in", "daily", "clubs"}


def _lobby(data: Mapping[str, Any]) -> None:
    """[lobby]: where the preset's faces list it (rules/registry.py); checked, not part of the rules."""
    if "lobby" not in data:
        return
    t = _table(data["lobby"], "lobby")
    _no_unknown(t, _LOBBY_KEYS, "lobby")
    _get(t, "blurb", str, "lobby", "")
    _get(t, "order", int, "lobby", 100)
    _get(t, "daily", bool, "lobby", False)
    _get(t, "clubs", bool, "lobby", True)
    first = _list(_get(t, "first_in", list, "lobby", []), "lobby.first_in")
    if not all(isinstance(x, str) and len(x) == 2 for x in first):
        raise RulesetError("lobby.first_in", "a list of two-letter language codes")


def _faces(data: Mapping[str, Any]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """[faces] colours = ["black", "red", ...] (faces 1 to 6): colour numbers by face (index 0 unused), and
    the names."""
    if "faces" not in data:
        return (), ()
    t = _table(data["faces"], "faces")
    _no_unknown(t, {"colours"}, "faces", {"colors": "write colours (one per face 1 to 6)"})
    names = _list(_get(t, "colours", list, "faces"), "faces.colours")
    if len(names) != 6 or not all(isinstance(n, str) and n for n in names):
        raise RulesetError("faces.colours", "must list six colour names, one per face 1 to 6")
    order = list(dict.fromkeys(names))
    return (0,) + tuple(order.index(n) for n in names), tuple(names)


def _upper_bonus(data: Mapping[str, Any]) -> UpperBonus:
    t = _table(data["upper_bonus"], "upper_bonus")
    _no_unknown(t, {"threshold", "points", "steps"}, "upper_bonus")
    if "steps" in t:
        if "threshold" in t or "points" in t:
            raise RulesetError("upper_bonus.steps", "write either threshold and points, or steps")
        raw = _list(t["steps"], "upper_bonus.steps")
        steps: list[tuple[int, int]] = []
        for j, step in enumerate(raw):
            key = f"upper_bonus.steps[{j + 1}]"
            if (
                not isinstance(step, list)
                or len(step) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in step)
            ):
                raise RulesetError(key, "a step is [threshold, points], two whole numbers")
            _check_points(step[0], key)
            _check_points(step[1], key)
            steps.append((step[0], step[1]))
        if not steps:
            raise RulesetError("upper_bonus.steps", "needs at least one step")
        if any(b[0] <= a[0] for a, b in zip(steps, steps[1:], strict=False)):
            raise RulesetError("upper_bonus.steps", "thresholds must rise from step to step")
        bonus = UpperBonus(steps[0][0], steps[0][1], tuple(steps) if len(steps) > 1 else ())
    else:
        bonus = UpperBonus(_points(t, "threshold", int, "upper_bonus"), _points(t, "points", int, "upper_bonus"))
    if bonus.threshold < 1:
        raise RulesetError("upper_bonus.threshold", "must be at least 1")
    return bonus


def _choice(value: Any, choices: tuple[str, ...], key: str) -> str:
    if value not in choices:
        guess = nearest(value, choices) if isinstance(value, str) else None
        suggestion = f"; did you mean {guess!r}?" if guess else ""
        raise RulesetError(key, f"{_show(value)} is not one of {', '.join(choices)}{suggestion}")
    return str(value)


def _unique(ids: list[str], key: str) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise RulesetError(key, f"id {i!r} appears twice")
        seen.add(i)


def _ident(value: str, key: str) -> str:
    if not value or not all(ch.isalnum() or ch == "_" for ch in value):
        raise RulesetError(key, f"{value!r} is not an id (letters, digits and _ only)")
    return value


_ROW_KEYS = {
    "id", "kind", "points", "bonus", "face", "n", "exact", "sizes", "runs", "same_colour", "needs",
    "wins_by_roll", "enabled", "label", "short",
}  # fmt: skip
_ROW_HINTS = {
    "value": 'a row\'s points are points (a number, "sum", "matched" or a list by roll number)',
    "score": 'a row\'s points are points (a number, "sum", "matched" or a list by roll number)',
    "same_color": "write same_colour",
    "requires": "a box that needs another box filled first names it in needs",
    "after": "a box that needs another box filled first names it in needs",
    "served": "points by roll number are a list: points = [25, 20, 20] (roll 1, 2, 3)",
    "wins": "an outright win is wins_by_roll = N (an entry that scores by roll N wins the game)",
}
# Which keys each row kind reads (the others are refused with the kinds that read them).
_KIND_KEYS = {
    "face": ("upper",),
    "n": ("kind",),
    "exact": ("kind",),
    "sizes": ("house",),
    "runs": ("straight",),
    "same_colour": ("one_pair", "two_pairs", "three_pairs", "full_house", "house"),
}
_MIN_DICE = {"three_pairs": 6}


def _build_row(item: dict[str, Any], key: str, dice: int, colours: tuple[int, ...]) -> Row:
    _no_unknown(item, _ROW_KEYS, key, _ROW_HINTS)
    rid = _ident(_get(item, "id", str, key), f"{key}.id")
    kind = _choice(_get(item, "kind", str, key), ROW_KINDS, f"{key}.kind")
    for name, kinds in _KIND_KEYS.items():
        if name in item and kind not in kinds:
            raise RulesetError(f"{key}.{name}", f"only rows of kind {' or '.join(kinds)} have it")
    if dice < _MIN_DICE.get(kind, 0):
        raise RulesetError(f"{key}.kind", f"a {kind} row needs dice = {_MIN_DICE[kind]}")
    bonus = _points(item, "bonus", int, key, 0)
    face = n = 0
    runs: tuple[frozenset[int], ...] = ()
    sizes: tuple[int, ...] = ()
    if kind == "upper":
        face = _get(item, "face", int, key)
        if not 1 <= face <= 6:
            raise RulesetError(f"{key}.face", "must be 1 to 6")
    if kind == "kind":
        n = _get(item, "n", int, key)
        if not 2 <= n <= dice:
            raise RulesetError(f"{key}.n", f"must be 2 to {dice} (the dice that count)")
    if kind == "house":
        raw = _list(_get(item, "sizes", list, key), f"{key}.sizes")
        if len(raw) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in raw):
            raise RulesetError(f"{key}.sizes", "a house is two counts of two different faces, such as [3, 3]")
        if sum(raw) > dice or max(raw) < 2:
            raise RulesetError(f"{key}.sizes", f"the two counts must add up to at most {dice} (the dice that count)")
        sizes = (int(raw[0]), int(raw[1]))
    if kind == "straight":
        raw_runs = _list(_get(item, "runs", list, key), f"{key}.runs")
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
    same_colour = _get(item, "same_colour", bool, key, False)
    if (same_colour or kind == "flush") and not colours:
        raise RulesetError(f"{key}.kind" if kind == "flush" else f"{key}.same_colour", "needs [faces] colours")
    points: Any = _get(item, "points", (int, str, list), key, "sum")
    if isinstance(points, list):
        if not points or not all(isinstance(p, int) and not isinstance(p, bool) for p in points):
            raise RulesetError(f"{key}.points", "a list of points must hold whole numbers, one per roll")
        for p in points:
            _check_points(p, f"{key}.points")
        points = tuple(points)
    elif isinstance(points, int):
        _check_points(points, f"{key}.points")
    elif isinstance(points, str):
        if points not in ("sum", "matched"):
            guess = nearest(points, ("sum", "matched"))
            hint = f"; did you mean {guess!r}?" if guess else ""
            raise RulesetError(f"{key}.points", f"{points!r} is not a number, 'sum', 'matched' or a list{hint}")
        if points == "matched" and kind not in MATCHED_KINDS:
            raise RulesetError(f"{key}.points", f"a {kind} row has no matched dice")
    if kind == "upper" and ("points" in item or bonus):
        raise RulesetError(f"{key}.points", "upper rows always score face x count")
    needs = _get(item, "needs", str, key, "")
    wins = _get(item, "wins_by_roll", int, key, 0)
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
        exact=_get(item, "exact", bool, key, False),
        sizes=sizes,
        colours=colours if (same_colour or kind == "flush") else (),
        same_colour=same_colour,
        needs=needs,
        wins_by_roll=wins,
        label=_label(item, key),
        short=_label(item, key, "short", 12),
    )


def _label(item: Mapping[str, Any], key: str, name: str = "label", limit: int = 40) -> str:
    """A row's or column's own name, cleaned as every name players read is (yambak.names)."""
    from ..names import InvalidName, normalize_name

    label: str = _get(item, name, str, key, "")
    if not label:
        return ""
    try:
        return normalize_name(label, name, limit)
    except InvalidName as exc:
        raise RulesetError(f"{key}.{name}", exc.message) from None


_COLUMN_KEYS = {"id", "order", "rolls", "announce", "withdraw", "start", "points", "enabled", "label"}


def _build_column(item: dict[str, Any], key: str, row_ids: list[str], rolls_per_turn: int) -> Column:
    _no_unknown(item, _COLUMN_KEYS, key, {"kind": "a column's fill order is order"})
    cid = _ident(_get(item, "id", str, key), f"{key}.id")
    order = _choice(_get(item, "order", str, key, "free"), ORDER_KINDS, f"{key}.order")
    rolls = _get(item, "rolls", int, key, None)
    if rolls is not None and not 1 <= rolls <= rolls_per_turn:
        raise RulesetError(f"{key}.rolls", f"must be between 1 and {rolls_per_turn}")
    announce = _get(item, "announce", bool, key, False)
    withdraw = _get(item, "withdraw", bool, key, False)
    if withdraw and not announce:
        raise RulesetError(f"{key}.withdraw", "only announce columns have announcements to withdraw")
    if announce and rolls is not None:
        raise RulesetError(f"{key}.announce", "an announce column cannot also restrict rolls")
    start = tuple(_list(_get(item, "start", list, key, []), f"{key}.start"))
    if order == "middle":
        if len(start) != 2 or any(s not in row_ids for s in start):
            raise RulesetError(f"{key}.start", "a middle column names the two rows it starts from")
        a, b = sorted(row_ids.index(s) for s in start)
        if b != a + 1:
            raise RulesetError(f"{key}.start", "the two start rows must be next to each other")
        start = (row_ids[a], row_ids[b])
    elif start:
        raise RulesetError(f"{key}.start", "only middle columns have start rows")
    points = _points(item, "points", (int, float), key, 0)
    return Column(
        id=cid,
        order=order,
        rolls=rolls,
        announce=announce,
        withdraw=withdraw,
        start=start,
        points=points,
        label=_label(item, key),
    )


def _build_relation(item: dict[str, Any], key: str, row_ids: list[str]) -> Relation:
    _no_unknown(item, {"id", "kind", "high", "low", "factor", "last_resort", "strict", "enabled"}, key)
    kind = _choice(_get(item, "kind", str, key), RELATION_KINDS, f"{key}.kind")
    rel = Relation(
        id=_get(item, "id", str, key, kind),
        kind=kind,
        high=_get(item, "high", str, key),
        low=_get(item, "low", str, key),
        factor=_get(item, "factor", str, key, ""),
        last_resort=_get(item, "last_resort", bool, key, False),
        strict=_get(item, "strict", bool, key, False),
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


def parse_options(preset: str | Mapping[str, Any], pairs: list[str] | None) -> dict[str, Any]:
    """`["columns=3", "max_min=false", "extra=updown,middle"]` -> typed option values,
    typed after each option's default (command lines and query strings). `preset` is a
    preset id or a ruleset's raw data (a file's, from `read_ruleset_file`)."""
    data = preset_data(preset) if isinstance(preset, str) else preset
    specs = _table(data.get("options", {}), "options")
    out: dict[str, Any] = {}
    for pair in pairs or []:
        name, eq, text = pair.partition("=")
        if not eq:
            raise RulesetError(f"options.{pair}", "write options as KEY=VALUE")
        if name not in specs:
            raise RulesetError(f"options.{name}", f"unknown option (known: {', '.join(sorted(specs)) or 'none'})")
        default = _table(specs[name], f"options.{name}").get("default")
        value: Any = text
        if isinstance(default, bool):
            if text.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise RulesetError(f"options.{name}", f"{text!r} is not true or false")
            value = text.lower() in ("true", "1", "yes", "on")
        elif isinstance(default, int):
            try:
                value = int(text)
            except ValueError:
                raise RulesetError(f"options.{name}", f"{text!r} is not a whole number") from None
        elif isinstance(default, list):
            value = [v for v in text.split(",") if v]
        out[name] = value
    return out
