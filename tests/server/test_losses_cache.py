"""The decision-losses cache: one ruleset's aggregate being computed never holds up another's."""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime
from typing import Any

from yambak.server.routes.losses import LossesCache


class _SlowStore:
    """A store whose aggregate of ruleset "a" takes until released (the real one reads every decision)."""

    def __init__(self) -> None:
        self.release = threading.Event()

    async def read(self, fn: Any, *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    def open_deals(self, _now: datetime) -> tuple[str, ...]:
        return ()

    def decision_losses(self, key: str, _now: datetime, _min_games: int, unit: str) -> str:
        assert unit == "score"
        if key == "a":
            assert self.release.wait(10)
        return f"losses of {key}"


def test_one_rulesets_aggregate_does_not_wait_for_anothers() -> None:
    store, cache, now = _SlowStore(), LossesCache(), datetime(2026, 12, 7)

    async def main() -> None:
        slow = asyncio.create_task(cache.get(store, "a", now, "score"))  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
        try:
            assert await asyncio.wait_for(cache.get(store, "b", now, "score"), 2) == "losses of b"  # type: ignore[arg-type]
        finally:
            store.release.set()
        assert await slow == "losses of a"

    asyncio.run(main())
