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
   part by ridge regression of the targets (toward the previous parameters), damped;
4. repeat until the model's predicted mean final total at the start agrees with the played mean
   within `TOLERANCE` of it (and at least `MIN_ITERATIONS`), or the time budget is spent. The
   iteration whose own games scored best is kept.
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
from ..solver.table import cache_dir
from .evaluate import Model, W, build_model, prior_distributions
from .expectimax import heuristic, plan_for
from .models import model_path, save_model, shipped_path

__all__ = ["TOLERANCE", "features", "fit_model", "main", "turn_value"]

PRIOR = 20  # pseudo games of the chase prior mixed into every histogram
TOLERANCE = 0.01  # |predicted - played| mean final total, as a share of the played mean
MIN_ITERATIONS = 12
SAMPLES = 6000  # turn starts per iteration (games = SAMPLES / boxes)
EXPLORE = 0.1
RIDGE = 2.0
DAMPING = 1.0
LAMBDA = 0.0  # TD(lambda) mix of the turn's backup and the rest of the game as played
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
    return np.concatenate([o, o * t, gap, o * t * t, pair, [t if yam_nonzero else 0.0, model.bonus_feature(sheet)]])


def theta_of(model: Model, pairs: np.ndarray) -> np.ndarray:
    c = model.C[pairs[:, 0], pairs[:, 1]] if len(pairs) else np.zeros(0)
    return np.concatenate([model.a, model.b, model.d, model.e, c, [model.joker, model.bonus_scale]])


def turn_value(state: GameState, p: int, model: Model) -> float:
    """Expected best value (change of the model's estimate) of the turn about to start."""
    plan = plan_for(state, p, model)
    v1 = plan.V[1]
    if plan.V_announce is not None and plan.V_announce.size:
        v1 = np.maximum(v1, plan.V_announce.max(axis=1))
    v1 = np.where(np.isfinite(v1), v1, -1e3)
    return float(D.ROLL_PROB @ v1)


def _yam_nonzero(model: Model, state: GameState) -> bool:
    y = model._yam_box()
    return y >= 0 and bool(state.sheets[0].entry_score(y))


def _play(
    model: Model, seed: str, explore: float, pairs: np.ndarray
) -> tuple[GameState, list[np.ndarray], list[float]]:
    """One self-play game: its features and targets for the learned part at every turn start (the
    lambda-return of the one-turn Bellman backups; pure Bellman targets in exploring games)."""
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
                model.learned(sheet).sum() + model.joker_term(sheet) + model.bonus_scale * model.bonus_feature(sheet)
            )
            estimate = model.value(sheet)
            backups.append(estimate + turn_value(state, 0, model))
            offsets.append(estimate - learned)
        action = heuristic(state, 0, rng, model=model)
        if explore and isinstance(action, Score) and rng.random() < explore:
            legal = state.legal_boxes(0)
            if legal:
                action = Score(0, rules.box_id(rng.choice(legal)), strike=False)
        state, _ = state.apply(action)
    lam = 0.0 if explore else LAMBDA
    g = float(state.total(0))
    ys = [0.0] * len(xs)
    for t in range(len(xs) - 1, -1, -1):
        g = (1 - lam) * backups[t] + lam * g
        ys[t] = g - offsets[t]
    return state, xs, ys


def _params(dist: np.ndarray, theta: np.ndarray, n: int, pairs: np.ndarray) -> dict[str, Any]:
    C = np.zeros((n, n))
    if len(pairs):
        c = theta[4 * n : 4 * n + len(pairs)]
        C[pairs[:, 0], pairs[:, 1]] = c
        C[pairs[:, 1], pairs[:, 0]] = c
    return {
        "dist": dist, "a": theta[:n], "b": theta[n : 2 * n], "d": theta[2 * n : 3 * n], "e": theta[3 * n : 4 * n],
        "C": C,
        "joker": float(theta[-2]), "bonus_scale": float(theta[-1]),
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
    """Fitted value iteration over self-play (module docstring), within `budget` seconds of one core."""
    t0 = time.perf_counter()
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
                finals.append(state.total(0))
                for box, value in enumerate(state.sheets[0].written):
                    c, r = divmod(box, rules.n_rows)
                    counts[c, r, min(int(value or 0), W - 1)] += 1
            if time.perf_counter() - t0 > budget and g >= 10:
                break
        played = float(np.mean(finals)) if finals else float("nan")
        predicted = model.value(new_game(rules, ["fit"]).sheets[0])
        gap = abs(predicted - played)
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
            "seconds": round(time.perf_counter() - t0, 1),
        }  # fmt: skip
        history.append(record)
        if progress:
            progress(json.dumps(record))
        thetas.append(theta)
        dist = counts + prior * PRIOR
        done = (it + 1 >= MIN_ITERATIONS and gap <= TOLERANCE * played) or time.perf_counter() - t0 > budget
        if done or it + 1 == max_iterations:
            theta = np.mean(thetas[-AVERAGE:], axis=0)
        model = build_model(rules, _params(dist, theta, n, pairs), "fitted")
        if done:
            break
    chosen = model
    chosen.meta = {
        "method": "fitted value iteration over self-play (bots/fit.py)",
        "tolerance": TOLERANCE,
        "budget_seconds": budget,
        "seconds": round(time.perf_counter() - t0, 1),
        "parameters": int(3 * n + len(model.upper_rows) * len(rules.columns) + len(pairs) + 2),
        "kept": f"the mean of the last {AVERAGE} iterations' parameters",
        "history": history,
    }
    chosen.source = "fitted"
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", help="a preset id or a ruleset .toml file")
    parser.add_argument("--options", nargs="*", default=[], metavar="NAME=VALUE")
    parser.add_argument("--spec", help="a ruleset spec as JSON (what a game record's rules hold)")
    parser.add_argument("--budget", type=float, default=300.0, help="seconds (one core); default 300")
    parser.add_argument("--samples", type=int, default=SAMPLES, help="turn starts per iteration")
    parser.add_argument("--iterations", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ship", action="store_true", help="write into the package (bots/fits/), not the cache")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.spec:
        rules = load_ruleset(json.loads(args.spec))
    elif args.rules:
        rules = load_ruleset_arg(args.rules, args.options)
    else:
        parser.error("give --rules or --spec")
    say = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    try:
        model = fit_model(
            rules, budget=args.budget, max_iterations=args.iterations, samples=args.samples, seed=args.seed,
            progress=say,
        )  # fmt: skip
        path = save_model(model, shipped_path(rules) if args.ship else model_path(rules))
    finally:
        if args.spec:  # a background fit: free the lock
            try:
                (cache_dir() / "models" / ".fitting").unlink()
            except OSError:
                pass
    if say:
        say(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
