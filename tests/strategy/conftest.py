"""Strategy tests solve their tables into a private cache dir, once per session."""

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
