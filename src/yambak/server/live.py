"""What live tables and kept score sheets share: refusals, connections, and one socket loop.

Every WebSocket of the server (a table's, a score sheet's) runs `serve_socket`:
the size and rate limits before parsing, then JSON, then the message type (an
unknown type closes the socket with 4400), then the fields through a sealed,
strict pydantic family (a malformed message gets a coded refusal, nothing more),
then the feature's own handler. A refusal is a `RequestError`, sent as
`{"type": "error", "code", "message"}` in the viewer's language; no traceback
ever reaches a client.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from ..engine import IllegalAction
from ..inputs import InputError, parse_json
from ..web.i18n import localize_error
from .limits import Bucket
from .settings import Settings

__all__ = [
    "CLOSE_CROWDED",
    "CLOSE_ORIGIN",
    "CLOSE_PROTOCOL",
    "CLOSE_RATE",
    "CLOSE_TOO_LARGE",
    "CLOSE_UNKNOWN",
    "Connection",
    "RequestError",
    "dumps",
    "error",
    "same_origin",
    "serve_socket",
]

log = logging.getLogger("yambak.server")

CLOSE_UNKNOWN = 4404  # no such table or sheet
CLOSE_PROTOCOL = 4400  # a message of an unknown type
CLOSE_RATE = 4429
CLOSE_TOO_LARGE = 1009
CLOSE_ORIGIN = 4403
CLOSE_CROWDED = 4409  # too many sockets from this address, or on this table (limits.SocketCaps)


class RequestError(Exception):
    """A refused request, with a stable code; `extra` fields travel with it to the client."""

    def __init__(self, code: str, message: str, status: int = 400, **extra: object) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status
        self.extra = {k: v for k, v in extra.items() if v is not None}

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, **self.extra}


def database_unavailable(exc: BaseException) -> bool:
    """Is this failure the database out of reach (restarting, failing over, its connections cut), not a bug?"""
    seen: BaseException | None = exc
    for _ in range(8):  # the exception, then what caused it
        if seen is None:
            return False
        if isinstance(seen, OperationalError | InterfaceError | DisconnectionError | PoolTimeout | ConnectionError):
            return True
        if isinstance(seen, DBAPIError) and seen.connection_invalidated:
            return True
        if type(seen).__module__.startswith("psycopg") and type(seen).__name__ == "OperationalError":
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def failure(exc: BaseException, what: str) -> RequestError:
    """What a client is told of an unexpected failure: busy (503, try again) while the database is out of
    reach, which a restart of it is; otherwise an error of the server's (500), logged by the caller."""
    if database_unavailable(exc):
        return RequestError("server/busy", "the database is restarting: try again in a moment", 503)
    return RequestError("server/error", what, 500)


# orjson would write datetimes and dataclasses: a message holding one is a mistake the fallback refuses
_ORJSON = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def dumps(message: Mapping[str, object]) -> str:
    """A socket message as JSON text: orjson, a few times faster than the standard library's encoder on the
    views every event sends (dict keys may be seat numbers). What it cannot write (an integer beyond 64 bits
    or a lone surrogate echoed from a client) the standard library writes, in ASCII."""
    try:
        return orjson.dumps(message, option=_ORJSON).decode()
    except orjson.JSONEncodeError:  # and a type no message should hold: TypeError, as ever
        return json.dumps(message, separators=(",", ":"))


def error(code: str, message: str, ref: str | int | None = None, **extra: object) -> dict[str, object]:
    out: dict[str, object] = {"type": "error", "code": code, "message": message, **extra}
    if ref is not None:
        out["ref"] = ref
    return out


@dataclass(eq=False)
class Connection:
    """One WebSocket client: the seats its tokens own, its language, and a send queue."""

    seats: set[int] = field(default_factory=set)
    keys: set[str] = field(default_factory=set)  # the hashes of the seat tokens it said (a seat's may go)
    lang: str = "en"
    queue: asyncio.Queue[Mapping[str, object] | str] = field(default_factory=lambda: asyncio.Queue(maxsize=1000))
    joined: bool = False

    def send(self, message: Mapping[str, object] | str) -> None:
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:  # a client that does not read: drop it, it will resync
            log.warning("dropping a slow client")
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait({"type": "close"})

    def refuse(self, exc: RequestError | IllegalAction, ref: str | int | None = None) -> None:
        extra = exc.extra if isinstance(exc, RequestError) else {}
        self.send(localize_error(error(exc.code, exc.message, ref, **extra), self.lang))


def same_origin(ws: WebSocket) -> bool:
    """Browsers send Origin: a page of another site must not play with this browser's seat cookie."""
    origin = ws.headers.get("origin")
    if origin is None:  # not a browser (bots, tests): tokens are sent explicitly
        return True
    return origin.split("://", 1)[-1].rstrip("/") == ws.headers.get("host", "")


async def _writer(ws: WebSocket, conn: Connection) -> None:
    while True:
        message = await conn.queue.get()
        if isinstance(message, str):  # already encoded (a broadcast)
            await ws.send_text(message)
            continue
        if message.get("type") == "close":
            await ws.close(code=1013)
            return
        await ws.send_text(dumps(message))


async def _close(ws: WebSocket, writer: asyncio.Task[None], conn: Connection, code: int) -> None:
    for _ in range(50):  # let the writer flush the refusal first
        if conn.queue.empty():
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.01)
    writer.cancel()
    try:
        await ws.close(code=code)
    except RuntimeError:
        pass


Handler = Callable[[Any, Any], Awaitable[None]]


def _valid_ref(ref: object) -> int | str | None:
    return ref if isinstance(ref, (int, str)) and not isinstance(ref, bool) and len(str(ref)) <= 40 else None


def _ref_of(text: str) -> int | str | None:
    """The ref of a message refused before it was read (it is bounded in size already), if it has one."""
    try:
        data = parse_json(text)
    except InputError:
        return None
    return _valid_ref(data.get("ref")) if isinstance(data, dict) else None


async def serve_socket(
    ws: WebSocket,
    conn: Connection,
    settings: Settings,
    types: frozenset[str],
    parse: Callable[[dict[str, Any]], Any],
    handle: Handler,
) -> None:
    """Run an accepted socket until it closes: limits, JSON, type, strict schema, then `handle(msg, ref)`.

    `parse` validates a message dict of a known type (raising pydantic's ValidationError);
    `handle` may raise RequestError or IllegalAction, which become coded refusals.
    """
    writer = asyncio.create_task(_writer(ws, conn))
    bucket = Bucket(settings.rate_per_second, settings.rate_burst)
    strikes = 0
    try:
        while True:
            raw = await ws.receive()
            if raw["type"] == "websocket.disconnect":
                break
            text = raw.get("text")
            if text is None:
                text = (raw.get("bytes") or b"").decode("utf-8", "replace")
            if len(text.encode()) > settings.max_message_bytes:
                limit = settings.max_message_bytes
                conn.refuse(RequestError("protocol/too-large", f"messages are at most {limit} bytes"))
                await _close(ws, writer, conn, CLOSE_TOO_LARGE)
                return
            if not bucket.take():
                strikes += 1
                # the refusal names the message's ref, so a client waiting on it can slow down and resend
                conn.refuse(RequestError("rate/limited", "too many messages: slow down"), _ref_of(text))
                if strikes >= settings.rate_strikes:
                    await _close(ws, writer, conn, CLOSE_RATE)
                    return
                continue
            try:
                data = parse_json(text)
            except InputError as exc:
                conn.refuse(RequestError("protocol/bad-json", f"a message is one JSON object ({exc})"))
                continue
            kind = data.get("type") if isinstance(data, dict) else None
            if not isinstance(kind, str) or kind not in types:
                shown = kind[:40] if isinstance(kind, str) else type(kind).__name__
                conn.refuse(RequestError("protocol/unknown-type", f"unknown message type {shown!r}"))
                await _close(ws, writer, conn, CLOSE_PROTOCOL)
                return
            ref = _valid_ref(data.pop("ref", None))
            try:
                msg = parse(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(x) for x in first["loc"][1:]) or kind
                conn.refuse(RequestError("protocol/malformed", f"{where}: {first['msg']}"), ref)
                continue
            try:
                await handle(msg, ref)
            except (IllegalAction, RequestError) as exc:
                conn.refuse(exc, ref)
            except Exception as exc:  # the store is down, or a bug: never a traceback to the client
                refusal = failure(exc, "the action failed on the server")
                if refusal.status == 503:
                    log.warning("a socket message waits for the database: %s", str(exc).splitlines()[0][:200])
                else:
                    log.exception("a socket message failed")
                conn.refuse(refusal, ref)
    except WebSocketDisconnect:
        pass
    finally:
        writer.cancel()
