"""`yambak solve`, registered by `yambak.cli` (`yambak hint` is the coach's: `coach/commands.py`).

Handlers return the exit status and raise a user error (`UserError`,
`RulesetError` and its `UnsupportedRuleset`, `PositionError`) for anything a
user can get wrong; `yambak.cli.main` prints it as one line `yambak: ...` and
exits 2. Both commands report their whole time, the table's loading or solving
included, and say so in one line before compiling the solver's kernels.
"""

from __future__ import annotations

import argparse
import json
import time

from ..commandline import add_ruleset_args, ruleset_of
from .table import solve
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
