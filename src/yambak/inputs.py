"""Bounds on what anyone may send: nesting depth, integer size, finite numbers, ASCII digits.

Every parser of user input (JSON bodies and socket messages, TOML house rules, game records, command
lines) goes through these, so a deep nest, a 5,000-digit integer or a superscript digit is refused in
one line before any work, never a RecursionError or a ValueError from deep inside.
"""

from __future__ import annotations

import json
import math
import tomllib
from typing import Any, NoReturn

__all__ = ["INT_LIMIT", "MAX_DEPTH", "InputError", "ascii_int", "check_shape", "parse_json", "parse_toml"]

MAX_DEPTH = 32  # levels of lists and tables (a ruleset needs 5, a game record 6)
# The largest magnitude of an integer: far beyond any real value (a seed is at most 2**63 - 1), so that each
# parser's own check (points within a million, say) words the refusal, yet small enough to cost nothing.
INT_LIMIT = 10**100


class InputError(ValueError):
    """Input of the wrong shape; `str()` is one line for the user."""


def check_shape(data: object, max_depth: int = MAX_DEPTH) -> None:
    """Refuse data nested deeper than `max_depth` or an integer beyond +-INT_LIMIT (iteratively: any
    depth is walked without recursion)."""
    stack: list[tuple[object, int]] = [(data, 0)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list | tuple):
            if depth >= max_depth:
                raise InputError(f"nested too deeply (at most {max_depth} levels)")
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items)
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int) and not -INT_LIMIT <= value <= INT_LIMIT:
            raise InputError(f"a number too large (at most {len(str(INT_LIMIT)) - 1} digits)")


def _refused(exc: BaseException) -> InputError:
    if isinstance(exc, RecursionError):
        return InputError(f"nested too deeply (at most {MAX_DEPTH} levels)")
    if "integer string conversion" in str(exc):  # Python's own limit on digits, before ours
        return InputError(f"a number too large (at most {len(str(INT_LIMIT)) - 1} digits)")
    return InputError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise InputError("a number that is not finite")
    return value


def _no_constant(text: str) -> NoReturn:
    raise InputError(f"not valid JSON ({text} is not a JSON number)")


def parse_json(text: str | bytes) -> Any:  # JSON values; Any for the server's readers (not narrowed yet)
    """Strict JSON (no NaN, no Infinity, finite numbers) within the bounds of `check_shape`; InputError
    ("not valid JSON (...)" or the bound) otherwise."""
    try:
        data = json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except InputError:
        raise
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc})") from None
    except (RecursionError, ValueError, UnicodeDecodeError) as exc:
        raise _refused(exc) from None
    check_shape(data)
    return data


def parse_toml(text: str) -> dict[str, object]:
    """TOML within the bounds of `check_shape`; InputError ("not valid TOML (...)" or the bound) otherwise."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML ({exc})") from None
    except (RecursionError, ValueError) as exc:
        raise _refused(exc) from None
    check_shape(data)
    return data


def ascii_int(text: str | None, high: int) -> int | None:
    """A whole number written in ASCII digits (`str.isdigit` also accepts "²" and "٣"), within 0..high;
    None for anything else."""
    if not text or len(text) > len(str(high)) or not (text.isascii() and text.isdigit()):
        return None
    value = int(text)
    return value if value <= high else None
