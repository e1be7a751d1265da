"""Compile the solver's kernels ahead of time: `python -m yambak.solver.warm` (run by `make install`).

Warming solves a two-row ruleset with every objective, so that every kernel a command can call is in
numba's disk cache (`compiled.py`).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from ..rules import load_ruleset
from ._induction import keep_values
from .advisor import Position, advise
from .compiled import kernels_compiled
from .objective import TargetProbability
from .simulate import simulate
from .table import solve
from .target import solve_target

__all__ = ["compile_kernels"]


def compile_kernels() -> float:
    """Compile (or load) every kernel by solving a tiny ruleset; the seconds it took."""
    start = time.perf_counter()
    tiny = load_ruleset(
        {
            "id": "warm",
            "rows": [{"id": "ones", "kind": "upper", "face": 1}, {"id": "chance", "kind": "sum"}],
            "columns": [{"id": "free"}],
        }
    )
    strategy = solve(tiny, cache=False)
    solve(tiny, objective=TargetProbability(2), cache=False)
    solve_target(tiny, 20, cache=False)
    keep_values(strategy.rules, strategy.table, np.arange(strategy.rules.n_states), kernel=True)
    advise(strategy, Position(filled={}, dice=(1, 1, 2, 3, 4), roll=1), compiled=True)
    simulate(strategy, games=10, threads=1)
    return time.perf_counter() - start


def main() -> int:
    cold = not kernels_compiled()
    seconds = compile_kernels()
    print(f"yambak: solver kernels {'compiled' if cold else 'already compiled'} ({seconds:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
