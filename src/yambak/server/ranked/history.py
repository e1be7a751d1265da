"""A profile's rating history in the ranked games of one preset: its rating (OpenSkill's ordinal) after
each rated game, read from the stored rating changes (the statistics page plots it from the start rating)."""

from __future__ import annotations

from typing import Any

from ...store import Store
from .manager import MODEL, ordinal

__all__ = ["rating_history", "start_rating"]


def rating_history(store: Store, profile_id: str, preset: str) -> list[dict[str, Any]]:
    """After each rated game, oldest first: its number, when, the rating (one decimal) and the table."""
    return [
        {"game": i, "at": at.isoformat() + "Z", "rating": round(ordinal(mu, sigma), 1), "table": table_id}
        for i, (at, mu, sigma, table_id) in enumerate(store.rating_history(profile_id, preset), start=1)
    ]


def start_rating() -> float:
    """Every profile's ordinal before its first rated game (OpenSkill's start: 0)."""
    return round(ordinal(MODEL.mu, MODEL.sigma), 1)
