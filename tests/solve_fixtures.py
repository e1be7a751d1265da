"""Fixtures of the tests that solve tables (tests/solver, tests/strategy): a private cache folder, set as
the cache for each of their tests, and the presets' tables solved into it once per session. Each of those
folders' conftest imports them (so they are theirs only: no other test's cache folder changes).

A table is solved once per run, not once per worker: the first session to need it solves it into the run's
folder under a lock (pytest-xdist's workers share their base temp's parent), the others wait and copy the
file into their own cache folder, from which every session's fixture loads it."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from yambak.rules import load_ruleset
from yambak.solver import Strategy, solve
from yambak.solver import table as table_module
from yambak.solver.objective import MeanScore

__all__ = ["_private_cache", "cache_folder", "solved", "yams", "yatzy"]


@pytest.fixture(scope="session")
def cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("yambak-cache")


@pytest.fixture(autouse=True)
def _private_cache(cache_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read or write the user's real cache from tests."""
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(cache_folder))


def solved(
    tmp_path_factory: pytest.TempPathFactory, cache_folder: Path, preset: str, options: Mapping[str, Any] | None = None
) -> Strategy:
    """The preset's table from `cache_folder`, solved at most once in the whole run (see the module's note)."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "yambak-solved"
    shared.mkdir(exist_ok=True)
    ruleset = load_ruleset(preset, options)
    path = table_module._cache_path(ruleset, MeanScore(), shared)
    with open(shared / (path.stem + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a worker solving it holds this until the file is written
        if not path.exists():
            solve(ruleset, folder=shared)
    if not (cache_folder / path.name).exists():
        shutil.copyfile(path, cache_folder / path.name)
    return solve(ruleset, folder=cache_folder)


@pytest.fixture(scope="session")
def yams(tmp_path_factory: pytest.TempPathFactory, cache_folder: Path) -> Strategy:
    return solved(tmp_path_factory, cache_folder, "yams")


@pytest.fixture(scope="session")
def yatzy(tmp_path_factory: pytest.TempPathFactory, cache_folder: Path) -> Strategy:
    return solved(tmp_path_factory, cache_folder, "yatzy")
