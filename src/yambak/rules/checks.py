"""What every part of a ruleset's reading shares: `RulesetError`, the limits on points and files, and the
readers of one key that name what is wrong (its key, what was expected, the key it most likely meant)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar, overload

from ..names import InvalidName, normalize_name

__all__ = [
    "FILE_LIMIT",
    "NOT_SUPPORTED",
    "POINTS_LIMIT",
    "RulesetError",
    "as_list",
    "as_table",
    "check_points",
    "choice",
    "clean_text",
    "enabled_items",
    "ident",
    "item_key",
    "nearest",
    "no_unknown",
    "read_key",
    "read_points",
    "show",
    "unique",
]

POINTS_LIMIT = 1_000_000  # the largest number of points any value of a ruleset may count (see above)
FILE_LIMIT = 1 << 20  # the largest ruleset file read, in bytes


class RulesetError(ValueError):
    """A ruleset (preset request, options or user file) that cannot be built."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"{key}: {problem}")
        self.key = key
        self.problem = problem


def clean_text(text: str, fallback: str) -> str:
    """A text others read, by the one rule for names (`normalize_name`): `fallback` when nothing is left."""
    try:
        return normalize_name(text, limit=FILE_LIMIT)
    except InvalidName:
        return fallback


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


def as_table(value: object, key: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise RulesetError(key, f"must be a table, not {show(value)}")
    return value


def as_list(value: object, key: str) -> list[Any]:  # its items checked by the caller
    if not isinstance(value, list):
        raise RulesetError(key, f"must be a list, not {show(value)}")
    return value


_T = TypeVar("_T")
_U = TypeVar("_U")
_V = TypeVar("_V")
_D = TypeVar("_D")


@overload
def read_key(table: Mapping[str, object], name: str, kind: type[_T], key: str) -> _T: ...
@overload
def read_key(table: Mapping[str, object], name: str, kind: type[_T], key: str, default: _D) -> _T | _D: ...
@overload
def read_key(table: Mapping[str, object], name: str, kind: tuple[type[_T], type[_U]], key: str) -> _T | _U: ...
@overload
def read_key(
    table: Mapping[str, object], name: str, kind: tuple[type[_T], type[_U]], key: str, default: _D
) -> _T | _U | _D: ...
@overload
def read_key(
    table: Mapping[str, object], name: str, kind: tuple[type[_T], type[_U], type[_V]], key: str, default: _D
) -> _T | _U | _V | _D: ...
def read_key(
    table: Mapping[str, object], name: str, kind: type | tuple[type, ...], key: str, default: object = ...
) -> object:
    """The value of `name` in `table`, of `kind` (a bool only where asked for), else `default`; RulesetError
    naming `key.name` when it is missing without a default, or of another kind."""
    return _read(table, name, kind, key, default)


def _read(table: Mapping[str, object], name: str, kind: type | tuple[type, ...], key: str, default: object) -> object:
    if name not in table:
        if default is ...:
            raise RulesetError(f"{key}.{name}" if key else name, "is required")
        return default
    value = table[name]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    bad_bool = isinstance(value, bool) and bool not in kinds
    if not isinstance(value, kind) or bad_bool:
        names = " or ".join(_WORDS.get(k, k.__name__) for k in kinds)
        raise RulesetError(f"{key}.{name}" if key else name, f"must be {names}, not {show(value)}")
    return value


def show(value: object) -> str:
    """A value from a ruleset as its data reads (true, [1, 2], "x"), never a Python repr (True, (1, 2))."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:  # nan, inf
        return str(value)


def check_points(value: int | float, key: str) -> None:
    if not -POINTS_LIMIT <= value <= POINTS_LIMIT:  # False for nan too
        raise RulesetError(key, f"must be between {-POINTS_LIMIT:,} and {POINTS_LIMIT:,} (points are limited)")


_N = TypeVar("_N", int, float)


@overload
def read_points(table: Mapping[str, object], name: str, kind: type[int], key: str) -> int: ...
@overload
def read_points(table: Mapping[str, object], name: str, kind: type[int], key: str, default: _D) -> int | _D: ...
@overload
def read_points(
    table: Mapping[str, object], name: str, kind: tuple[type[int], type[float]], key: str, default: _D
) -> int | float | _D: ...
def read_points(
    table: Mapping[str, object], name: str, kind: type | tuple[type, ...], key: str, default: object = ...
) -> object:
    """`read_key` for a number of points: within +-POINTS_LIMIT."""
    value = _read(table, name, kind, key, default)
    if isinstance(value, int | float):
        check_points(value, f"{key}.{name}" if key else name)
    return value


def edits(a: str, b: str) -> int:
    """Edits (insert, delete, replace, swap of neighbours) that turn `a` into `b`."""
    before: list[int] | None = None
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        new = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            new[j] = min(row[j] + 1, new[j - 1] + 1, row[j - 1] + (ca != cb))
            if before is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                new[j] = min(new[j], before[j - 2] + 1)
        before, row = row, new
    return row[-1]


def nearest(word: str, choices: Iterable[object]) -> str | None:
    """The choice a misspelt `word` most likely meant: the closest within a third of its length in
    edits (a longer reach suggests unrelated keys, as `rows_points` -> `win_points`), else None."""
    word = str(word)
    reach = len(word) // 3
    scored = sorted((edits(word, str(c)), str(c)) for c in choices)
    return scored[0][1] if scored and scored[0][0] <= reach else None


def no_unknown(
    table: Mapping[str, object], allowed: set[str], key: str, hints: Mapping[str, str] | None = None
) -> None:
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


def item_key(section: str, i: int, item: object) -> str:
    """How an error names a row, column or relation: by its id (`rows.four_kind`), else by its place
    counted from 1 (`rows #3`)."""
    ident = item.get("id") if isinstance(item, dict) else None
    if isinstance(ident, str) and ident and all(ch.isalnum() or ch == "_" for ch in ident):
        return f"{section}.{ident}"
    return f"{section} #{i + 1}"


def enabled_items(items: list[object], section: str) -> list[tuple[str, dict[str, object]]]:
    out = []
    for i, item in enumerate(items):
        key = item_key(section, i, item)
        item = as_table(item, key)
        if read_key(item, "enabled", bool, key, True):
            out.append((key, item))
    return out


def choice(value: object, choices: tuple[str, ...], key: str) -> str:
    if value not in choices:
        guess = nearest(value, choices) if isinstance(value, str) else None
        suggestion = f"; did you mean {guess!r}?" if guess else ""
        raise RulesetError(key, f"{show(value)} is not one of {', '.join(choices)}{suggestion}")
    return str(value)


def unique(ids: list[str], key: str) -> None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise RulesetError(key, f"id {i!r} appears twice")
        seen.add(i)


def ident(value: str, key: str) -> str:
    if not value or not all(ch.isalnum() or ch == "_" for ch in value):
        raise RulesetError(key, f"{value!r} is not an id (letters, digits and _ only)")
    return value
