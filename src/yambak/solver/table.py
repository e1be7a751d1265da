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
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..rules import Ruleset, load_ruleset
from ._induction import solve_table
from ._layout import SolverRules, solver_rules
from .objective import MeanScore, Objective

__all__ = ["Strategy", "solve", "cache_dir", "table_states", "TABLE_VERSION"]

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

    @property
    def ruleset(self) -> Ruleset:
        return self.rules.ruleset

    @property
    def expected_score(self) -> float:
        """Expected final score of a new game under optimal play (MeanScore tables)."""
        return float(self.table[self.rules.flat(0, 0, 0), 0])


def table_states(ruleset: Ruleset) -> int:
    """Entries of the ruleset's table (its size, before solving), or `UnsupportedRuleset` saying why
    the exact solver cannot handle it."""
    return solver_rules(ruleset).n_states


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


def solve(
    rules: str | Ruleset,
    options: Mapping[str, Any] | None = None,
    *,
    objective: Objective | None = None,
    cache: bool = True,
    recompute: bool = False,
    folder: Path | None = None,
    threads: int | None = None,
) -> Strategy:
    """The strategy table for a ruleset (a preset id plus options, or a `Ruleset`).

    Loads it from the cache when present (unless `recompute`), else computes and
    stores it (unless `cache` is False). Raises `RulesetError` for a bad preset
    or option and its subclass `UnsupportedRuleset` for a ruleset the exact
    solver cannot handle.
    """
    ruleset = load_ruleset(rules, options) if isinstance(rules, str) else rules
    sr = solver_rules(ruleset)
    objective = objective or MeanScore()
    path = _cache_path(ruleset, objective, folder or cache_dir())
    if cache and not recompute and path.exists():
        start = time.perf_counter()
        try:
            with np.load(path) as data:
                table, states = data["table"], int(data["states"])
            if table.shape == (sr.n_states, objective.width):
                return Strategy(sr, objective, table, states, time.perf_counter() - start, loaded=True)
        except (OSError, ValueError, KeyError):
            pass  # a damaged or foreign file: recompute and overwrite it
    start = time.perf_counter()
    table, states = solve_table(sr, objective, threads=threads)
    seconds = time.perf_counter() - start
    if cache:
        _store(path, table, states, ruleset, objective)
    return Strategy(sr, objective, table, states, seconds, loaded=False)


def _store(path: Path, table: np.ndarray, states: int, ruleset: Ruleset, objective: Objective) -> None:
    """Write atomically, so a concurrent reader never sees half a table; a read-only cache is no error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = json.dumps(
            {
                "ruleset": ruleset.id,
                "options": ruleset.options_dict,
                "objective": objective.key,
                "version": TABLE_VERSION,
            },
            default=str,
        )
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, table=table, states=np.int64(states), meta=np.array(meta))
        os.chmod(tmp, TABLE_MODE)  # mkstemp makes 0600 files
        os.replace(tmp, path)
    except OSError:
        pass
