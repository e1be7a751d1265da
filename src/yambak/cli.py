"""The `yambak` command: thin, it parses arguments and calls the layers below.

Every error a user can cause prints one line to stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from . import __version__
from .engine import GameRecord, RecordError, replay, summary
from .rules import RulesetError, load_ruleset, parse_options, preset_ids
from .text import render_rules, render_sheets


class UserError(Exception):
    """A problem with what the user asked for; printed as one line."""


def _cmd_rules(args: argparse.Namespace) -> int:
    if args.preset is None:
        width = max(len(p) for p in preset_ids())
        for pid in preset_ids():
            r = load_ruleset(pid)
            print(f"{pid:<{width}}  {r.description}")
        return 0
    rules = load_ruleset(args.preset, parse_options(args.preset, args.option))
    print(render_rules(rules))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text(encoding="utf-8") if args.file != "-" else sys.stdin.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {args.file}: {getattr(exc, 'strerror', None) or exc}") from None
    state = replay(GameRecord.loads(text))
    if args.json:
        print(json.dumps(summary(state)))
    else:
        print(render_sheets(state))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="yambak", description="The Yam family of five-dice games.")
    parser.add_argument("--version", action="version", version=f"yambak {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("rules", help="list the rulesets, or show one's sheet and scoring")
    p.add_argument("preset", nargs="?", help="a preset id (see `yambak rules`)")
    p.add_argument("--option", "-o", action="append", metavar="KEY=VALUE", help="a ruleset option; repeat for more")
    p.set_defaults(func=_cmd_rules)

    p = sub.add_parser("replay", help="check a game record and print the sheets")
    p.add_argument("file", help="a game record (JSON), or - for standard input")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=_cmd_replay)

    for register in _extensions():
        register(sub)
    return parser


def _extensions() -> list[Callable[[argparse._SubParsersAction], None]]:  # type: ignore[type-arg]
    """Commands that live with their layer (solver, bots, server)."""
    found = []
    for module in (
        "yambak.solver.commands",
        "yambak.server.commands",
        "yambak.bots.commands",
        "yambak.terminal.commands",
        "yambak.verify",
    ):
        try:
            mod = __import__(module, fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name and module.startswith(exc.name):
                continue
            raise
        found.append(mod.register)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (UserError, RulesetError, RecordError) as exc:
        print(f"yambak: {exc}" if not isinstance(exc, RecordError) else str(exc), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
