"""A deal's dice: the fair dice of `engine/fairness.py`, with a seed fixed for every entrant and kept
sealed until the deal closes (the end of the day, or of a tournament round), not merely until one
entrant's game ends: everyone plays the same dice, so nobody may learn them from another's record.

No nonces: each entrant's mixing in randomness of their own would give them other dice than the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...engine import FairDice
from .clock import naive_utc as naive

__all__ = ["DealDice", "naive", "seal", "secret"]


@dataclass(frozen=True, slots=True)
class DealDice(FairDice):
    deal: str = ""
    closes_at: datetime | None = None  # naive UTC; None while its tournament is paused (sealed)
    clock: Callable[[], datetime] | None = None
    cancelled: bool = False  # its round was cancelled by the tournament's organiser

    def now(self) -> datetime:
        """The server's clock (naive UTC), as the deal goes by it."""
        return naive(self.clock()) if self.clock is not None else datetime.max

    def closed(self) -> bool:
        return self.clock is not None and self.closes_at is not None and self.now() >= self.closes_at

    def block(self, revealed: bool) -> dict[str, Any]:
        """The record's `fairness` block: the seed once the game is over and the deal closed."""
        return FairDice.block(self, revealed and self.closed())


def secret(fair: DealDice) -> dict[str, Any]:
    """What a deal's table stores of its dice (the seed, which deal, when it closes): sent to no one."""
    closes = fair.closes_at.isoformat() if fair.closes_at else None
    return {**FairDice.block(fair, False), "seed": fair.seed, "deal": fair.deal, "closes_at": closes}


def seal(fair: FairDice | None, stored: Any, clock: Callable[[], datetime]) -> FairDice | None:
    """A table's dice as loaded from the store: a deal's stay sealed until their deal closes (no close:
    the tournament is paused, they stay sealed)."""
    if fair is None or not isinstance(stored, dict) or not stored.get("deal"):
        return fair
    closes = stored.get("closes_at")
    return DealDice(
        fair.seed,
        (),
        True,
        str(stored["deal"]),
        naive(datetime.fromisoformat(closes)) if closes else None,
        clock,
        stored.get("cancelled") is True,
    )
