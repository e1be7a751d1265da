"""The command line's first run: before the compiled kernels are first needed while numba's disk cache
lacks them, one notice on stderr, then every kernel compiled together with a progress bar (`warm`).
Light to import (the commands import it at start-up); `compiled` only calls back, so that it never
imports `warm`, which imports the modules whose kernels it compiles."""

from __future__ import annotations

import sys

from .compiled import NOTICE, announce_compiling

__all__ = ["say_when_compiling"]


def _first_need() -> None:
    print(NOTICE, file=sys.stderr, flush=True)
    from .warm import compile_kernels_with_bar

    compile_kernels_with_bar()


def say_when_compiling() -> None:
    """The command line's announcement and compile, once, right before the kernels are first needed."""
    announce_compiling(_first_need)
