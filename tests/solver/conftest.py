"""Shared solver fixtures: tables are computed once per session into a private cache dir."""

from __future__ import annotations

from pathlib import Path

import pytest

from yambak.solver import Strategy, solve


@pytest.fixture(scope="session")
def cache_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("yambak-cache")


@pytest.fixture(autouse=True)
def _private_cache(cache_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Never read or write the user's real cache from tests."""
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(cache_folder))


@pytest.fixture(scope="session")
def yams(cache_folder: Path) -> Strategy:
    return solve("yams", folder=cache_folder)


@pytest.fixture(scope="session")
def yatzy(cache_folder: Path) -> Strategy:
    return solve("yatzy", folder=cache_folder)


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
