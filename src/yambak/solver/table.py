"""Strategy tables: solve once, keep on disk, load in milliseconds.

A table is the value of every turn-start state (see `_layout`); everything
inside a turn is recomputed from it on demand in well under a millisecond, so
the file stays small (8 MiB for yams, 16 MiB for yatzy) and one format serves
the advisor, the optimal bot and the simulator.

Files live in `$YAMBAK_CACHE_DIR`, else `$XDG_CACHE_HOME/yambak`, else
`~/.cache/yambak`, named by ruleset id, a hash of everything the values depend
on (rows, bonus, joker, options) and `TABLE_VERSION`; bump the version whenever
the induction's results could change. Files are written readable by the group
and others (`TABLE_MODE`, whatever the umask), so a server and a shell user can
share one cache; tables hold nothing private.

Beside each float64 table the cache keeps its float32 copy (`.f32.npy`, half the size), which the bots,
the coach, the server and simulation read (`solve(..., lean=True)`): it is memory-mapped, read-only, so
every server process shares one copy of the pages through the page cache. A float64 table loaded from the
cache is mapped too (copy-on-write, from inside its .npz), so `yambak hint` and `yambak solve` read only
the pages they touch and print exact values. Rounding to float32 moves a value by at most 2^-16 of it (a few 1e-5 points
on these scores), so a choice read from it is worth at most twice that less than the best: well within the
1e-4 that tests/solver/test_lean.py counts. The float64 table stays for `yambak solve` and the exactness
tests; `expected_score` of a lean strategy is the float64 value, kept in the table's file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import struct
import tempfile
import time
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ..rules import Ruleset, load_ruleset
from ._induction import solve_table
from ._layout import SolverRules, solver_rules
from .objective import MeanScore, Objective

__all__ = ["Strategy", "solve", "solve_estimate", "cache_dir", "table_states", "TABLE_VERSION"]

TABLE_VERSION = 1
TABLE_MODE = 0o644


@dataclass(frozen=True, eq=False)
class Strategy:
    """A solved ruleset: the value of every turn-start state under one objective."""

    rules: SolverRules
    objective: Objective
    table: np.ndarray  # (n_states, width) float64
    states: int  # reachable turn-start states
    seconds: float  # time taken to compute (or load) the table
    loaded: bool  # True when read from the cache
    start: float | None = None  # the float64 value of the first state, when `table` is the float32 copy

    @property
    def ruleset(self) -> Ruleset:
        return self.rules.ruleset

    @property
    def lean(self) -> bool:
        """Whether `table` is the float32 copy (advice and play), not the float64 solve."""
        return bool(self.table.dtype == np.float32)

    @property
    def expected_score(self) -> float:
        """Expected final score of a new game under optimal play (MeanScore tables), in float64."""
        return self.start if self.start is not None else float(self.table[self.rules.flat(0, 0, 0), 0])


def table_states(ruleset: Ruleset) -> int:
    """Entries of the ruleset's table (its size, before solving), or `UnsupportedRuleset` saying why
    the exact solver cannot handle it."""
    return solver_rules(ruleset).n_states


# Seconds of solving per table entry when no table solved on this machine says better: bench/solver.py's
# figures in docs/bots.md (yams 0.76 s for 2^20 entries, yatzy 1.92 s for 2^21, yams-fr max>min 17.5 s for
# 20M), rounded up, since a first solve also pays for its page faults.
_SECONDS_PER_ENTRY = 1.0e-6


def solve_estimate(ruleset: Ruleset, folder: Path | None = None) -> tuple[int, float] | None:
    """None when the ruleset's mean table is in the cache; else (its turn-start entries, the seconds its
    solve will take): at the pace of the tables solved on this machine (each file keeps its own time),
    the slowest of the last few, else `_SECONDS_PER_ENTRY`. `UnsupportedRuleset` as `table_states`."""
    sr = solver_rules(ruleset)
    folder = folder or cache_dir()
    if _cache_path(ruleset, MeanScore(), folder).exists():
        return None
    paces = []
    try:
        newest = sorted(folder.glob("*-mean-*.npz"), key=lambda p: p.stat().st_mtime)[-5:]
    except OSError:
        newest = []
    for path in newest:
        try:
            with np.load(path) as data:
                if "seconds" in data.files:
                    paces.append(float(data["seconds"]) / int(data["entries"]))
        except (OSError, ValueError, KeyError):
            continue
    return sr.n_states, sr.n_states * max(paces, default=_SECONDS_PER_ENTRY)


def cache_dir() -> Path:
    """Where tables are kept (see the module docstring)."""
    if os.environ.get("YAMBAK_CACHE_DIR"):
        return Path(os.environ["YAMBAK_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "yambak"


def _fingerprint(ruleset: Ruleset, objective: Objective) -> str:
    """The table's key: the ruleset's variant key (a custom ruleset's holds a digest of its description, so
    an edited file never reuses a stale table; duplicate dice change nothing here), the objective and the
    table's version."""
    parts = (TABLE_VERSION, ruleset.variant_key(duplicate=False), objective.key)
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]


def _cache_path(ruleset: Ruleset, objective: Objective, folder: Path) -> Path:
    """The table's file: a custom ruleset's id may hold any characters, so only a safe, short form of it
    names the file (the fingerprint tells rulesets apart)."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", ruleset.id)[:40]
    return folder / f"{name}-{objective.key}-v{TABLE_VERSION}-{_fingerprint(ruleset, objective)}.npz"


def _lean_path(path: Path) -> Path:
    """The float32 copy of the table in `path`."""
    return path.with_name(path.stem + ".f32.npy")


def solve(
    rules: str | Ruleset,
    options: Mapping[str, object] | None = None,
    *,
    objective: Objective | None = None,
    cache: bool = True,
    recompute: bool = False,
    folder: Path | None = None,
    threads: int | None = None,
    lean: bool = False,
) -> Strategy:
    """The strategy table for a ruleset (a preset id plus options, or a `Ruleset`).

    Loads it from the cache when present (unless `recompute`), else computes and
    stores it (unless `cache` is False). `lean`: the float32 copy instead, mapped
    from the cache read-only (made from the float64 table the first time). Raises
    `RulesetError` for a bad preset or option and its subclass `UnsupportedRuleset`
    for a ruleset the exact solver cannot handle.
    """
    ruleset = load_ruleset(rules, options) if isinstance(rules, str) else rules
    sr = solver_rules(ruleset)
    objective = objective or MeanScore()
    path = _cache_path(ruleset, objective, folder or cache_dir())
    shape = (sr.n_states, objective.width)
    if lean and cache and not recompute and path.exists():
        start = time.perf_counter()
        mapped = _load_lean(path, shape)
        if mapped is not None:
            table, states, first = mapped
            return Strategy(sr, objective, table, states, time.perf_counter() - start, loaded=True, start=first)
    strategy = None
    if cache and not recompute and path.exists():
        start = time.perf_counter()
        try:
            with np.load(path) as data:
                states = int(data["states"])
                member = _mapped_member(path, "table")
                table = data["table"] if member is None else member
            if table.shape == shape:
                strategy = Strategy(sr, objective, table, states, time.perf_counter() - start, loaded=True)
        except (OSError, ValueError, KeyError):
            pass  # a damaged or foreign file: recompute and overwrite it
    if strategy is None:
        start = time.perf_counter()
        table, states = solve_table(sr, objective, threads=threads)
        strategy = Strategy(sr, objective, table, states, time.perf_counter() - start, loaded=False)
        if cache:
            _store(path, strategy)
    if not lean:
        return strategy
    if cache:
        _store_lean(path, strategy)
        mapped = _load_lean(path, shape)
        if mapped is not None:  # the mapped copy, even right after solving: its pages are shared
            return dataclasses.replace(strategy, table=mapped[0], start=mapped[2])
    table32 = strategy.table.astype(np.float32)
    table32.setflags(write=False)
    return dataclasses.replace(strategy, table=table32, start=strategy.expected_score)


def _mapped_member(path: Path, name: str) -> np.ndarray | None:
    """The array `name` of the uncompressed .npz at `path`, memory-mapped copy-on-write (its pages are read
    as they are used, and shared with every process reading them; writeable, so the kernels see the array
    type they were compiled for), or None where the file is not laid out as `np.savez` writes."""
    try:
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo(name + ".npy")
        if info.compress_type != zipfile.ZIP_STORED:
            return None
        with open(path, "rb") as fh:
            fh.seek(info.header_offset)
            local = fh.read(30)  # the member's local header: its name and extra field lengths at 26
            if local[:4] != b"PK\x03\x04":
                return None
            fh.seek(info.header_offset + 30 + sum(struct.unpack("<HH", local[26:30])))
            version = np.lib.format.read_magic(fh)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
            offset = fh.tell()
        if fortran or dtype.hasobject:
            return None
        return np.asarray(np.memmap(path, dtype=dtype, mode="c", offset=offset, shape=shape))
    except (OSError, ValueError, KeyError, struct.error, zipfile.BadZipFile):
        return None


def _load_lean(path: Path, shape: tuple[int, int]) -> tuple[np.ndarray, int, float] | None:
    """(the float32 copy beside `path`, mapped read-only; reachable states; the float64 start value), or
    None when the copy is missing, damaged or of another shape, or the table's file says too little (an
    older file without the start value: the caller makes the copy again, which rewrites it)."""
    try:
        with np.load(path) as data:  # the small members only: the float64 table is not read
            if "start" not in data.files:
                return None
            states, first = int(data["states"]), float(data["start"])
        mapped = np.load(_lean_path(path), mmap_mode="r")
    except (OSError, ValueError, KeyError):
        return None
    if mapped.shape != shape or mapped.dtype != np.float32:
        return None
    return np.asarray(mapped), states, first  # a plain read-only array over the mapping, as numba types it


def _store_lean(path: Path, strategy: Strategy) -> None:
    """Write the float32 copy beside `path` (atomically; a read-only cache is no error), after rewriting
    `path` when an older file lacks the float64 start value."""
    try:
        with np.load(path) as data:
            has_start = "start" in data.files
    except (OSError, ValueError):
        return  # nothing cached to copy (a read-only cache that refused the table)
    if not has_start:
        _store(path, strategy)
    table = strategy.table
    try:
        _write(_lean_path(path), lambda fh: np.save(fh, table.astype(np.float32)))
    except OSError:
        pass


def _write(path: Path, dump: Callable[[BinaryIO], None]) -> None:
    """Write a file atomically (a concurrent reader never sees half of it), readable by all (`TABLE_MODE`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            dump(fh)
        os.chmod(tmp, TABLE_MODE)  # mkstemp makes 0600 files
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
        raise


def _store(path: Path, strategy: Strategy) -> None:
    """Write the float64 table (with its start value, which a lean load reads alone); a read-only cache
    is no error."""
    ruleset, objective = strategy.ruleset, strategy.objective
    meta = json.dumps(
        {"ruleset": ruleset.id, "options": ruleset.options_dict, "objective": objective.key, "version": TABLE_VERSION},
        default=str,
    )
    table, states = strategy.table, np.int64(strategy.states)
    start = np.float64(table[strategy.rules.flat(0, 0, 0), 0])
    # the solve's pace, for `solve_estimate` (a table read from an older file keeps none)
    pace: dict[str, Any] = {} if strategy.loaded else {"seconds": strategy.seconds, "entries": len(table)}
    try:
        _write(path, lambda fh: np.savez(fh, table=table, states=states, meta=np.array(meta), start=start, **pace))
    except OSError:
        pass
