"""`yambak duel`, registered by `yambak.cli`: duplicate games between two bots.

User errors print one line `yambak: <message>` to stderr and return 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..rules import RulesetError, load_ruleset, parse_options
from .play import duel
from .policies import POLICIES

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "duel",
        help="play duplicate games between two bots (same dice for both) and compare them",
        description="Duplicate games (RULES.md section 8): both bots get the same dice; seats alternate "
        "between games. Reports mean totals with 95%% intervals, the first bot's win rate "
        "(shared wins count half) and, for column-points rulesets, match points. "
        f"Bots: {', '.join(POLICIES)}.",
    )
    p.add_argument("--rules", metavar="PRESET", required=True, help="preset id")
    p.add_argument("--option", "-o", action="append", metavar="KEY=VALUE", help="a ruleset option; repeat for more")
    p.add_argument(
        "--bots",
        nargs=2,
        metavar=("A", "B"),
        default=["strong", "greedy"],
        help="the two bots (default: strong greedy)",
    )
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )
    p.set_defaults(func=_cmd_duel)


def _fail(message: str) -> int:
    print(f"yambak: {message}", file=sys.stderr)
    return 2


def _cmd_duel(args: argparse.Namespace) -> int:
    for bot in args.bots:
        if bot not in POLICIES:
            return _fail(f"unknown bot {bot!r} (known: {', '.join(POLICIES)})")
    if args.games < 1:
        return _fail("--games must be at least 1")
    if args.workers < 1:
        return _fail("--workers must be at least 1")
    try:
        rules = load_ruleset(args.rules, parse_options(args.rules, args.option))
    except RulesetError as exc:
        return _fail(str(exc))
    show = sys.stderr.isatty() if args.progress is None else args.progress
    bar: Any = None
    if show:
        from tqdm import tqdm  # type: ignore[import-untyped]

        bar = tqdm(total=args.games, desc=f"duel {args.bots[0]} v {args.bots[1]}", unit="game", file=sys.stderr)
    try:
        result = duel(
            rules,
            args.bots[0],
            args.bots[1],
            args.games,
            args.seed,
            progress=bar.update if bar is not None else None,
            workers=args.workers,
        )
    finally:
        if bar is not None:
            bar.close()
    out = result.to_dict()
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['rules']}: {out['games']} duplicate games, seed {out['seed']}")
    for entry in out["bots"]:
        lo, hi = entry["ci95"]
        line = f"  {entry['bot']:<10} mean {entry['mean']:8.2f}  95% [{lo:.2f}, {hi:.2f}]"
        if entry["match_points"] is not None:
            line += f"  match points {entry['match_points']:.2f}"
        print(line)
    lo, hi = out["win_rate_ci95"]
    print(
        f"  {args.bots[0]} wins {out['win_rate']:.1%} (95% [{lo:.1%}, {hi:.1%}]): "
        f"{out['wins']} won, {out['losses']} lost, {out['shared']} shared"
    )
    return 0
