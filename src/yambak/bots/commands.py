"""`yambak simulate` and `yambak duel`, registered by `yambak.cli`.

Both play any ruleset through the engine with any bot or level; `simulate
--bot optimal` on a one-column ruleset the solver handles plays the solver's
vectorised optimal games instead (the same policy, many games at once). Games
are folded as they finish (`stats`), so memory does not grow with `--games`.
User errors are raised (`UserError`, `RulesetError`) for `yambak.cli.main` to
print as one line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING

from ..commandline import (
    UserError,
    add_ruleset_args,
    bounded_int,
    check_writable,
    progress_arg,
    progress_bar,
    ruleset_of,
    workers_arg,
)
from .names import LEVELS, POLICY_NAMES

if TYPE_CHECKING:  # the rules load when a command runs, not for its --help
    from ..rules import Ruleset
    from .stats import SolitaireTally

__all__ = ["register"]

MAX_GAMES = 10**12
BOT_NAMES = ", ".join([*POLICY_NAMES, *LEVELS])


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "simulate",
        help="play many solitaire games with a bot and print statistics",
        description=f"Bots: {BOT_NAMES} (levels easy, medium, hard are random, greedy, strong). "
        "`optimal` is the exact table (one-column rulesets), played many games at once.",
    )
    add_ruleset_args(p, "--rules", required=True)
    p.add_argument("--bot", default="optimal", metavar="BOT", help=f"one of {BOT_NAMES} (default optimal)")
    _games_args(p, 10000)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE.png", help="write a histogram of the final scores (png, pdf, svg...)")
    _fit_arg(p)
    p.set_defaults(func=_cmd_simulate)

    p = subparsers.add_parser(
        "duel",
        help="play duplicate games between two bots (same dice for both) and compare them",
        description="Duplicate games (docs/rules.md §8): both bots get the same dice; seats alternate "
        "between games. Reports mean totals with 95%% intervals, the first bot's win rate "
        f"(shared wins count half) and, for column-points rulesets, match points. Bots: {BOT_NAMES}.",
    )
    add_ruleset_args(p, "--rules", required=True)
    p.add_argument("--bots", nargs=2, metavar=("A", "B"), default=["strong", "greedy"], help="default: strong greedy")
    _games_args(p, 200)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _fit_arg(p)
    p.set_defaults(func=_cmd_duel)

    p = subparsers.add_parser(
        "fit",
        help="fit the strong bot's value model to a ruleset by self-play (cached like solver tables)",
        description="Fitted value iteration over self-play games (yambak.bots.fit): the model the strong bot "
        "and the coach use for this ruleset, options included. Presets ship fitted; any other ruleset is "
        "fitted here (or in the background the first time a table plays it) and cached.",
    )
    add_ruleset_args(p, "--rules", required=True)
    p.add_argument(
        "--budget", type=bounded_int(10, 86400), default=300, metavar="SECONDS", help="CPU seconds (default 300)"
    )
    p.add_argument("--seed", type=bounded_int(0, 2**31 - 1), default=0, metavar="S")
    progress_arg(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_fit)


def _fit_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--fit-budget",
        type=bounded_int(0, 86400),
        default=150,
        metavar="SECONDS",
        help="strong/heuristic on a ruleset with no fitted value model: fit one first within this budget of "
        "CPU seconds (cached; 0: play the prior model). Default 150",
    )


def _ensure_model(ruleset: Ruleset, bots: list[str], budget: int, show: bool | None) -> None:
    """Fit the value model first (cached) when a model-playing bot meets a ruleset without one, so a
    measurement never mixes the prior with a fit landing halfway."""
    if budget <= 0 or ruleset.rolled_dice != 5 or not {_bot(b) for b in bots} & {"strong", "heuristic", "optimal"}:
        return
    from .models import fitting_enabled, load_params, model_path, save_model

    if not fitting_enabled():
        return  # fits off (the tests turn them off): the prior plays

    if load_params(ruleset) is not None:
        return
    from .fit import fit_model

    bar = progress_bar(show, budget, "fitting the value model", unit="CPU s")
    done = [0.0]

    def step(line: str) -> None:
        seconds = min(float(json.loads(line)["seconds"]), budget)
        if bar is not None:
            bar.update(max(0.0, seconds - done[0]))
        done[0] = seconds

    try:
        save_model(fit_model(ruleset, budget=budget, progress=step), model_path(ruleset))
    finally:
        if bar is not None:
            bar.close()


def _tell_model(ruleset: Ruleset, bots: list[str]) -> None:
    """A note on stderr for each bot that plays on the prior or on a fit that missed its check."""
    from .policies import model_note

    for bot in dict.fromkeys(bots):
        note = model_note(ruleset, bot)
        if note is not None:
            print(f"yambak: note: {note}", file=sys.stderr)


def _cmd_fit(args: argparse.Namespace) -> int:
    from .fit import fit_model
    from .models import model_path, save_model

    ruleset = ruleset_of(args, args.rules)
    if ruleset.rolled_dice != 5:
        raise UserError("the value model is for five dice (six-dice games play greedy)")
    name = ruleset.preset or args.rules
    bar = progress_bar(args.progress, args.budget, f"{name} fit", unit="CPU s")
    done = [0.0]

    def step(line: str) -> None:
        seconds = float(json.loads(line)["seconds"])
        if bar is not None:
            bar.update(max(0.0, min(seconds, args.budget) - done[0]))
            bar.set_postfix_str(f"played {json.loads(line)['played']}")
        done[0] = min(seconds, args.budget)

    try:
        model = fit_model(ruleset, budget=args.budget, seed=args.seed, progress=step)
    finally:
        if bar is not None:
            bar.close()
    path = save_model(model, model_path(ruleset))
    meta = {k: v for k, v in model.meta.items() if k != "history"}
    last = model.meta["history"][-1]
    if args.json:
        print(json.dumps({"ruleset": name, "path": str(path), **meta, "last": last}))
    else:
        check = meta["agreement"]
        print(
            f"{name}: fitted in {meta['seconds']:.0f} CPU s, {len(model.meta['history'])} iterations, "
            f"{meta['parameters']} parameters; on {check['games']} games it had not seen the bot scored "
            f"{check['played']} on average and the model predicted {check['predicted']} "
            f"({'within' if check['within'] else 'not within'} {meta['tolerance']:.0%}); cached in {path}"
        )
    return 0


def _games_args(p: argparse.ArgumentParser, default: int) -> None:
    p.add_argument("--games", type=bounded_int(1, MAX_GAMES), default=default, metavar="N")
    p.add_argument("--seed", type=bounded_int(0, 2**63 - 1), default=0, metavar="S")
    workers_arg(p)
    progress_arg(p)


def _bot(name: str) -> str:
    policy = LEVELS.get(name, name)
    if policy not in POLICY_NAMES:
        raise UserError(f"unknown bot {name!r} (known: {BOT_NAMES})")
    return policy


def _exact_table(ruleset: Ruleset) -> bool:
    from ..solver import UnsupportedRuleset, table_states

    try:
        table_states(ruleset)
    except UnsupportedRuleset:
        return False
    return True


def _cmd_simulate(args: argparse.Namespace) -> int:
    ruleset = ruleset_of(args, args.rules)
    policy = _bot(args.bot)
    name = ruleset.preset or args.rules
    vectorised = policy == "optimal" and _exact_table(ruleset)
    if policy == "optimal" and not vectorised:
        raise UserError(f"{name} has no exact optimal strategy (see `yambak solve`); try --bot strong")
    if args.plot:
        _check_plot(args.plot)
    if not vectorised:
        _ensure_model(ruleset, [args.bot], args.fit_budget, args.progress)
        _tell_model(ruleset, [args.bot])
    from .stats import SolitaireTally

    tally = SolitaireTally()
    start = time.perf_counter()
    if vectorised:
        from ..solver import simulate_blocks, solve
        from ..solver.first_run import say_when_compiling

        say_when_compiling()
        strategy = solve(ruleset, lean=True)
        bar = progress_bar(args.progress, args.games, f"{name} optimal")
        try:
            for scores, bonus, yam, won in simulate_blocks(strategy, args.games, args.seed, threads=args.workers):
                tally.add_arrays(scores, bonus, yam, won)
                if bar is not None:
                    bar.update(len(scores))
        finally:
            if bar is not None:
                bar.close()
    else:
        from .play import simulate_tally

        bar = progress_bar(args.progress, args.games, f"{name} {args.bot}")
        try:
            simulate_tally(ruleset, policy, args.games, args.seed, args.workers, bar.update if bar else None, tally)
        finally:
            if bar is not None:
                bar.close()
    # docs/rulesets.md: a game won outright counts as its ruleset's win_points say, as `solve` counts it
    win_points = ruleset.win_points if ruleset.wins_outright else None
    summary = tally.summary(name, args.bot, time.perf_counter() - start, win_points)
    if args.plot:
        _plot(tally, args.plot, f"{name}, {args.bot} bot, {args.games:,} games")
    if args.json:
        print(json.dumps(summary))
    else:
        pct = "  ".join(f"p{k}={v:g}" for k, v in summary["percentiles"].items())
        print(
            f"{name}, {args.bot} bot, {summary['games']:,} games in {summary['seconds']:.2f} s\n"
            f"mean {summary['mean']:.3f}  std {summary['std']:.3f}  "
            f"(standard error {summary['std'] / max(1, summary['games']) ** 0.5:.3f})\n{pct}\n"
            f"upper bonus {summary['upper_bonus_rate']:.1%}  yam scored {summary['yam_rate']:.1%}"
        )
        if win_points is not None:
            print(
                f"won outright {summary['outright_rate']:.1%}: the mean counts such a win as {win_points} points "
                f"instead of the rest of the game, as `solve` does (on the sheet: mean {summary['sheet_mean']:.3f}, "
                "the percentiles above)"
            )
    return 0


def _cmd_duel(args: argparse.Namespace) -> int:
    ruleset = ruleset_of(args, args.rules)
    a, b = args.bots
    for bot in (a, b):
        _bot(bot)
    _ensure_model(ruleset, [a, b], args.fit_budget, args.progress)
    _tell_model(ruleset, [a, b])
    from .play import duel

    bar = progress_bar(args.progress, args.games, f"duel {a} v {b}")
    try:
        result = duel(ruleset, a, b, args.games, args.seed, bar.update if bar else None, args.workers)
    finally:
        if bar is not None:
            bar.close()
    out = result.to_dict()
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{out['rules']}: {out['games']:,} duplicate games, seed {out['seed']}")
    for entry in out["bots"]:
        lo, hi = entry["ci95"]
        line = f"  {entry['bot']:<10} mean {entry['mean']:8.2f}  95% [{lo:.2f}, {hi:.2f}]"
        if entry["match_points"] is not None:
            line += f"  match points {entry['match_points']:.2f}"
        print(line)
    lo, hi = out["win_rate_ci95"]
    print(
        f"  {a} wins {out['win_rate']:.1%} (95% [{lo:.1%}, {hi:.1%}]): "
        f"{out['wins']} won, {out['losses']} lost, {out['shared']} shared"
    )
    if ruleset.wins_outright:  # docs/rules.md §7: a win at once, whatever the totals (the means are the sheets')
        print(
            f"  won outright (in the wins above, whatever the totals; both play that turn's dice): "
            f"{a} {out['outright'][0]}, {b} {out['outright'][1]}"
        )
    return 0


def _check_plot(path: str) -> None:
    """Refuse a plot that cannot be written before playing any game: its folder, its format."""
    check_writable(path)
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise UserError("--plot needs matplotlib (pip install matplotlib)") from None
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = path.rpartition(".")[2].lower() if "." in path.rpartition("/")[2] else ""
    if suffix not in formats:
        raise UserError(f"--plot {path}: name a file ending in one of .{', .'.join(sorted(formats))}")


def _plot(tally: SolitaireTally, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scores = tally.scores
    keys, counts = scores.bins()
    fig, ax = plt.subplots(figsize=(8, 4.5))
    step = max(5, scores.width)
    ax.hist(keys, bins=range(keys[0], keys[-1] + 2 * step, step), weights=counts, color="#3b6ea5")
    ax.axvline(scores.mean, color="#c0392b", label=f"mean {scores.mean:.1f}")
    ax.set_xlabel("final score")
    ax.set_ylabel("games")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
