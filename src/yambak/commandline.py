"""What every command of `yambak` shares: the ruleset arguments, checked numbers and files, one error line.

Each layer registers its own commands (`solver/commands.py`, `bots/commands.py`,
`terminal/commands.py`, `server/commands.py`); this module sits just above
`rules` so that all of them can use it without an upward import. A user error
is a `UserError` (or a `RulesetError`, `RecordError`, `PositionError`), which
`yambak.cli.main` prints as one line `yambak: ...` and turns into status 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the rules load when a command reads a ruleset, not for `yambak --help`
    from .rules import Ruleset

__all__ = [
    "RECORD_LIMIT",
    "UserError",
    "add_ruleset_args",
    "bounded_float",
    "bounded_int",
    "check_writable",
    "progress_bar",
    "read_text",
    "ruleset_of",
]

RECORD_LIMIT = 16 << 20  # the largest game record read, in bytes
MAX_WORKERS = 32


class UserError(Exception):
    """A problem with what the user asked for; printed as one line."""


def add_ruleset_args(p: argparse.ArgumentParser, spec: str | None = None, required: bool = False) -> None:
    """`--option/-o`, `--six-dice`, `--duplicate`; and `--rules` when `spec` names it (`None`: the
    command takes the ruleset as its positional argument, declared by the caller)."""
    if spec is not None:
        p.add_argument(
            spec, metavar="RULESET", required=required, help="a preset id (see `yambak rules`) or a ruleset .toml file"
        )
    p.add_argument(
        "--option", "-o", action="append", metavar="KEY=VALUE", help="a ruleset option (preset or file); repeat"
    )
    p.add_argument("--six-dice", action="store_true", help="the six_dice modifier: roll six, score five")
    p.add_argument("--duplicate", action="store_true", help="the duplicate modifier: every player gets the same dice")


def ruleset_of(args: argparse.Namespace, spec: str) -> Ruleset:
    """The ruleset a command line names (a preset id or a .toml file) with its options and modifiers."""
    from .rules import load_ruleset_arg

    modifiers = [m for m, on in (("six_dice", args.six_dice), ("duplicate", args.duplicate)) if on]
    return load_ruleset_arg(spec, args.option, modifiers)


def bounded_int(low: int | None = None, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number within [low, high], refused in one line otherwise."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(_range(text, low, high))
        return value

    return parse


def bounded_float(low: float, high: float) -> Callable[[str], float]:
    """An argparse type: a finite number within [low, high]."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not (math.isfinite(value) and low <= value <= high):
            raise argparse.ArgumentTypeError(_range(text, low, high))
        return value

    return parse


def _range(text: str, low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f"{text} is not between {low:,} and {high:,}"
    return f"{text} is less than {low:,}" if low is not None else f"{text} is more than {high:,}"


def workers_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workers",
        type=bounded_int(1, MAX_WORKERS),
        default=1,
        metavar="N",
        help=f"worker processes (default 1, at most {MAX_WORKERS})",
    )


def read_text(path: str, what: str = "file", limit: int = RECORD_LIMIT) -> str:
    """A UTF-8 text file (or standard input for `-`), at most `limit` bytes, or a UserError naming it."""
    try:
        if path == "-":
            raw = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as fh:
                raw = fh.read(limit + 1)
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > limit:
        raise UserError(f"{path}: larger than {limit >> 20} MiB: not a {what}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{path}: not a text file (a UTF-8 {what} expected)") from None


def check_writable(path: str) -> Path:
    """Refuse, before any work, a path that cannot be written: a missing or unwritable folder, a directory."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise UserError(f"cannot write {path}: it is a directory")
    if not folder.is_dir():
        raise UserError(f"cannot write {path}: no folder {folder}")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise UserError(f"cannot write {path}: permission denied")
    return target


def progress_bar(show: bool | None, total: float, desc: str, unit: str = "game") -> Any:
    """A tqdm bar on stderr (stdout stays clean for --json) when `show`, or by default when stderr is a
    terminal; None when not shown. `unit`: what it counts (games by default, with their rate; any other
    unit, such as CPU seconds, is shown as done / total without a rate)."""
    if not (sys.stderr.isatty() if show is None else show):
        return None
    from tqdm import tqdm

    if unit == "game":
        return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True)
    shape = "{l_bar}{bar}| {n:.0f}/{total:.0f} " + unit + " [{elapsed}<{remaining}]"
    return tqdm(total=total, desc=desc, file=sys.stderr, dynamic_ncols=True, bar_format=shape)


def progress_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )
