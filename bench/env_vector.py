"""Steps per second of the vector environment (many yams games at once in numpy) against the
Gymnasium environment over the engine, random legal actions, one process (one core).

    .venv/bin/python bench/env_vector.py [--preset yams] [--envs 4096] [--seconds 5]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from yambak.env import YambakEnv, YambakVectorEnv


def _random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    return np.argmax(rng.random(mask.shape) * mask, axis=1)  # uniform among the legal actions


def vector_rate(preset: str, envs: int, seconds: float, flat: bool = False) -> float:
    env = YambakVectorEnv(preset, num_envs=envs, flat=flat)
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, _, _, info = env.step(_random_legal(rng, info["action_mask"]))
        steps += envs
    return steps / (time.perf_counter() - start)


def engine_rate(preset: str, seconds: float) -> float:
    env = YambakEnv(preset)
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, done, _, info = env.step(int(_random_legal(rng, info["action_mask"][None])[0]))
        steps += 1
        if done:
            _, info = env.reset()
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="yams")
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"{args.preset}, one process, load average {load:.1f}")
    for envs in sorted({256, 1024, args.envs}):
        print(f"  vector, {envs:>5} games at once: {vector_rate(args.preset, envs, args.seconds):>11,.0f} steps/s")
    flat = vector_rate(args.preset, args.envs, args.seconds, flat=True)
    print(f"  vector, {args.envs:>5} games, flat observations: {flat:>11,.0f} steps/s")
    print(f"  YambakEnv over the engine: {engine_rate(args.preset, args.seconds):>11,.0f} steps/s")


if __name__ == "__main__":
    main()
