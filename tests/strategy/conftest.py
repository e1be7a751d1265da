"""Strategy tests solve their tables into a private cache dir, once per session (tests/solve_fixtures.py)."""

from tests.solve_fixtures import _private_cache, cache_folder, yams, yatzy

__all__ = ["_private_cache", "cache_folder", "yams", "yatzy"]
