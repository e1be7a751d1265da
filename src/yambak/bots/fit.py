"""Fit the strong bot's value model to its own play: fitted value iteration over self-play.

`python -m yambak.bots.fit --rules yams-fr --options columns=1` (or `--spec JSON`, `--ship`).

The model (`evaluate.Model`) estimates a sheet's final total as what is written (with bonuses and
relations as scored) plus the analytic parts (upper bonus chance from the distributions D of the
values written per box; max/min, plus/min and minimax pairs over D) plus a learned part

    L(sheet) = sum over open boxes i of (a_i + b_i T + e_i T^2 + d_i gap) + sum over open pairs i<j of C_ij
               (+ joker term, + a scale on the upper bonus chance)

where T is the fraction of boxes still open and pairs are boxes of one column or one row. The fit
never reads a solver table; it only plays:

1. start from the prior (chase distributions, a_i = the mean of D, no interactions);
2. play self-play solitaire games with the heuristic under the current model (half of them with
   a random box at the end of 10% of turns, to see states the policy would not); at every turn
   start s take the Bellman target: the model's value of s backed up through one exactly solved
   turn (the expected best terminal value over the 252 first rolls, keeps and announcements);
3. refit D to the values the policy wrote (20 pseudo games of the prior mixed in) and the learned
   part by ridge regression of the targets (toward the previous parameters), damped; repeat
   (`MIN_ITERATIONS` to `max_iterations`, or until 3/4 of the time budget is spent). The mean of the
   last iterations' parameters is kept.
4. calibrate: one-turn backups move value back one turn per iteration, so on long sheets the
   estimate of an early sheet stays far below what play then scores. The bot's own games give, for
   every number k of open boxes, the mean of (final total - estimate) over its turn starts with k
   boxes open: `calibration[k]`. Every choice of a turn ends with one box fewer open, so the term
   moves no decision; it makes the expected scores and win chances shown agree with play.
5. check on a fresh batch of games the calibration did not see: the predicted mean final total at the
   start, and at every k, agrees with the batch's played mean within `TOLERANCE` of it; if not, the
   batch joins the calibration and another is played, until it does or the budget is spent (the
   batches are large enough that the sampling noise of the check is about a third of `TOLERANCE`).
   `meta["agreement"]` says how it ended. (TD(lambda) targets, tried instead of step 4, moved the
   start value up faster but played worse: with lambda 0.8 a yams fit played 246 on average against
   254.7, yams-de 747 against 806 at the 6th iteration.)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine import GameState, Score, Sheet, new_game
from ..rules import Ruleset, load_ruleset, load_ruleset_arg
from ..solver import dice as D
from .evaluate import Model, W, build_model, prior_distributions
from .expectimax import heuristic, plan_for
from .models import model_path, save_model, shipped_path

__all__ = ["TOLERANCE", "calibrate", "features", "fit_model", "main", "turn_value"]

PRIOR = 20  # pseudo games of the chase prior mixed into every histogram
TOLERANCE = 0.01  # |predicted - played| mean final total, as a share of the played mean
MIN_ITERATIONS = 12
CHECK_GAMES = (2000, 600)  # games per calibration batch: one-column sheets, longer ones (time allowing)
SAMPLES = 6000  # turn starts per iteration (games = SAMPLES / boxes)
EXPLORE = 0.1
RIDGE = 2.0
DAMPING = 1.0
AVERAGE = 3  # the kept parameters: the mean of the last iterations'


def pair_list(rules: Ruleset) -> list[tuple[int, int]]:
    """Box pairs with an interaction term: same column or same row."""
    n_rows = rules.n_rows
    out = []
    for i in range(rules.n_boxes):
        for j in range(i + 1, rules.n_boxes):
            if i // n_rows == j // n_rows or i % n_rows == j % n_rows:
                out.append((i, j))
    return out


def features(model: Model, sheet: Sheet, yam_nonzero: bool, pairs: np.ndarray) -> np.ndarray:
    """The learned part's features of a sheet: [open, open x T, open x upper gap, open x T^2, open_i x open_j per
    pair, joker, bonus]."""
    written = sheet.written
    o = np.fromiter((v is None for v in written), dtype=float, count=len(written))
    t = o.sum() / len(o)
    pair = o[pairs[:, 0]] * o[pairs[:, 1]] if len(pairs) else np.zeros(0)
    gap = o * model.gaps(sheet) * model.upper_mask
    tail = [t if yam_nonzero else 0.0, model.bonus_feature(sheet)]
    if model.rules.save_rolls:  # the saved rolls' term
        tail.append(sheet.saved * t)
    return np.concatenate([o, o * t, gap, o * t * t, pair, tail])


def theta_of(model: Model, pairs: np.ndarray) -> np.ndarray:
    c = model.C[pairs[:, 0], pairs[:, 1]] if len(pairs) else np.zeros(0)
    tail = [model.joker, model.bonus_scale] + ([model.saved] if model.rules.save_rolls else [])
    return np.concatenate([model.a, model.b, model.d, model.e, c, tail])


def turn_value(state: GameState, p: int, model: Model) -> float:
    """Expected best value (change of the model's estimate) of the turn about to start."""
    plan = plan_for(state, p, model)
    v1 = plan.V[1]
    if plan.V_announce is not None and plan.V_announce.size:
        v1 = np.maximum(v1, plan.V_announce.max(axis=1))
    v1 = np.where(np.isfinite(v1), v1, -1e3)
    return float(D.lattice(state.rules.dice).ROLL_PROB @ v1)


def _yam_nonzero(model: Model, state: GameState) -> bool:
    y = model._yam_box()
    return y >= 0 and bool(state.sheets[0].entry_score(y))


def _play(
    model: Model, seed: str, explore: float, pairs: np.ndarray
) -> tuple[GameState, list[np.ndarray], list[float]]:
    """One self-play game: its features and targets for the learned part at every turn start (the
    one-turn Bellman backups of the model's estimate)."""
    rules = model.rules
    state = new_game(rules, ["fit"], seed=seed)
    rng = random.Random(seed)
    xs: list[np.ndarray] = []
    backups: list[float] = []  # B(s): the model's final-total estimate backed up through the turn
    offsets: list[float] = []  # F(s) - L(s): the analytic part, which the learned part is added to
    while not state.finished:
        turn = state.turns[0]
        if not turn.rolls:
            sheet = state.sheets[0]
            xs.append(features(model, sheet, _yam_nonzero(model, state), pairs))
            learned = float(
                model.learned(sheet).sum()
                + model.joker_term(sheet)
                + model.bonus_scale * model.bonus_feature(sheet)
                + model.saved_term(sheet)
            )
            estimate = model.estimate(sheet)
            backups.append(estimate + turn_value(state, 0, model))
            offsets.append(estimate - learned)
        action = heuristic(state, 0, rng, model=model)
        if explore and isinstance(action, Score) and rng.random() < explore:
            legal = state.legal_boxes(0)
            if legal:
                action = Score(0, rules.box_id(rng.choice(legal)), strike=False)
        state, _ = state.apply(action)
    return state, xs, [b - o for b, o in zip(backups, offsets, strict=True)]


def final_value(state: GameState) -> int:
    """A solitaire game's worth to the model: its total, and the ruleset's `win_points` for an outright win
    (what the plan valued it at)."""
    won = state.outright is not None and state.rules.win_points is not None
    return state.total(0) + (state.rules.win_points or 0 if won else 0)


Stages = list[tuple[list[tuple[int, float]], int]]  # per game: (open boxes, estimate) at each turn start; final


def play_stages(model: Model, seed: str, games: int, seconds: float) -> Stages:
    """Self-play games of the heuristic (no exploration): the model's estimate at every turn start and
    the final total (at least 20 games, then as many of `games` as `seconds` allow)."""
    rules = model.rules
    t0 = time.process_time()
    out: Stages = []
    for g in range(games):
        state = new_game(rules, ["fit"], seed=f"{seed}:{g}")
        rng = random.Random(f"{seed}:{g}")
        stages = []
        while not state.finished:
            if not state.turns[0].rolls:
                sheet = state.sheets[0]
                stages.append((sheet.written.count(None), model.estimate(sheet)))
            state, _ = state.apply(heuristic(state, 0, rng, model=model))
        out.append((stages, final_value(state)))
        if g >= 19 and time.process_time() - t0 > seconds:
            break
    return out


def calibration_of(games: Stages, n_boxes: int) -> np.ndarray:
    """calibration[k]: the mean of (final total - estimate) over the turn starts with k boxes open."""
    sums, counts = np.zeros(n_boxes + 1), np.zeros(n_boxes + 1)
    for stages, final in games:
        for k, estimate in stages:
            sums[k] += final - estimate
            counts[k] += 1
    return np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)


def agreement(games: Stages, calibration: np.ndarray) -> dict[str, Any]:
    """How the calibrated predictions of these games agree with their final totals: the gap at the start
    and the worst over the numbers of open boxes, as shares of the played mean (and the start's standard
    error, the sampling noise of that comparison)."""
    finals = np.array([final for _, final in games], dtype=float)
    played = float(finals.mean())
    stderr = float(finals.std(ddof=1) / np.sqrt(len(finals))) / played if len(finals) > 1 else None
    by_k: dict[int, list[float]] = {}
    for stages, final in games:
        for k, estimate in stages:
            by_k.setdefault(k, []).append(estimate + calibration[k] - final)
    start = max(by_k)
    gaps = {k: abs(float(np.mean(v))) / played for k, v in by_k.items()}
    return {
        "games": len(games), "played": round(played, 2),
        "predicted": round(played + float(np.mean(by_k[start])), 2),
        "start_gap": round(gaps[start], 5), "worst_gap": round(max(gaps.values()), 5),
        "start_stderr": None if stderr is None else round(stderr, 5),
    }  # fmt: skip


def calibrate(
    model: Model,
    seconds: float,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    t0: float | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """The calibration (module docstring, step 4) and its check on unseen games (step 5), in about
    `seconds`: the calibration of the games so far predicts a fresh batch, which then joins them,
    until the predictions agree with play within `TOLERANCE` at every number of open boxes, or the
    time is spent. Progress lines count seconds from `t0` (a `time.process_time()`; now by default)."""
    rules = model.rules
    per_batch = CHECK_GAMES[0] if len(rules.columns) == 1 else CHECK_GAMES[1]
    start = time.process_time()
    t0 = start if t0 is None else t0
    seen = play_stages(model, f"calibrate{seed}:0", per_batch, seconds / 4)
    rounds = 0
    while True:
        rounds += 1
        calibration = calibration_of(seen, rules.n_boxes)
        fresh = play_stages(model, f"calibrate{seed}:{rounds}", per_batch, seconds / 4)
        check = agreement(fresh, calibration)  # games the calibration has not seen
        check["calibration_games"] = len(seen)
        check["within"] = check["worst_gap"] <= TOLERANCE
        if progress:
            progress(json.dumps({"check": rounds, **check, "seconds": round(time.process_time() - t0, 1)}))
        seen += fresh
        if check["within"] or time.process_time() - start > seconds:
            return calibration_of(seen, rules.n_boxes), check


def _params(dist: np.ndarray, theta: np.ndarray, n: int, pairs: np.ndarray) -> dict[str, Any]:
    C = np.zeros((n, n))
    if len(pairs):
        c = theta[4 * n : 4 * n + len(pairs)]
        C[pairs[:, 0], pairs[:, 1]] = c
        C[pairs[:, 1], pairs[:, 0]] = c
    tail = theta[4 * n + len(pairs) :]  # joker, bonus scale (and saved rolls)
    return {
        "dist": dist, "a": theta[:n], "b": theta[n : 2 * n], "d": theta[2 * n : 3 * n], "e": theta[3 * n : 4 * n],
        "C": C,
        "joker": float(tail[0]), "bonus_scale": float(tail[1]), "saved": float(tail[2]) if len(tail) > 2 else 0.0,
    }  # fmt: skip


def fit_model(
    rules: Ruleset,
    budget: float = 300.0,
    max_iterations: int = 16,
    samples: int = SAMPLES,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    start: Model | None = None,
) -> Model:
    """Fitted value iteration over self-play (module docstring), within `budget` seconds of CPU time (this
    process's: a busy machine makes a fit slower, never shorter)."""
    t0, wall = time.process_time(), time.perf_counter()
    model = start or build_model(rules)
    prior = prior_distributions(rules, model.table)
    pairs = np.array(pair_list(rules), dtype=np.int64).reshape(-1, 2)
    n = rules.n_boxes
    games = max(20, -(-samples // n))
    history: list[dict[str, Any]] = []
    thetas: list[np.ndarray] = []
    dist = prior.copy()
    for it in range(max_iterations):
        xs: list[np.ndarray] = []
        ys: list[float] = []
        counts = np.zeros((len(rules.columns), rules.n_rows, W))
        finals = []
        for g in range(games):
            explore = EXPLORE if g % 2 else 0.0
            state, x, y = _play(model, f"fit{seed}:{it}:{g}", explore, pairs)
            xs += x
            ys += y
            if not explore:
                finals.append(final_value(state))
                for box, value in enumerate(state.sheets[0].written):
                    c, r = divmod(box, rules.n_rows)
                    counts[c, r, min(int(value or 0), W - 1)] += 1
            if time.process_time() - t0 > budget and g >= 10:
                break
        played = float(np.mean(finals)) if finals else float("nan")
        predicted = model.estimate(new_game(rules, ["fit"]).sheets[0])
        X = np.array(xs)
        target = np.array(ys)
        theta = theta_of(model, pairs)
        A = X.T @ X + RIDGE * np.eye(X.shape[1])
        new = np.linalg.solve(A, X.T @ target + RIDGE * theta)
        rms = float(np.sqrt(np.mean((X @ new - target) ** 2)))
        theta = theta + DAMPING * (new - theta)
        record = {
            "iteration": it + 1, "games": len(finals), "samples": len(target), "played": round(played, 2),
            "predicted": round(predicted, 2), "bellman_rms": round(rms, 3),
            "seconds": round(time.process_time() - t0, 1),
        }  # fmt: skip
        history.append(record)
        if progress:
            progress(json.dumps(record))
        thetas.append(theta)
        dist = counts + prior * PRIOR
        done = it + 1 >= MIN_ITERATIONS or time.process_time() - t0 > 0.75 * budget
        if done or it + 1 == max_iterations:
            theta = np.mean(thetas[-AVERAGE:], axis=0)
        model = build_model(rules, _params(dist, theta, n, pairs), "fitted")
        if done:
            break
    chosen = model
    chosen.calibration, check = calibrate(model, max(budget - (time.process_time() - t0), 5.0), seed, progress, t0)
    chosen.meta = {
        "method": "fitted value iteration over self-play, then calibration on the bot's games (bots/fit.py)",
        "tolerance": TOLERANCE,
        "agreement": check,
        "budget_seconds": budget,  # CPU
        "seconds": round(time.process_time() - t0, 1),  # CPU
        "wall_seconds": round(time.perf_counter() - wall, 1),
        "parameters": int(3 * n + len(model.upper_rows) * len(rules.columns) + len(pairs) + 2),
        "kept": f"the mean of the last {AVERAGE} iterations' parameters",
        "history": history,
    }
    chosen.source = "fitted"
    return chosen


def limit_self(memory: int | None, nice: int) -> None:
    """A background fit's own limits, set first thing in its process: at most `memory` bytes of address
    space (a fit that needs more fails with MemoryError instead of pushing a server out of memory) and a
    lower priority."""
    import os
    import resource

    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if nice:
        os.nice(nice)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", help="a preset id or a ruleset .toml file")
    parser.add_argument("--options", nargs="*", default=[], metavar="NAME=VALUE")
    parser.add_argument("--spec", help="a ruleset spec as JSON (what a game record's rules hold)")
    parser.add_argument("--budget", type=float, default=300.0, help="CPU seconds; default 300")
    parser.add_argument("--samples", type=int, default=SAMPLES, help="turn starts per iteration")
    parser.add_argument("--iterations", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ship", action="store_true", help="write into the package (bots/fits/), not the cache")
    parser.add_argument("--max-memory", type=int, metavar="BYTES", help="address space limit of this process")
    parser.add_argument("--nice", type=int, default=0, help="lower this process's priority by N")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    limit_self(args.max_memory, args.nice)
    if args.spec:
        rules = load_ruleset(json.loads(args.spec))
    elif args.rules:
        rules = load_ruleset_arg(args.rules, args.options)
    else:
        parser.error("give --rules or --spec")
    say = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    model = fit_model(
        rules, budget=args.budget, max_iterations=args.iterations, samples=args.samples, seed=args.seed,
        progress=say,
    )  # fmt: skip
    path = save_model(model, shipped_path(rules) if args.ship else model_path(rules))
    if say:
        say(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
