"""An open deal's games belong to their players until the deal closes.

Duplicate dice do not depend on holds, so one finished game of a deal shows everyone the dice still to
come: until the deal closes, a deal's table (an entrant's, a practice one, the par's) is shown to
nobody but its player, the device holding its seat token or another device of the profile sitting
there. Every route that serves a table's game (view, socket, record, frames, review) asks `check`
first; results in histories ask the same of their deal (`ProfileManager.visible`). After the close
everything is public, as any table's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from ..common.dice import DealDice
from ..common.tokens import hash_token
from ..live import RequestError

__all__ = ["SEALED", "acheck", "check", "sealed"]

SEALED = "deal/sealed"


def sealed(table: Any) -> bool:
    """Is this table a game of a deal that has not closed yet?"""
    fair = table.fairness
    return isinstance(fair, DealDice) and not fair.closed()


def _players(table: Any, tokens: Iterable[str]) -> bool:
    return bool(table.seats_for({hash_token(t) for t in tokens}))


def _profile_sits(table: Any, profile_id: str | None) -> bool:
    return profile_id is not None and any(s.profile_id == profile_id for s in table.seats if s.kind == "human")


def _refusal() -> RequestError:
    return RequestError(
        SEALED, "this deal is still open: its games are shown to their players only until it closes", 403
    )


def check(table: Any, tokens: Iterable[str], profile: Callable[[], str | None]) -> None:
    """Refuse (403 `deal/sealed`) an open deal's game to anyone but its player; `profile` gives the
    asking device's profile id, asked only where it matters (a store read)."""
    if sealed(table) and not _players(table, tokens) and not _profile_sits(table, profile()):
        raise _refusal()


async def acheck(table: Any, tokens: Iterable[str], profile: Callable[[], Awaitable[str | None]]) -> None:
    """`check` for the event loop: the profile is read off it."""
    if sealed(table) and not _players(table, tokens) and not _profile_sits(table, await profile()):
        raise _refusal()
