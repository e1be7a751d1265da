"""Shared solver fixtures: tables are computed once per session into a private cache dir (the folder and the
first presets' tables: tests/solve_fixtures.py, shared with tests/strategy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.solve_fixtures import _private_cache, cache_folder, yams, yatzy
from yambak.solver import Strategy, solve

__all__ = ["_private_cache", "cache_folder", "yams", "yatzy"]


@pytest.fixture(scope="session")
def yams_fr(cache_folder: Path) -> Strategy:
    return solve("yams-fr", {"columns": 1, "max_min": False}, folder=cache_folder)


@pytest.fixture(scope="session")
def yams_fr_max_min(cache_folder: Path) -> Strategy:
    """One column with max and min and the max_gt_min relation (the state remembers a lone pair box)."""
    return solve("yams-fr", {"columns": 1}, folder=cache_folder)


@pytest.fixture(scope="session")
def yams_fr_max_min_free(cache_folder: Path) -> Strategy:
    """One column with max and min, relation off: two more sum rows."""
    return solve("yams-fr", {"columns": 1, "max_gt_min": False}, folder=cache_folder)
