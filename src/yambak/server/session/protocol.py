"""The session protocol every game socket speaks (a table's, a kept sheet's): the client's `hello` and
`ping`, and what the server sends back. A feature adds its own actions to the client's sealed family
(`tables/schema.py`, `keeper/schema.py`).

Order of checks for each message (`live.serve_socket`): size and rate limit before parsing; then
JSON; then the message type (unknown types close the socket); then its fields (malformed: a coded
error); then the feature's logic.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ...viewtypes import EventMessage, EventsMessage, JSONObject, Missed, SessionView, StateMessage, Welcome

__all__ = [
    "PROTOCOL",
    "Hello",
    "Message",
    "Ping",
    "Token",
    "Version",
    "event_message",
    "events_message",
    "state_message",
    "welcome",
]

PROTOCOL = 1  # the protocol's version: `welcome` says it; a client's `hello` may say the one it speaks
Version = Annotated[int, Field(ge=0)]
Token = Annotated[str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


class Message(BaseModel):
    """A client message: strict (no "3" read as 3, no true read as 1), closed, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Hello(Message):
    """Join the session's stream: `since` = the last version seen (a reconnect), tokens for non-cookie clients."""

    type: Literal["hello"]
    since: Version | None = None
    tokens: Annotated[list[Token], Field(max_length=16)] = []
    protocol: Annotated[int, Field(ge=1, le=1000)] | None = None


class Ping(Message):
    type: Literal["ping"]


# --- server -> client -------------------------------------------------------------------------


def welcome(version: int, seats: list[int]) -> Welcome:
    return {"type": "welcome", "v": version, "seats": seats, "protocol": PROTOCOL}


def event_message(version: int, event: JSONObject, view: SessionView, ref: str | int | None = None) -> EventMessage:
    out: EventMessage = {"type": "event", "v": version, "event": event, "view": view}
    if ref is not None:  # the client's id for the action this event is: its answer
        out["ref"] = ref
    return out


def events_message(version: int, missed: list[Missed], view: SessionView | None) -> EventsMessage:
    """What a client missed since the version it said, and the view after it (None: it missed nothing)."""
    out: EventsMessage = {"type": "events", "v": version, "events": missed}
    if view is not None:
        out["view"] = view
    return out


def state_message(version: int, view: SessionView) -> StateMessage:
    return {"type": "state", "v": version, "view": view}
