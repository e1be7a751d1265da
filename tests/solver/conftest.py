"""Shared solver fixtures: tables are computed once per run and loaded once per session into a private cache
dir (the folder and the first presets' tables: tests/solve_fixtures.py, shared with tests/strategy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.solve_fixtures import _private_cache, cache_folder, solved, yams, yatzy
from yambak.solver import Strategy

__all__ = ["_private_cache", "cache_folder", "yams", "yatzy"]


@pytest.fixture(scope="session")
def yams_fr(tmp_path_factory: pytest.TempPathFactory, cache_folder: Path) -> Strategy:
    return solved(tmp_path_factory, cache_folder, "yams-fr", {"columns": 1, "max_min": False})


@pytest.fixture(scope="session")
def yams_fr_max_min(tmp_path_factory: pytest.TempPathFactory, cache_folder: Path) -> Strategy:
    """One column with max and min and the max_gt_min relation (the state remembers a lone pair box)."""
    return solved(tmp_path_factory, cache_folder, "yams-fr", {"columns": 1})


@pytest.fixture(scope="session")
def yams_fr_max_min_free(tmp_path_factory: pytest.TempPathFactory, cache_folder: Path) -> Strategy:
    """One column with max and min, relation off: two more sum rows."""
    return solved(tmp_path_factory, cache_folder, "yams-fr", {"columns": 1, "max_gt_min": False})
