"""The server's time as the store keeps it: naive UTC."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["naive_utc"]


def naive_utc(moment: datetime) -> datetime:
    """An aware time as naive UTC (the store's times); a naive one is taken to be UTC already."""
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment
