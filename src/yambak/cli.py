"""The `yambak` command: thin, it parses arguments and calls the layers below.

Each layer registers its own commands (imported explicitly below); handlers
raise user errors and `main` prints every one as a single line `yambak: ...`
on stderr and returns status 2 (a game record's error reads `yambak: turn N:
reason`). Argument errors take the same form: no usage block, no traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import NoReturn

from . import __version__
from . import verify as verify_commands
from .bots import commands as bot_commands
from .coach import commands as coach_commands
from .commandline import UserError, add_ruleset_args, read_text, ruleset_of
from .engine import GameRecord, RecordError, replay, summary
from .rules import RulesetError, load_ruleset, preset_ids
from .server import commands as server_commands
from .solver import PositionError
from .solver import commands as solver_commands
from .terminal import commands as terminal_commands
from .text import render_rules, render_sheets

__all__ = ["UserError", "build_parser", "main"]

COMMAND_MODULES = (solver_commands, coach_commands, server_commands, bot_commands, terminal_commands, verify_commands)


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `yambak: <what is wrong>` and status 2."""

    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix("yambak").strip()
        raise SystemExit(_fail(f"{where + ': ' if where else ''}{message}"))


def _fail(message: str) -> int:
    print(f"yambak: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _cmd_rules(args: argparse.Namespace) -> int:
    if args.preset is None:
        if args.option or args.six_dice or args.duplicate:
            raise UserError("name the ruleset the options are for: yambak rules RULESET -o KEY=VALUE")
        width = max(len(p) for p in preset_ids())
        for pid in preset_ids():
            print(f"{pid:<{width}}  {load_ruleset(pid).description}")
        return 0
    print(render_rules(ruleset_of(args, args.preset)))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    state = replay(GameRecord.loads(read_text(args.file, "game record (JSON)")))
    print(json.dumps(summary(state)) if args.json else render_sheets(state))
    return 0


def _cmd_strategy(args: argparse.Namespace) -> int:
    from .strategy import commands as strategy_commands

    return strategy_commands.run(args)


def _add_strategy(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from .strategy.commands import add_arguments

    p = sub.add_parser("strategy", help="the odds, what the best play scores and the opening table of a ruleset")
    add_arguments(p)
    p.set_defaults(func=_cmd_strategy)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="yambak", description="The Yam family of five-dice games.")
    parser.add_argument("--version", action="version", version=f"yambak {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("rules", help="list the rulesets, or show one's sheet and scoring")
    p.add_argument("preset", metavar="RULESET", nargs="?", help="a preset id (see `yambak rules`) or a .toml file")
    add_ruleset_args(p)
    p.set_defaults(func=_cmd_rules)

    p = sub.add_parser("replay", help="check a game record and print the sheets")
    p.add_argument("file", help="a game record (JSON), or - for standard input")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=_cmd_replay)

    for module in COMMAND_MODULES:
        module.register(sub)
    _add_strategy(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) and argument errors (2, already printed)
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (UserError, RulesetError, RecordError, PositionError) as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except RecursionError:
        return _fail("input nested too deeply")
    except Exception as exc:  # a bug: one line, unless YAMBAK_DEBUG asks for the traceback
        if os.environ.get("YAMBAK_DEBUG"):
            raise
        print(f"yambak: internal error ({type(exc).__name__}: {exc}); YAMBAK_DEBUG=1 shows where", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
