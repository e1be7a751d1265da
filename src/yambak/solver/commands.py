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
from typing import Any

from ..commandline import add_ruleset_args, ruleset_of
from .first_run import say_when_compiling  # light: numba loads when the kernels are first needed

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the solver's subcommands to the `yambak` parser."""
    p = subparsers.add_parser("solve", help="compute (or load) the optimal strategy table of a one-column ruleset")
    p.add_argument("preset", metavar="RULESET", help="a preset id (yams, yatzy...) or a ruleset .toml file")
    add_ruleset_args(p)
    p.add_argument("--recompute", action="store_true", help="ignore the cached table and compute it again")
    p.add_argument(
        "--objective",
        type=parse_objective,
        default=None,
        metavar="mean|target=N",
        help="mean (default): the expected score; target=N: the chance to reach N points (target.py)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_solve)


def parse_objective(text: str) -> int | None:
    """`mean` -> None; `target=N` -> N (a whole number from 0 to 10000); argparse reports anything else."""
    if text == "mean":
        return None
    name, eq, value = text.partition("=")
    if name == "target" and eq:
        try:
            n = int(value)
        except ValueError:
            n = -1
        if 0 <= n <= 10_000:
            return n
    raise argparse.ArgumentTypeError(f"write mean or target=N (N from 0 to 10000), not {text!r}")


def _cmd_solve(args: argparse.Namespace) -> int:
    from .table import solve  # numpy: only when a command runs, not for the parser

    start = time.perf_counter()
    ruleset = ruleset_of(args, args.preset)
    say_when_compiling()
    if args.objective is not None:
        return _solve_target(args, ruleset, start)
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
                    **({"win_points": ruleset.win_points} if ruleset.wins_outright else {}),
                }
            )
        )
    else:
        how = "loaded" if strategy.loaded else "computed"
        states = f"{strategy.states:,} states, {how} in {seconds:.2f} s"
        print(f"{name}: expected score {strategy.expected_score:.7f} ({states})")
        if ruleset.wins_outright:  # docs/rulesets.md: what the solver counts an outright win as
            rest = "instead of the rest of the game (win_points)"
            print(f"an outright win counted as {ruleset.win_points} points {rest}")
    return 0


def _solve_target(args: argparse.Namespace, ruleset: Any, start: float) -> int:
    from ..commandline import progress_bar
    from .target import solve_target

    target = args.objective
    bar = progress_bar(None, ruleset.n_rows, f"target {target} (levels)")

    def step(_done: int, _total: int) -> None:
        if bar is not None:
            bar.update(1)

    table = solve_target(ruleset, target, cache=not args.recompute, progress=step)
    if bar is not None:
        bar.close()
    seconds = time.perf_counter() - start
    name = ruleset.preset or args.preset
    mib = table.nbytes / 2**20
    if args.json:
        print(
            json.dumps(
                {
                    "preset": name,
                    "target": target,
                    "chance": table.start_chance,
                    "stored_mib": mib,
                    "values": int(len(table.values)),
                    "seconds": seconds,
                    "loaded": table.loaded,
                }
            )
        )
    else:
        how = "loaded" if table.loaded else "computed"
        print(
            f"{name}: chance to reach {target} points {table.start_chance:.6f} "
            f"({len(table.values):,} values, {mib:.0f} MiB, {how} in {seconds:.1f} s)"
        )
    return 0
