"""A table's WebSocket: one socket per client and table, the closed protocol of `tables/schema.py`."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, WebSocket

from ..common.tokens import hash_token
from ..deps import TOKEN_COOKIE, get_lang, parse_tokens
from ..live import CLOSE_ORIGIN, CLOSE_UNKNOWN, Connection, RequestError, dumps, error, same_origin, serve_socket
from ..tables import schema

router = APIRouter()


@router.websocket("/ws/{table_id}")
async def table_socket(ws: WebSocket, table_id: str) -> None:
    manager = ws.app.state.manager
    await ws.accept()
    if not same_origin(ws):
        await ws.send_text(dumps(error("auth/origin", "this socket belongs to pages of this site")))
        await ws.close(code=CLOSE_ORIGIN)
        return
    try:
        table = await manager.aget(table_id)
    except RequestError as exc:
        await ws.send_text(dumps(error(exc.code, exc.message)))
        await ws.close(code=CLOSE_UNKNOWN)
        return
    cookie_tokens = parse_tokens(ws.cookies.get(TOKEN_COOKIE))
    conn = Connection(seats=table.seats_for({hash_token(t) for t in cookie_tokens}), lang=get_lang(ws))
    table.conns.add(conn)

    async def handle(msg: Any, ref: Any) -> None:
        if isinstance(msg, schema.Ping):
            conn.send({"type": "pong"})
        elif isinstance(msg, schema.Hello):
            conn.seats |= table.seats_for({hash_token(t) for t in msg.tokens})
            conn.joined = True
            conn.send(schema.welcome(table.version, sorted(conn.seats)))
            conn.send(manager.resync(table, conn, msg.since))
        elif not conn.joined:
            raise RequestError("protocol/hello-first", "send hello before acting")
        elif isinstance(msg, schema.AdviseMsg):
            conn.send(await manager.advise(table, conn.seats, msg))
        else:
            await manager.act(table, conn.seats, msg)

    try:
        await serve_socket(
            ws, conn, ws.app.state.settings, schema.MESSAGE_TYPES, schema.client_message.validate_python, handle
        )
    finally:
        table.conns.discard(conn)
        manager.release(table)
