"""`yambak strategy RULESET`: the odds, what the best play scores and the opening table (registered by
`yambak.cli`, which imports this module only when the command runs)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..commandline import (
    UserError,
    add_ruleset_args,
    bounded_int,
    progress_arg,
    progress_bar,
    ruleset_of,
    workers_arg,
)

if TYPE_CHECKING:
    from ..rules import Ruleset
    from .chance import BoxOdds
    from .report import StrategyData

__all__ = ["add_arguments", "register", "run"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """`yambak strategy`, as `yambak.cli` registers a command's module when it is chosen."""
    p = sub.add_parser("strategy", help="the odds, what the best play scores and the opening table of a ruleset")
    add_arguments(p)
    p.set_defaults(func=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("preset", metavar="RULESET", help="a preset id (yams, yatzy...) or a ruleset .toml file")
    add_ruleset_args(p)
    p.add_argument(
        "--games",
        type=bounded_int(0, 10_000_000),
        default=None,
        metavar="N",
        help="compute with N games (default: the shipped or kept figures, else 100,000 optimal or 2,000 strong "
        "games, kept in the cache for the next time)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the games (default 0)")
    p.add_argument("--odds-only", action="store_true", help="just the odds (instant on every ruleset)")
    p.add_argument(
        "--keep",
        type=bounded_int(1, 6),
        nargs="*",
        default=None,
        metavar="D",
        help="the calculator: the chance of each combination holding these dice (with --rolls-left)",
    )
    p.add_argument("--rolls-left", type=bounded_int(1, 20), default=None, metavar="N", help="rolls to go (--keep)")
    p.add_argument("--column", default=None, help="the column the calculator plays in (default: the first)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    progress_arg(p)
    workers_arg(p)


def run(args: argparse.Namespace) -> int:
    from .chance import odds
    from .data_files import keep, stored
    from .report import build, has_table

    ruleset = ruleset_of(args, args.preset)
    name = ruleset.preset or args.preset
    if args.keep is not None or args.rolls_left is not None:
        return _calculate(args, ruleset, name)
    if args.odds_only:
        table = odds(ruleset)
        if args.json:
            out: dict[str, Any] = {"preset": name, "odds": {b.box: list(b.chances) for b in table}}
            if table[0].saved:
                out["odds_with_saved_rolls"] = {b.box: list(b.saved) for b in table}
            print(json.dumps(out))
        else:
            print(_odds_text(table))
        return 0
    default = args.games is None and args.seed == 0  # the figures a page shows: read where kept, kept once made
    data = stored(ruleset) if default else None
    if data is None:
        if args.games == 0 and not has_table(ruleset):
            raise UserError(f"{name}: no exact table; the estimate needs games (--games N, N >= 1)")
        exact = has_table(ruleset)
        games = args.games if args.games is not None else (100_000 if exact else 2_000)
        bar = progress_bar(args.progress, games, f"{name} {'optimal' if exact else 'strong'}")
        try:
            data = build(
                ruleset, games, args.seed, progress=bar.update if bar is not None else None, workers=args.workers
            )
        finally:
            if bar is not None:
                bar.close()
        if default:
            print(f"{name}: figures kept in {keep(ruleset, data)}", file=sys.stderr)
    if args.json:
        out = data.to_json()
        out["preset"] = name
        print(json.dumps(out))
    else:
        print(_text(data, name))
    return 0


def _calculate(args: argparse.Namespace, ruleset: Ruleset, name: str) -> int:
    from .chance import calculator, odds

    if args.rolls_left is None:
        raise UserError("--keep needs --rolls-left N: the rolls still to make, this one included")
    kept = tuple(args.keep or ())
    if args.column is not None and args.column not in ruleset.column_index:
        raise UserError(f"--column: no column {args.column!r} in {name} ({', '.join(ruleset.column_index)})")
    try:
        figures = calculator(ruleset, kept, args.rolls_left, args.column)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    sums = {b.row for b in odds(ruleset) if b.expected_sum}
    if args.json:
        print(json.dumps({"preset": name, "keep": list(kept), "rolls_left": args.rolls_left, "chances": figures}))
        return 0
    held = " ".join(map(str, kept)) or "nothing"
    print(f"{name}: holding {held}, {args.rolls_left} roll(s) to go, playing for one box at a time")
    width = max(len(r) for r in figures)
    for row, value in figures.items():
        print(f"  {row:<{width}}  {value:7.2f}" if row in sums else f"  {row:<{width}}  {value:7.2%}")
    return 0


def _odds_text(table: Sequence[BoxOdds]) -> str:
    width = max(len(b.box) for b in table)
    more = f", then {len(table[0].saved)} more with saved rolls" if table[0].saved else ""
    lines = [f"{'box':<{width}}  within 1 roll, 2, 3{more} (chance; a sum box: the expected best sum)"]
    for b in table:
        cells = "  ".join(f"{c:7.2f}" if b.expected_sum else f"{c:7.2%}" for c in b.chances + b.saved)
        lines.append(f"{b.box:<{width}}  {cells}{'  (lowest)' if b.minimise else ''}")
    return "\n".join(lines)


def _choice(c: Mapping[str, object] | None) -> str:
    if c is None:
        return "-"
    if "box" in c:
        return f"score {c['box']} ({c['points']})"
    keep = c.get("keep")
    return "keep " + (" ".join(map(str, keep if isinstance(keep, list) else [])) or "nothing")


def _text(data: StrategyData, name: str) -> str:
    how = "exact (solver's table)" if data.exact else f"estimate, {data.games:,} games of the {data.bot} bot"
    lines = [f"{name}: expected score {data.expected_score:.4f}"
             + (f" ± {data.stderr:.2f} (standard error)" if not data.exact else "") + f"  [{how}]", "",
             "Odds, playing for one box from a fresh turn:", _odds_text(data.odds)]  # fmt: skip
    if data.win_points is not None:  # docs/rulesets.md: what the solver counts an outright win as
        lines.insert(1, f"an outright win counted as {data.win_points} points instead of the rest of the game")
    s = data.scores
    if s is not None:
        pct = "  ".join(f"p{k}={v:g}" for k, v in s.percentiles.items())
        lines += ["", f"Final scores ({s.games:,} games of the {data.bot} bot): mean {s.mean:.2f} ± {s.stderr:.2f}, "
                  f"median {s.percentiles['50']:g}", pct]  # fmt: skip
    for col, chance in data.bonus_chance.items():
        lines.append(f"upper bonus ({col}): {chance:.1%}")
    if data.par:
        p0 = data.par[0]
        worth = "  ".join(f"{p.k:+d}:{p.worth:+.1f}" for p in data.par if p.k % 3 == 0)
        lines.append(f"points over par after {', '.join(p0.filled)} (par {p0.par}), worth in final score: {worth}")
    if data.boxes:
        lines += ["", "box mean, share at zero, usual turn:"]
        for b in data.boxes:
            turn = f"turn {b.usual_turn}" if b.usual_turn else ""
            lines.append(f"  {b.box:<20} {b.mean:7.2f}  {b.zero:6.1%}  {turn}")
    if data.openings:
        lines += ["", "Openings (first roll: best, runner-up, what it loses):"]
        for o in data.openings:
            roll = " ".join(map(str, o.roll))
            lines.append(f"  {roll}: {_choice(o.best):<22} {_choice(o.runner_up):<22} {o.loss:.3f}")
        lines += ["", "Rules read off the table:"] + [f"  {r.text()}" for r in data.rules]
    return "\n".join(lines)
