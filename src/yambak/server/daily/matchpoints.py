"""Matchpoints, as in duplicate bridge: on one deal each player scores 2 for every other player they
beat and 1 for every tie; the most anyone can score is 2 for every other player.

    >>> matchpoints({"ann": 250, "bob": 230, "cy": 230})
    {'ann': 4, 'bob': 1, 'cy': 1}
    >>> percent(4, 4), percent(0, 0)
    (100.0, None)
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from typing import Any, TypeVar

__all__ = ["matchpoints", "percent", "ranks", "top"]

K = TypeVar("K")


def matchpoints(scores: Mapping[K, Any]) -> dict[K, int]:
    """Each key's matchpoints by its score, or by any values that compare (a rank key: docs/rulesets.md)."""
    values = sorted(scores.values())
    out = {}
    for key, score in scores.items():
        below, upto = bisect_left(values, score), bisect_right(values, score)
        out[key] = 2 * below + (upto - below - 1)
    return out


def top(players: int) -> int:
    """The most matchpoints one deal gives a player among `players`."""
    return 2 * max(0, players - 1)


def percent(points: int, maximum: int) -> float | None:
    """Matchpoints as a percentage of the maximum (None where nobody was there to beat)."""
    return round(100.0 * points / maximum, 1) if maximum else None


def ranks(values: list[Any]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) of values sorted best first."""
    out: list[int] = []
    for i, v in enumerate(values):
        out.append(out[-1] if i and v == values[i - 1] else i + 1)
    return out
