"""The solver's numba kernels (`_kernels`), loaded on first use, with one line said first when they are
about to be compiled (`announce_compiling`), so a first run is never a silent wait.

They are compiled once and cached on disk (beside the module, or in numba's user cache where the
package is read-only), which costs about five seconds once per machine; `warm.py` does it ahead of time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType

__all__ = ["NOTICE", "announce_compiling", "kernels", "kernels_compiled", "say_when_compiling"]

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
    from . import _kernels as K  # numba loads here, not when the solver is imported

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
