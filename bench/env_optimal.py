"""The optimal bot played through the Gymnasium environment reproduces the exact table's mean.

    .venv/bin/python bench/env_optimal.py [--rules yams] [--games 2000] [--seed 0]

Each step asks the bot for its action on `env.state` (the engine's state), turns it into the
environment's action index (`env.layout.index`), checks it against the mask and steps. Prints the
mean of the episode returns with a 95% interval, and the table's expected score.
"""

from __future__ import annotations

import argparse
import math
import random
import time

from yambak.bots import choose_action
from yambak.bots.optimal import strategy_for
from yambak.env import YambakEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yams")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = YambakEnv(args.rules, illegal="raise")
    rng = random.Random(args.seed)
    returns = []
    start = time.perf_counter()
    for g in range(args.games):
        obs, info = env.reset(seed=args.seed * 1_000_003 + g)
        done, ret = False, 0.0
        while not done:
            action = env.layout.index(choose_action(env.state, 0, "optimal", rng))
            assert info["action_mask"][action]
            obs, reward, done, _, info = env.step(action)
            ret += reward
        returns.append(ret)
    n = len(returns)
    mean = sum(returns) / n
    sd = math.sqrt(sum((r - mean) ** 2 for r in returns) / (n - 1))
    exact = strategy_for(env.rules).expected_score
    print(
        f"{args.rules}: {n} games through the environment, mean return {mean:.2f} +- {1.96 * sd / math.sqrt(n):.2f} "
        f"(exact optimum {exact:.4f}), {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
