"""What a new table's maker asks of its settings: the API's form, a rematch, a deal or a ranked game
(`tables.settings.choose` decides; the daily and ranked features ask through their `Tables` protocols)."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["Asked"]


class Asked(TypedDict, total=False):
    """Each setting left out, or None, takes the default for the table's seats."""

    hints: bool | None
    clock: int | None  # seconds per turn; 0: no clock
    undo: bool | None
    ranked: str | None  # a ranked game's preset: no hints, no undo, a live clock
