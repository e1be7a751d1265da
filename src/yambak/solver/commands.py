"""`yambak solve` and `yambak hint`, registered by `yambak.cli`.

Handlers return the exit status and raise a user error (`UserError`,
`RulesetError` and its `UnsupportedRuleset`, `PositionError`) for anything a
user can get wrong; `yambak.cli.main` prints it as one line `yambak: ...` and
exits 2. Both commands report their whole time, the table's loading or solving
included, and say so in one line before compiling the solver's kernels.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TextIO

from ..commandline import UserError, add_ruleset_args, bounded_int, read_text, ruleset_of
from .advisor import Advice, Position, advise, position_of
from .table import Strategy, solve
from .warm import say_when_compiling

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the solver's subcommands to the `yambak` parser."""
    p = subparsers.add_parser("solve", help="compute (or load) the optimal strategy table of a one-column ruleset")
    p.add_argument("preset", metavar="RULESET", help="a preset id (yams, yatzy...) or a ruleset .toml file")
    add_ruleset_args(p)
    p.add_argument("--recompute", action="store_true", help="ignore the cached table and compute it again")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_solve)

    p = subparsers.add_parser(
        "hint",
        help="expected final score of every keep and box in a position",
        description="Advise a position: the end of a game record (--record), or one typed in "
        "(--dice, --roll, --filled). Example: yambak hint --rules yams --dice 6 6 6 2 3 "
        "--roll 1 --filled ones=3,yam=50",
    )
    add_ruleset_args(p, "--rules")
    p.add_argument("--record", metavar="GAME.json", help="advise the seat to act at the end of this game record")
    p.add_argument("--dice", type=bounded_int(1, 6), nargs=5, metavar="D", help="the five dice showing")
    p.add_argument("--roll", type=bounded_int(0, 10), help="rolls made this turn (default 1; 0 = before rolling)")
    p.add_argument(
        "--filled",
        action="append",
        metavar="ROW=VALUE[,...]",
        help="filled boxes and the values written (0 = scratched); repeat or comma-separate",
    )
    p.add_argument("--held", type=bounded_int(1, 6), nargs="*", default=[], metavar="D", help="dice held now")
    p.add_argument("--upper", type=bounded_int(0, 10**9), help="upper-section sum, checked against --filled")
    p.add_argument("--bonus", type=bounded_int(0, 10**9), default=0, help="joker extra bonus points already won")
    p.add_argument("--top", type=bounded_int(0, 10**6), default=10, help="show at most this many keeps and boxes")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_hint)


def _cmd_solve(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    ruleset = ruleset_of(args, args.preset)
    say_when_compiling()
    strategy = solve(ruleset, recompute=args.recompute)
    seconds = time.perf_counter() - start
    name = ruleset.preset or args.preset
    if args.json:
        options = {k: list(v) if isinstance(v, tuple) else v for k, v in ruleset.options}
        print(
            json.dumps(
                {
                    "preset": name,
                    "options": options,
                    "expected_score": strategy.expected_score,
                    "states": strategy.states,
                    "seconds": seconds,
                }
            )
        )
    else:
        how = "loaded" if strategy.loaded else "computed"
        states = f"{strategy.states:,} states, {how} in {seconds:.2f} s"
        print(f"{name}: expected score {strategy.expected_score:.7f} ({states})")
    return 0


def _parse_filled(items: list[str] | None) -> dict[str, int]:
    filled: dict[str, int] = {}
    for item in items or []:
        for pair in filter(None, item.split(",")):
            name, eq, text = pair.partition("=")
            name = name.strip()
            if not eq or not name:
                raise UserError(f"--filled: write ROW=VALUE, not {pair!r}")
            try:
                value = int(text)
            except ValueError:
                raise UserError(f"--filled: {text!r} is not a whole number") from None
            if name in filled:
                raise UserError(f"--filled: {name} given twice")
            filled[name] = value
    return filled


def _cmd_hint(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    if args.record:
        from ..engine import GameRecord, replay  # the engine is only needed for records

        if args.dice or args.filled or args.roll is not None or args.held or args.upper is not None:
            raise UserError("--record gives the whole position: drop --dice/--roll/--filled/--held/--upper")
        if args.option or args.six_dice or args.duplicate:
            raise UserError("--record gives the rules: drop --option/--six-dice/--duplicate")
        state = replay(GameRecord.loads(read_text(args.record, "game record (JSON)")))
        if args.rules and args.rules != (state.rules.preset or state.rules.id):
            raise UserError(f"--rules {args.rules} but the record plays {state.rules.preset or state.rules.id}")
        position = position_of(state)
        say_when_compiling()
        strategy = solve(state.rules)
    else:
        if not args.rules:
            raise UserError("hint needs --rules RULESET (or --record GAME.json)")
        roll = args.roll if args.roll is not None else (1 if args.dice else 0)
        filled = _parse_filled(args.filled)
        position = Position(
            filled=filled, dice=tuple(args.dice or ()), roll=roll, held=tuple(args.held), extra_bonus=args.bonus
        )
        ruleset = ruleset_of(args, args.rules)
        say_when_compiling()
        strategy = solve(ruleset)
        if args.upper is not None:
            rows = {r.id: r for r in strategy.ruleset.rows}
            upper = sum(v for k, v in filled.items() if k in rows and rows[k].is_upper)
            if upper != args.upper:
                raise UserError(f"--upper {args.upper} but the filled upper boxes add up to {upper}")
    advice = advise(strategy, position)
    ms = (time.perf_counter() - start) * 1000
    if args.json:
        print(json.dumps(advice.to_dict()))
    else:
        _print_advice(advice, position, args.top, ms, strategy, sys.stdout)
    return 0


def _print_advice(advice: Advice, position: Position, top: int, ms: float, strategy: Strategy, out: TextIO) -> None:
    dice = " ".join(map(str, position.dice)) or "-"
    table = "" if strategy.loaded else f", the table solved in {strategy.seconds:.1f} s"
    print(
        f"dice {dice}, roll {position.roll}; on the sheet {advice.score}; "
        f"expected final score {advice.value:.2f} ({ms:.0f} ms{table})",
        file=out,
    )
    if advice.best is None:
        print("roll the dice", file=out)
        return
    print(f"best: {advice.best.label()}", file=out)
    for title, choices in (("keeps", advice.keeps), ("boxes", advice.boxes)):
        if choices:
            print(f"{title}:", file=out)
            for c in choices[:top]:
                mark = "  (held now)" if c.current else ""
                print(f"  {c.value:8.2f}  {c.label()}{mark}", file=out)
            if len(choices) > top:
                print(f"  ... {len(choices) - top} more", file=out)
