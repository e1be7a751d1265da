"""Fixtures of the tests that solve tables (tests/solver, tests/strategy): a private cache folder, set as
the cache for each of their tests, and the presets' tables solved into it once per session. Each of those
folders' conftest imports them (so they are theirs only: no other test's cache folder changes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yambak.solver import Strategy, solve

__all__ = ["_private_cache", "cache_folder", "yams", "yatzy"]


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
