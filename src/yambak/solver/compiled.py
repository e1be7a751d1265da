"""The solver's numba kernels (`_kernels`), loaded on first use, with one line said first when they are
about to be compiled (`announce_compiling`), so a first run is never a silent wait.

They are compiled once and cached on disk (beside the module, or in numba's user cache where the
package is read-only), which costs tens of seconds of CPU once per machine; `warm.py` does it ahead of time
(`make install`). A command that finds them missing compiles them all at once (`warm.compile_kernels`),
after its one line and with a progress bar on a terminal, so that no later command compiles again: the
kernels are typed by their arguments, and each table kind (the float64 solve, the float32 copy the
advisor and the simulator read) is a signature of its own, compiled on its first use otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

__all__ = ["NOTICE", "announce_compiling", "kernels", "kernels_compiled"]

NOTICE = "yambak: compiling the solver, first run only"

# Entry point -> the types of its first argument (the table) that commands call it with: the float64 table
# being solved, the float32 copy mapped read-only (table.py), the target's float32 values.
_F64, _F32_READ = "array(float64, 1d, C)", "readonly array(float32, 1d, C)"
SIGNATURES: dict[str, tuple[str, ...]] = {
    "mean_turn_starts": (_F64,),
    "mean_keep_values": (_F64, _F32_READ),
    "turn_starts": ("array(float64, 2d, C)",),
    "target_turn_starts": ("array(float32, 1d, C)",),
    "position_values": (_F64, _F32_READ),
    "optimal_turns": (_F64, _F32_READ),
}
_ENTRY_POINTS = tuple(SIGNATURES)
_notice: Callable[[], None] | None = None


def announce_compiling(callback: Callable[[], None] | None) -> None:
    """Call `callback` once, right before the kernels are first needed while not yet compiled (the command
    line's `first_run.say_when_compiling` announces, then compiles them all)."""
    global _notice
    _notice = callback


def kernels_compiled(names: tuple[str, ...] = _ENTRY_POINTS) -> bool:
    """Whether numba's disk cache holds these entry points, with every signature of `SIGNATURES`, for
    this source and machine (imports numba).

    Reads numba's cache index (not a public interface): when that fails, say no,
    so the worst case is one needless line and a warm-up that loads instead of compiling."""
    from . import _kernels as K  # numba loads here, not when the solver is imported

    try:
        for name in names:
            index = getattr(K, name)._cache._cache_file._load_index()
            tables = {str(key[0][0]) for key in index}
            if not set(SIGNATURES[name]) <= tables:
                return False
        return True
    except Exception:  # noqa: BLE001 - any change of numba's internals: assume cold
        return False


def kernels() -> ModuleType:
    """The compiled kernels module. On a command's first need (after `announce_compiling`), when any
    kernel is missing from the disk cache: the announcement, then every kernel compiled together
    (`warm.compile_kernels`, a progress bar on a terminal), not one now and the others on later runs."""
    global _notice
    if _notice is not None:
        notice, _notice = _notice, None
        if not kernels_compiled():
            notice()  # the command line's: its notice, then every kernel compiled together (`first_run`)
    from . import _kernels as K

    return K

