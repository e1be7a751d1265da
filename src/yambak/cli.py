"""The `yambak` command: thin, it parses arguments and calls the layers below.

Each layer registers its own commands, and is imported only when one of them
runs (or shows its --help): `yambak --help` imports no engine, solver, server
or Textual. Adding a command is one entry in `COMMANDS`,

    "name": ("yambak.layer.commands", "the one-line help"),

where that module's `register(sub)` adds the parser `name` (same help;
tests/test_cli.py checks that the table and the modules agree). A module that
registers several commands has one entry per command.

Handlers raise user errors and `main` prints every one as a single line
`yambak: ...` on stderr and returns status 2 (a game record's error reads
`yambak: turn N: reason`). Argument errors take the same form: no usage block,
no traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from . import __version__
from .commandline import UserError, add_ruleset_args, read_text, ruleset_of

__all__ = ["COMMANDS", "UserError", "build_parser", "main"]

# The commands in the order `yambak --help` lists them: name -> (module whose `register` adds it, help).
COMMANDS: dict[str, tuple[str, str]] = {
    "rules": (__name__, "list the rulesets, or show one's sheet and scoring"),
    "replay": (__name__, "check a game record and print the sheets"),
    "solve": ("yambak.solver.commands", "compute (or load) the optimal strategy table of a one-column ruleset"),
    "hint": (
        "yambak.coach.commands",
        "the value of every keep, box and announcement in a position (any ruleset with --record)",
    ),
    "review": ("yambak.coach.commands", "grade every decision of a game record against the best choice"),
    "serve": ("yambak.server.commands", "start the web table (lobby, tables, WebSocket play)"),
    "fairplay": (
        "yambak.server.ranked.commands",
        "the operator's fair-play list: profiles whose ranked games stay at the solver's accuracy",
    ),
    "simulate": ("yambak.bots.commands", "play many solitaire games with a bot and print statistics"),
    "duel": ("yambak.bots.commands", "play duplicate games between two bots (same dice for both) and compare them"),
    "fit": (
        "yambak.bots.commands",
        "fit the strong bot's value model to a ruleset by self-play (cached like solver tables)",
    ),
    "keep": ("yambak.terminal.commands", "keep the sheet for a game with real dice"),
    "play": ("yambak.terminal.commands", "play in the terminal, against bots or hot-seat"),
    "train": ("yambak.terminal.commands", "the trainer: positions where the obvious choice loses points"),
    "profile": ("yambak.terminal.commands", "take your profile on a yambak server to this terminal"),
    "verify": ("yambak.verify", "check a finished game's dice against the table's commitment (fair dice)"),
    "strategy": ("yambak.strategy.commands", "the odds, what the best play scores and the opening table of a ruleset"),
}

# The errors printed as one line, by the module that defines them (imported only if a command loaded it).
USER_ERRORS = (("yambak.rules", "RulesetError"), ("yambak.engine", "RecordError"), ("yambak.solver", "PositionError"))


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `yambak: <what is wrong>` and status 2."""

    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix("yambak").strip()
        raise SystemExit(_fail(f"{where + ': ' if where else ''}{message}"))


class Commands(argparse._SubParsersAction):  # type: ignore[type-arg]
    """The subcommands: each listed by a stand-in parser (name and help, from `COMMANDS`) until it is
    chosen; then its module is imported and its `register` replaces the stand-ins with the real parsers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.loaded: set[str] = set()

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        assert isinstance(values, list) and values
        self.load(values[0])
        super().__call__(parser, namespace, values, option_string)

    def load(self, name: str) -> None:
        """The real parser of `name` (and of the other commands its module registers)."""
        module = COMMANDS[name][0] if name in COMMANDS else None  # an unknown name: argparse refuses it
        if module is None or module in self.loaded:
            return
        self.loaded.add(module)
        for other, (where, _) in COMMANDS.items():
            if where == module:
                del self._name_parser_map[other]
        listed = list(self._choices_actions)  # `yambak --help` keeps the table's order
        importlib.import_module(module).register(self)
        self._choices_actions[:] = listed


def _fail(message: str) -> int:
    print(f"yambak: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _cmd_rules(args: argparse.Namespace) -> int:
    from .rules import load_ruleset, preset_ids
    from .text import render_rules

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
    import json

    from .engine import GameRecord, replay, summary
    from .text import render_sheets

    state = replay(GameRecord.loads(read_text(args.file, "game record (JSON)")))
    print(json.dumps(summary(state)) if args.json else render_sheets(state))
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("rules", help=COMMANDS["rules"][1])
    p.add_argument("preset", metavar="RULESET", nargs="?", help="a preset id (see `yambak rules`) or a .toml file")
    add_ruleset_args(p)
    p.set_defaults(func=_cmd_rules)

    p = sub.add_parser("replay", help=COMMANDS["replay"][1])
    p.add_argument("file", help="a game record (JSON), or - for standard input")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.set_defaults(func=_cmd_replay)


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, with every command a stand-in until it is chosen (`Commands`)."""
    parser = Parser(prog="yambak", description="The Yam family of five-dice games.")
    parser.add_argument("--version", action="version", version=f"yambak {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", action=Commands)
    for name, (_, help_line) in COMMANDS.items():
        sub.add_parser(name, help=help_line, add_help=False)
    return parser


def _user_errors() -> tuple[type[BaseException], ...]:
    """`UserError` and the layers' own user errors, from the layers this run imported (no other raised)."""
    loaded = (getattr(sys.modules.get(module), name, None) for module, name in USER_ERRORS)
    return (UserError, *(cls for cls in loaded if isinstance(cls, type) and issubclass(cls, Exception)))


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        try:
            args = parser.parse_args(argv)  # imports the chosen command's layer
        except SystemExit as exc:  # --help, --version (0) and argument errors (2, already printed)
            return int(exc.code or 0)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except RecursionError:
        return _fail("input nested too deeply")
    except Exception as exc:  # a user error: one line; a bug: one line, unless YAMBAK_DEBUG asks for the traceback
        if isinstance(exc, _user_errors()):
            return _fail(str(exc))
        if os.environ.get("YAMBAK_DEBUG"):
            raise
        print(f"yambak: internal error ({type(exc).__name__}: {exc}); YAMBAK_DEBUG=1 shows where", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
