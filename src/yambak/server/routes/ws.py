"""The WebSocket tier: one socket per client and table, the closed protocol of `protocol.py`."""

from __future__ import annotations

import asyncio
import json
import logging

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from ...engine import IllegalAction
from ...store import StoreConflict
from ...web.i18n import localize_error
from .. import protocol
from ..deps import TOKEN_COOKIE, get_lang, parse_tokens
from ..limits import Bucket
from ..tables import Connection, TableError, dumps, hash_token

router = APIRouter()
log = logging.getLogger("yambak.server")

CLOSE_UNKNOWN_TABLE = 4404
CLOSE_PROTOCOL = 4400
CLOSE_RATE = 4429
CLOSE_TOO_LARGE = 1009
CLOSE_ORIGIN = 4403


def _same_origin(ws: WebSocket) -> bool:
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


@router.websocket("/ws/{table_id}")
async def table_socket(ws: WebSocket, table_id: str) -> None:
    manager = ws.app.state.manager
    settings = ws.app.state.settings
    await ws.accept()
    if not _same_origin(ws):
        await ws.send_text(dumps(protocol.error("auth/origin", "this socket belongs to pages of this site")))
        await ws.close(code=CLOSE_ORIGIN)
        return
    try:
        table = manager.get(table_id)
    except TableError as exc:
        await ws.send_text(dumps(protocol.error(exc.code, exc.message)))
        await ws.close(code=CLOSE_UNKNOWN_TABLE)
        return
    lang = get_lang(ws)  # type: ignore[arg-type]
    cookie_tokens = parse_tokens(ws.cookies.get(TOKEN_COOKIE))
    conn = Connection(seats=table.seats_for({hash_token(t) for t in cookie_tokens}))
    table.conns.add(conn)
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
                conn.send(
                    protocol.error("protocol/too-large", f"messages are at most {settings.max_message_bytes} bytes")
                )
                await asyncio.sleep(0)
                await _close(ws, writer, conn, CLOSE_TOO_LARGE)
                return
            if not bucket.take():
                strikes += 1
                conn.send(protocol.error("rate/limited", "too many messages: slow down"))
                if strikes >= settings.rate_strikes:
                    await _close(ws, writer, conn, CLOSE_RATE)
                    return
                continue
            try:
                data = json.loads(text)
            except (json.JSONDecodeError, RecursionError):
                conn.send(protocol.error("protocol/bad-json", "a message is one JSON object"))
                continue
            kind = data.get("type") if isinstance(data, dict) else None
            if kind not in protocol.MESSAGE_TYPES:
                conn.send(protocol.error("protocol/unknown-type", f"unknown message type {str(kind)[:40]!r}"))
                await _close(ws, writer, conn, CLOSE_PROTOCOL)
                return
            ref = data.get("ref") if isinstance(data.get("ref"), (int, str)) else None
            data.pop("ref", None)
            try:
                msg = protocol.client_message.validate_python(data)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(x) for x in first["loc"][1:]) or kind
                conn.send(protocol.error("protocol/malformed", f"{where}: {first['msg']}", ref))
                continue
            if isinstance(msg, protocol.Ping):
                conn.send({"type": "pong"})
            elif isinstance(msg, protocol.Hello):
                conn.seats |= table.seats_for({hash_token(t) for t in msg.tokens})
                conn.joined = True
                conn.send(protocol.welcome(table.version, sorted(conn.seats)))
                conn.send(manager.resync(table, conn, msg.since))
            elif not conn.joined:
                conn.send(protocol.error("protocol/hello-first", "send hello before acting", ref))
            else:
                try:
                    await manager.act(table, conn.seats, msg)
                except (IllegalAction, TableError) as exc:
                    conn.send(localize_error(protocol.error(exc.code, exc.message, ref), lang))
                except StoreConflict as exc:
                    log.error("store conflict at %s: %s", table.id, exc)
                    conn.send(protocol.error("server/store", "the action could not be stored: resync", ref))
                except Exception:  # the store is down, or a bug: never a traceback to the client
                    log.exception("action failed at %s", table.id)
                    conn.send(protocol.error("server/error", "the action failed on the server", ref))
    except WebSocketDisconnect:
        pass
    finally:
        table.conns.discard(conn)
        writer.cancel()
        manager.release(table)


async def _close(ws: WebSocket, writer: asyncio.Task, conn: Connection, code: int) -> None:
    # let the writer flush the error first
    for _ in range(50):
        if conn.queue.empty():
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.01)
    writer.cancel()
    try:
        await ws.close(code=code)
    except RuntimeError:
        pass
