"""Bot tests never touch the user's solver cache: tables (yams, yatzy) are solved once per session."""

from __future__ import annotations

import os
import tempfile

import pytest


@pytest.fixture(scope="session", autouse=True)
def _bot_cache() -> None:
    if "YAMBAK_CACHE_DIR" not in os.environ:
        os.environ["YAMBAK_CACHE_DIR"] = tempfile.mkdtemp(prefix="yambak-bots-cache-")
