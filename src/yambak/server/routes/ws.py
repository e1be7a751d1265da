"""The game sockets: one per client and session, one protocol (`session/protocol.py`) for a table's
(`/ws/{table_id}`: its actions, the coach) and a kept sheet's (`/ws/keep/{sheet_id}`: its entries).

A client says `hello` (the version it saw last, tokens where it has no cookie) and gets `welcome`
and what it missed; then it acts, each action with a `ref` its answer carries: the event it made
(or `ack` for an entry already applied), or a coded `error`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import APIRouter, WebSocket

from ..common.tokens import hash_token
from ..daily.sealed import acheck
from ..deps import TOKEN_COOKIE, aviewer_id, get_lang, parse_tokens
from ..keeper import schema as sheet_schema
from ..live import CLOSE_ORIGIN, CLOSE_UNKNOWN, Connection, RequestError, dumps, error, same_origin, serve_socket
from ..session import Hello, Ping, Session, SessionManager, welcome
from ..tables import schema as table_schema

router = APIRouter()

Act = Callable[[Session, Connection, Any, Any], Awaitable[None]]


async def _serve(
    ws: WebSocket,
    manager: SessionManager[Any],
    session_id: str,
    schema: Any,
    act: Act,
    seats: Callable[[Session, list[str]], set[int]],
    watch: Callable[[Session], Awaitable[None]] | None = None,
) -> None:
    """`watch`: asked before a client holding no seat watches (raises to refuse it)."""
    await ws.accept()
    if not same_origin(ws):
        await ws.send_text(dumps(error("auth/origin", "this socket belongs to pages of this site")))
        await ws.close(code=CLOSE_ORIGIN)
        return
    try:
        session = await manager.aget(session_id)
    except RequestError as exc:
        await ws.send_text(dumps(error(exc.code, exc.message)))
        await ws.close(code=CLOSE_UNKNOWN)
        return
    conn = Connection(seats=seats(session, parse_tokens(ws.cookies.get(TOKEN_COOKIE))), lang=get_lang(ws))
    session.conns.add(conn)

    async def handle(msg: Any, ref: Any) -> None:
        if isinstance(msg, Ping):
            conn.send({"type": "pong"})
        elif isinstance(msg, Hello):
            conn.seats |= seats(session, msg.tokens)
            if not conn.seats and watch is not None:
                await watch(session)
            conn.joined = True
            conn.send(welcome(session.version, sorted(conn.seats)))
            conn.send(manager.resync(session, conn, msg.since))
        elif not conn.joined:
            raise RequestError("protocol/hello-first", "send hello before acting")
        else:
            await act(session, conn, msg, ref)

    try:
        settings = ws.app.state.settings
        await serve_socket(ws, conn, settings, schema.MESSAGE_TYPES, schema.client_message.validate_python, handle)
    finally:
        session.conns.discard(conn)
        manager.release(session)


def _table_seats(table: Any, tokens: list[str]) -> set[int]:
    seats: set[int] = table.seats_for({hash_token(t) for t in tokens})
    return seats


@router.websocket("/ws/{table_id}")
async def table_socket(ws: WebSocket, table_id: str) -> None:
    manager = ws.app.state.manager

    async def act(table: Any, conn: Connection, msg: Any, ref: Any) -> None:
        if isinstance(msg, table_schema.AdviseMsg):
            conn.send(await manager.advise(table, conn.seats, msg))
        else:
            await manager.act(table, conn.seats, msg)

    async def watch(table: Any) -> None:  # not an open deal's game
        await acheck(table, (), lambda: aviewer_id(ws))

    await _serve(ws, manager, table_id, table_schema, act, _table_seats, watch)


@router.websocket("/ws/keep/{sheet_id}")
async def sheet_socket(ws: WebSocket, sheet_id: str) -> None:
    """Anyone with the sheet's id watches; an entry needs a write token said in `hello`, checked for each
    entry (a token revoked meanwhile by a renewed code stops writing at once: `auth/sheet-token`)."""
    keeper = ws.app.state.keeper
    tokens: list[str] = []  # this socket's: said in hello

    def said(_sheet: Any, more: list[str]) -> set[int]:
        tokens[:] = list(dict.fromkeys([*more, *tokens]))[:16]  # what hello says first
        return set()  # a sheet has no seats: whoever may write, writes for any player

    async def act(sheet: Any, conn: Connection, msg: Any, ref: Any) -> None:
        await keeper.writer(sheet, tokens)
        result = await keeper.enter(sheet, msg.entry)
        if result["duplicate"]:  # applied before (a lost answer, an offline queue sent again): no new event
            conn.send({"type": "ack", "ref": msg.entry.id, "v": result["applied_as"]})

    await _serve(ws, keeper, sheet_id, sheet_schema, act, said)
