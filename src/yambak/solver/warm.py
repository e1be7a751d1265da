"""Compile the solver's kernels ahead of time: `python -m yambak.solver.warm` (run by `make install`).

The numba kernels (`_kernels`) are compiled on first use and cached on disk
(beside the module, or in numba's user cache where the package is read-only),
which costs about five seconds once per machine. Warming solves a two-row
ruleset with every objective, so that every kernel a command can call is in the
cache. A command that is about to compile prints one line first
(`announce_compiling`), so a first run is never a silent wait.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from types import ModuleType

__all__ = ["announce_compiling", "compile_kernels", "kernels", "kernels_compiled", "say_when_compiling"]

NOTICE = "yambak: compiling the solver, first run only"

_ENTRY_POINTS = (
    "mean_turn_starts",
    "mean_keep_values",
    "turn_starts",
    "target_turn_starts",
    "position_values",
    "optimal_turns",
)
_notice: Callable[[], None] | None = None


def announce_compiling(callback: Callable[[], None] | None) -> None:
    """Call `callback` once, right before the kernels are first needed while not yet compiled."""
    global _notice
    _notice = callback


def say_when_compiling() -> None:
    """The command line's announcement: `NOTICE` on stderr, once, right before compiling."""
    announce_compiling(lambda: print(NOTICE, file=sys.stderr, flush=True))


def kernels_compiled(names: tuple[str, ...] = _ENTRY_POINTS) -> bool:
    """Whether numba's disk cache holds these entry points for this source and machine (imports numba).

    Reads numba's cache index (not a public interface): when that fails, say no,
    so the worst case is one needless line."""
    from . import _kernels as K

    try:
        return all(bool(getattr(K, name)._cache._cache_file._load_index()) for name in names)
    except Exception:  # noqa: BLE001 - any change of numba's internals: assume cold
        return False


def kernels(*needed: str) -> ModuleType:
    """The compiled kernels module, after the announcement if the `needed` entry points are about to be
    compiled."""
    global _notice
    if _notice is not None:
        notice, _notice = _notice, None
        if not kernels_compiled(needed or _ENTRY_POINTS):
            notice()
    from . import _kernels as K

    return K


def compile_kernels() -> float:
    """Compile (or load) every kernel by solving a tiny ruleset; the seconds it took."""
    import numpy as np

    from ..rules import load_ruleset
    from ._induction import keep_values
    from .objective import TargetProbability
    from .table import solve

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
    from .target import solve_target

    solve_target(tiny, 20, cache=False)
    keep_values(strategy.rules, strategy.table, np.arange(strategy.rules.n_states), kernel=True)
    from .advisor import Position, advise

    advise(strategy, Position(filled={}, dice=(1, 1, 2, 3, 4), roll=1), compiled=True)
    from .simulate import simulate

    simulate(strategy, games=10, threads=1)
    return time.perf_counter() - start


def main() -> int:
    cold = not kernels_compiled()
    seconds = compile_kernels()
    print(f"yambak: solver kernels {'compiled' if cold else 'already compiled'} ({seconds:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
