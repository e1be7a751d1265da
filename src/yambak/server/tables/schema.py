"""The closed wire protocol: every client message is one of a sealed family.

Order of checks for each WebSocket message (see STYLE.md): size and rate limit
before parsing; then JSON; then the message type (unknown types close the
socket); then its fields (malformed → coded error); then the table logic
(seat token → game not over → your turn → action legal → version current).
The client never sends dice values: a roll only says which dice it holds.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ...engine import Action, Announce, Hold, Release, Roll, Score, Undo, Withdraw
from ...engine.fairness import NONCE_PATTERN

Seat = Annotated[int, Field(ge=0, le=63)]
Version = Annotated[int, Field(ge=0)]
Positions = Annotated[list[Annotated[int, Field(ge=0, le=5)]], Field(max_length=6)]
BoxId = Annotated[str, Field(min_length=1, max_length=64)]
Token = Annotated[str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Hello(_Msg):
    """Join the table's stream: `since` = the last version seen (a reconnect), tokens for non-cookie clients."""

    type: Literal["hello"]
    since: Version | None = None
    tokens: Annotated[list[Token], Field(max_length=16)] = []


class Ping(_Msg):
    type: Literal["ping"]


class RollMsg(_Msg):
    type: Literal["roll"]
    seat: Seat
    v: Version
    held: Positions | None = None


class HoldMsg(_Msg):
    type: Literal["hold"]
    seat: Seat
    v: Version
    dice: Positions


class ReleaseMsg(_Msg):
    type: Literal["release"]
    seat: Seat
    v: Version
    dice: Positions


class AnnounceMsg(_Msg):
    type: Literal["announce"]
    seat: Seat
    v: Version
    box: BoxId


class WithdrawMsg(_Msg):
    type: Literal["withdraw"]
    seat: Seat
    v: Version


class ScoreMsg(_Msg):
    type: Literal["score"]
    seat: Seat
    v: Version
    box: BoxId
    strike: bool = False


class UndoMsg(_Msg):
    """Take back one's last entry before the next roll (tables that allow it)."""

    type: Literal["undo"]
    seat: Seat
    v: Version


class AdviseMsg(_Msg):
    """Ask the coach about the seat's position (tables that allow hints); answered with `advice`."""

    type: Literal["advise"]
    seat: Seat
    v: Version


class NonceMsg(_Msg):
    """Fair dice: a seated player's contribution, mixed into every roll (before the game's first roll)."""

    type: Literal["nonce"]
    seat: Seat
    v: Version
    nonce: Annotated[str, Field(pattern=NONCE_PATTERN)]


ActionMsg = RollMsg | HoldMsg | ReleaseMsg | AnnounceMsg | WithdrawMsg | ScoreMsg | UndoMsg
ClientMessage = Annotated[
    Hello
    | Ping
    | AdviseMsg
    | RollMsg
    | HoldMsg
    | ReleaseMsg
    | AnnounceMsg
    | WithdrawMsg
    | ScoreMsg
    | UndoMsg
    | NonceMsg,
    Field(discriminator="type"),
]
client_message: TypeAdapter[Any] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = frozenset(
    {"hello", "ping", "advise", "roll", "hold", "release", "announce", "withdraw", "score", "undo", "nonce"}
)


def to_action(msg: ActionMsg) -> Action:
    """The engine action a validated message asks for (never with dice values)."""
    if isinstance(msg, RollMsg):
        return Roll(msg.seat, held=tuple(msg.held) if msg.held is not None else None)
    if isinstance(msg, HoldMsg):
        return Hold(msg.seat, tuple(msg.dice))
    if isinstance(msg, ReleaseMsg):
        return Release(msg.seat, tuple(msg.dice))
    if isinstance(msg, AnnounceMsg):
        return Announce(msg.seat, msg.box)
    if isinstance(msg, WithdrawMsg):
        return Withdraw(msg.seat)
    if isinstance(msg, UndoMsg):
        return Undo(msg.seat)
    return Score(msg.seat, msg.box, strike=msg.strike)


# --- server -> client -------------------------------------------------------------------------


def welcome(version: int, seats: list[int]) -> dict[str, Any]:
    return {"type": "welcome", "v": version, "seats": seats}


def event(version: int, event_: dict[str, Any], view: dict[str, Any]) -> dict[str, Any]:
    return {"type": "event", "v": version, "event": event_, "view": view}


def events(version: int, missed: list[dict[str, Any]], view: dict[str, Any]) -> dict[str, Any]:
    return {"type": "events", "v": version, "events": missed, "view": view}


def state(version: int, view: dict[str, Any]) -> dict[str, Any]:
    return {"type": "state", "v": version, "view": view}
