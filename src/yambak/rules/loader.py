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

Where the reading lives: `files.py` finds and reads the files (TOML, `extends`), `options.py` patches
the chosen options in, `build.py` checks the top-level keys and builds the ruleset from the rows,
columns and relations of `sheet.py`, and `checks.py` holds what they share (`RulesetError`, the limits
on points, the readers of one key with their "did you mean"). This module is the front door.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..inputs import InputError, check_shape
from .build import build_ruleset
from .checks import FILE_LIMIT, POINTS_LIMIT, RulesetError, as_list, as_table, clean_text, show
from .files import preset_data, preset_ids, read_ruleset_file, resolve_extends, unknown_preset
from .model import Ruleset
from .options import parse_options

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

# House rules a server takes in (`check_house_rules`): texts and the size of the sheet.
RULESET_ID = re.compile(r"[a-z0-9_-]{1,40}")
NAME_LIMIT = 60  # a ruleset's name, as a table's
DESCRIPTION_LIMIT = 500
LABEL_LIMIT = 24  # a row's or column's id, which a page shows as its label
MAX_ROWS, MAX_COLUMNS, MAX_BOXES, MAX_DICE = 24, 8, 128, 6


def load_ruleset(
    spec: object,
    options: Mapping[str, object] | None = None,
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
            options = {**as_table(spec.get("options", {}), "options"), **(options or {})}
            modifiers = list(as_list(spec.get("modifiers", []), "modifiers")) + list(modifiers or [])
        else:
            data, preset = resolve_extends(copy.deepcopy(dict(spec))), None
            if "modifiers" in data:
                modifiers = list(as_list(data.pop("modifiers"), "modifiers")) + list(modifiers or [])
    else:
        raise RulesetError("rules", "must be a preset id or a table")
    ruleset = build_ruleset(data, options or {}, list(modifiers or []), preset)
    spec_kept = _record_spec(original, preset, ruleset) if passed_separately else original
    object.__setattr__(ruleset, "spec", spec_kept)
    return ruleset


def _record_spec(original: object, preset: str | None, ruleset: Ruleset) -> object:
    """What a record keeps as its `rules` when options or modifiers came apart from the spec: one spec
    that builds the same ruleset alone."""
    if isinstance(original, Mapping) and preset is None:
        record_spec: dict[str, Any] = {**copy.deepcopy(dict(original)), "modifiers": sorted(ruleset.modifiers)}
        chosen: dict[str, object] = dict(ruleset.options)
        for name, spec_ in record_spec.get("options", {}).items():  # options chosen apart become the defaults
            if name in chosen and isinstance(spec_, dict):
                value = chosen[name]
                spec_["default"] = list(value) if isinstance(value, tuple) else value
        return record_spec
    if preset is not None:
        defaults = dict(ruleset.option_defaults)
        changed = {k: list(v) if isinstance(v, tuple) else v for k, v in ruleset.options if defaults.get(k) != v}
        if not (changed or ruleset.modifiers):
            return preset
        ref: dict[str, object] = {"preset": preset, "options": changed}
        if ruleset.modifiers:
            ref["modifiers"] = sorted(ruleset.modifiers)
        return ref
    return original


def check_house_rules(ruleset: Ruleset) -> None:
    """House rules as a server takes them in (the module's "Texts"): RulesetError naming what is over."""
    if not RULESET_ID.fullmatch(ruleset.id):
        raise RulesetError("id", f"{show(ruleset.id[:50])} is not an id (1 to 40 of a-z, 0-9, _ and -)")
    texts = (("name", ruleset.name, NAME_LIMIT), ("description", ruleset.description, DESCRIPTION_LIMIT))
    for key, text, limit in texts:
        if len(text) > limit:
            raise RulesetError(key, f"is at most {limit} characters ({len(text)} given)")
    labels = [("rows", i, r.id) for i, r in enumerate(ruleset.rows)]
    labels += [("columns", i, c.id) for i, c in enumerate(ruleset.columns)]
    for key, i, label in labels:
        if len(label) > LABEL_LIMIT or clean_text(label, "") != label:
            raise RulesetError(f"{key} #{i + 1}.id", f"a label of 1 to {LABEL_LIMIT} letters, digits and _")
    for key, n, limit in (
        ("rows", ruleset.n_rows, MAX_ROWS),
        ("columns", len(ruleset.columns), MAX_COLUMNS),
        ("boxes", ruleset.n_boxes, MAX_BOXES),
        ("dice", ruleset.rolled_dice, MAX_DICE),
    ):
        if n > limit:
            raise RulesetError(key, f"house rules have at most {limit} {key} ({n} given)")


def load_ruleset_file(
    path: str | Path, options: Mapping[str, object] | None = None, modifiers: list[str] | tuple[str, ...] | None = None
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
    raise RulesetError("preset", unknown_preset(spec) + "; or a .toml file")
