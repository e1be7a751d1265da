"""`yambak solve`, `yambak hint` and `yambak simulate`, registered by `yambak.cli`.

Handlers return the exit status. Anything a user can get wrong (unknown preset,
bad option, a ruleset the solver cannot handle, an impossible position) prints
one line `yambak: <message>` to stderr and returns 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..rules import RulesetError, load_ruleset, parse_options
from ._layout import UnsupportedRuleset
from .advisor import Advice, Position, PositionError, advise, position_of
from .simulate import simulate
from .table import Strategy, solve

__all__ = ["register"]


class _Fail(Exception):
    """A user error, already worded."""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the solver's subcommands to the `yambak` parser."""
    p = subparsers.add_parser("solve", help="compute (or load) the optimal strategy table of a one-column ruleset")
    p.add_argument("preset", help="a preset id, e.g. yams, yatzy")
    _option_arg(p)
    p.add_argument("--recompute", action="store_true", help="ignore the cached table and compute it again")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_guard(_cmd_solve))

    p = subparsers.add_parser(
        "hint",
        help="expected final score of every keep and box in a position",
        description="Advise a position: the end of a game record (--record), or one typed in "
        "(--dice, --roll, --filled). Example: yambak hint --rules yams --dice 6 6 6 2 3 "
        "--roll 1 --filled ones=3,yam=50",
    )
    p.add_argument("--rules", metavar="PRESET", help="preset id (with --record: taken from the record)")
    _option_arg(p)
    p.add_argument("--record", metavar="GAME.json", help="advise the seat to act at the end of this game record")
    p.add_argument("--dice", type=int, nargs=5, metavar="D", help="the five dice showing")
    p.add_argument("--roll", type=int, help="rolls made this turn (default 1; 0 = before rolling, no --dice)")
    p.add_argument(
        "--filled",
        action="append",
        metavar="ROW=VALUE[,...]",
        help="filled boxes and the values written (0 = scratched); repeat or comma-separate",
    )
    p.add_argument("--held", type=int, nargs="*", default=[], metavar="D", help="dice held now (marks that keep)")
    p.add_argument("--upper", type=int, help="upper-section sum, checked against --filled")
    p.add_argument("--bonus", type=int, default=0, help="joker extra bonus points already won")
    p.add_argument("--top", type=int, default=10, help="show at most this many keeps and boxes (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_guard(_cmd_hint))

    p = subparsers.add_parser("simulate", help="play many solitaire games with a bot and print statistics")
    p.add_argument("--rules", metavar="PRESET", required=True, help="preset id")
    _option_arg(p)
    p.add_argument(
        "--bot",
        default="optimal",
        metavar="BOT",
        help="optimal (one-column rulesets), greedy, random, strong, heuristic, or a level: easy, medium, hard",
    )
    p.add_argument("--games", type=int, default=10000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE.png", help="write a histogram of the final scores (needs matplotlib)")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar on stderr (default: when stderr is a terminal)",
    )
    p.set_defaults(func=_guard(_cmd_simulate))


def _option_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--option", "-o", action="append", metavar="KEY=VALUE", help="a ruleset option; repeat for more")


def _guard(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """Turn user errors into one stderr line and status 2, whoever calls the handler."""

    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except _Fail as exc:
            message = str(exc)
        except UnsupportedRuleset as exc:
            message = f"cannot solve exactly: {exc.problem}"
        except (RulesetError, PositionError) as exc:
            message = str(exc)
        print(f"yambak: {message}", file=sys.stderr)
        return 2

    run.__doc__ = handler.__doc__
    return run


def _strategy(preset: str, options: list[str] | None, recompute: bool = False) -> Strategy:
    return solve(load_ruleset(preset, parse_options(preset, options)), recompute=recompute)


def _cmd_solve(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    strategy = _strategy(args.preset, args.option, args.recompute)
    seconds = time.perf_counter() - start
    if args.json:
        print(
            json.dumps(
                {
                    "preset": args.preset,
                    "options": strategy.ruleset.options_dict,
                    "expected_score": strategy.expected_score,
                    "states": strategy.states,
                    "seconds": seconds,
                },
                default=list,
            )
        )
    else:
        how = "loaded" if strategy.loaded else "computed"
        print(
            f"{args.preset}: expected score {strategy.expected_score:.7f} "
            f"({strategy.states:,} states, {how} in {seconds:.2f} s)"
        )
    return 0


def _parse_filled(items: list[str] | None) -> dict[str, int]:
    filled: dict[str, int] = {}
    for item in items or []:
        for pair in filter(None, item.split(",")):
            name, eq, text = pair.partition("=")
            if not eq:
                raise _Fail(f"--filled: write ROW=VALUE, not {pair!r}")
            try:
                value = int(text)
            except ValueError:
                raise _Fail(f"--filled: {text!r} is not a whole number") from None
            if name.strip() in filled:
                raise _Fail(f"--filled: {name} given twice")
            filled[name.strip()] = value
    return filled


def _cmd_hint(args: argparse.Namespace) -> int:
    if args.record:
        from ..engine import RecordError, replay  # the engine is only needed for records

        try:
            data = json.loads(Path(args.record).read_text(encoding="utf-8"))
            state = replay(data)
        except OSError as exc:
            raise _Fail(f"cannot read {args.record}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise _Fail(f"{args.record}: not JSON ({exc.msg}, line {exc.lineno})") from None
        except RecordError as exc:
            raise _Fail(f"{args.record}: {exc}") from None
        if args.rules and args.rules != state.rules.preset:
            raise _Fail(f"--rules {args.rules} but the record plays {state.rules.preset or state.rules.id}")
        if args.dice or args.filled:
            raise _Fail("--record gives the whole position: drop --dice/--filled")
        position = position_of(state)
        strategy = solve(state.rules)
    else:
        if not args.rules:
            raise _Fail("hint needs --rules PRESET (or --record GAME.json)")
        roll = args.roll if args.roll is not None else (1 if args.dice else 0)
        filled = _parse_filled(args.filled)
        position = Position(
            filled=filled, dice=tuple(args.dice or ()), roll=roll, held=tuple(args.held), extra_bonus=args.bonus
        )
        strategy = _strategy(args.rules, args.option)
        if args.upper is not None:
            rows = {r.id: r for r in strategy.ruleset.rows}
            upper = sum(v for k, v in filled.items() if k in rows and rows[k].is_upper)
            if upper != args.upper:
                raise _Fail(f"--upper {args.upper} but the filled upper boxes add up to {upper}")
    start = time.perf_counter()
    advice = advise(strategy, position)
    ms = (time.perf_counter() - start) * 1000
    if args.json:
        print(json.dumps(advice.to_dict()))
    else:
        _print_advice(advice, position, args.top, ms, sys.stdout)
    return 0


def _print_advice(advice: Advice, position: Position, top: int, ms: float, out: TextIO) -> None:
    dice = " ".join(map(str, position.dice)) or "-"
    print(
        f"dice {dice}, roll {position.roll}; on the sheet {advice.score}; "
        f"expected final score {advice.value:.2f} ({ms:.1f} ms)",
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


class _Bar:
    """A minimal progress bar on stderr (no dependency; stdout stays clean for --json)."""

    def __init__(self, total: int, out: TextIO) -> None:
        self.total, self.done, self.out, self.start = total, 0, out, time.perf_counter()

    def __call__(self, n: int) -> None:
        self.done += n
        frac = self.done / max(1, self.total)
        rate = self.done / max(1e-9, time.perf_counter() - self.start)
        bar = "#" * int(frac * 30)
        self.out.write(f"\r[{bar:<30}] {self.done:,}/{self.total:,} games, {rate:,.0f}/s")
        if self.done >= self.total:
            self.out.write("\n")
        self.out.flush()


def _cmd_simulate(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise _Fail("--games must be at least 1")
    ruleset = load_ruleset(args.rules, parse_options(args.rules, args.option))
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    bar = _Bar(args.games, sys.stderr) if show else None
    if args.bot == "optimal" and not _vectorisable(ruleset):
        raise _Fail(f"{args.rules} has no exact optimal strategy (more than one column); try --bot strong")
    if args.bot == "optimal":
        # One-column rulesets: the solver's simulator plays all games at once as array operations.
        result = simulate(solve(ruleset), "optimal", args.games, args.seed, progress=bar)
        summary = result.summary()
        scores = result.scores
    else:
        # Any ruleset, any bot: whole games through the engine, on both cores.
        import numpy as np

        from ..bots import LEVELS, POLICIES, simulate_details, summarize

        bot = LEVELS.get(args.bot, args.bot)
        if bot not in POLICIES:
            known = ", ".join([*POLICIES, *LEVELS])
            raise _Fail(f"unknown bot {args.bot!r} for {args.rules} (known: {known})")
        start = time.perf_counter()
        details = simulate_details(ruleset, bot, args.games, args.seed, progress=bar, workers=2)
        scores = np.array([d.total for d in details])
        summary = summarize(args.rules, args.bot, scores.tolist(), time.perf_counter() - start, details)
        summary.pop("ci95", None)
    summary["preset"] = args.rules
    if args.plot:
        _plot(scores, args.plot, f"{args.rules}, {args.bot} bot, {args.games:,} games")
    if args.json:
        print(json.dumps(summary))
    else:
        pct = "  ".join(f"p{k}={v:g}" for k, v in summary["percentiles"].items())
        print(
            f"{args.rules}, {args.bot} bot, {summary['games']:,} games in {summary['seconds']:.2f} s\n"
            f"mean {summary['mean']:.3f}  std {summary['std']:.3f}  "
            f"(standard error {summary['std'] / max(1, summary['games']) ** 0.5:.3f})\n{pct}\n"
            f"upper bonus {summary['upper_bonus_rate']:.1%}  yam scored {summary['yam_rate']:.1%}"
        )
    return 0


def _vectorisable(ruleset: Any) -> bool:
    """Whether the solver's vectorised simulator can play this ruleset."""
    from ._layout import UnsupportedRuleset, solver_rules

    try:
        solver_rules(ruleset)
    except UnsupportedRuleset:
        return False
    return True


def _plot(scores: Any, path: str, title: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise _Fail("--plot needs matplotlib (pip install matplotlib)") from None
    fig, ax = plt.subplots(figsize=(8, 4.5))
    lo, hi = int(scores.min()), int(scores.max())
    ax.hist(scores, bins=range(lo, hi + 6, 5), color="#3b6ea5")
    ax.axvline(float(scores.mean()), color="#c0392b", label=f"mean {scores.mean():.1f}")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise _Fail(f"cannot write {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)
