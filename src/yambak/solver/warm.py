"""Compile the solver's kernels ahead of time: `python -m yambak.solver.warm` (run by `make install`).

Warming solves a two-row ruleset with every objective and reads it as every command does (the float64
table and its float32 copy: `compiled.SIGNATURES`), so that every kernel a command can call is in numba's
disk cache (`compiled.py`). A command that finds the cache empty calls it too, once.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..rules import load_ruleset
from ._induction import keep_values
from .advisor import Position, advise
from .compiled import kernels_compiled
from .objective import TargetProbability
from .simulate import simulate
from .table import Strategy, solve
from .target import solve_target

__all__ = ["compile_kernels", "compile_kernels_with_bar"]


def compile_kernels(progress: Callable[[int, int], None] | None = None) -> float:
    """Compile (or load) every kernel by solving and reading a tiny ruleset; the seconds it took.
    `progress(done, total)` after each step."""
    start = time.perf_counter()
    tiny = load_ruleset(
        {
            "id": "warm",
            "rows": [{"id": "ones", "kind": "upper", "face": 1}, {"id": "chance", "kind": "sum"}],
            "columns": [{"id": "free"}],
        }
    )
    position = Position(filled={}, dice=(1, 1, 2, 3, 4), roll=1)
    found: dict[str, Strategy] = {}

    def full() -> None:
        found["full"] = solve(tiny, cache=False)

    def lean() -> None:
        found["lean"] = solve(tiny, cache=False, lean=True)

    def reads(kind: str) -> Callable[[], None]:
        def read() -> None:
            strategy = found[kind]
            keep_values(strategy.rules, strategy.table, np.arange(strategy.rules.n_states), kernel=True)
            advise(strategy, position, compiled=True)
            simulate(strategy, games=10, threads=1)

        return read

    def targets() -> None:
        solve(tiny, objective=TargetProbability(2), cache=False)
        solve_target(tiny, 20, cache=False)

    steps = [full, targets, reads("full"), lean, reads("lean")]
    for done, step in enumerate(steps, 1):
        step()
        if progress is not None:
            progress(done, len(steps))
    return time.perf_counter() - start


def compile_kernels_with_bar() -> float:
    """`compile_kernels` with a progress bar of its steps on stderr when it is a terminal."""
    from ..commandline import progress_bar

    bar = progress_bar(None, 1, "compiling the solver", unit="steps")
    if bar is None:
        return compile_kernels()
    try:
        return compile_kernels(lambda done, total: _advance(bar, done, total))
    finally:
        bar.close()


def _advance(bar: Any, done: int, total: int) -> None:
    bar.total = total
    bar.update(done - bar.n)


def main() -> int:
    cold = not kernels_compiled()
    seconds = compile_kernels_with_bar()
    print(f"yambak: solver kernels {'compiled' if cold else 'already compiled'} ({seconds:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
