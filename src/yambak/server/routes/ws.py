"""The game sockets: one per client and session, one protocol (`session/protocol.py`) for a table's
(`/ws/{table_id}`: its actions, the coach) and a kept sheet's (`/ws/keep/{sheet_id}`: its entries).

A client says `hello` (the version it saw last, tokens where it has no cookie) and gets `welcome`
and what it missed; then it acts, each action with a `ref` its answer carries: the event it made
(or `ack` for an entry already applied), or a coded `error`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import APIRouter, WebSocket

from ...engine import IllegalAction
from ...viewtypes import Ack
from ...web.i18n import localize_error
from ..common.coach import Asker
from ..common.tokens import hash_token
from ..daily.sealed import acheck
from ..deps import TOKEN_COOKIE, aviewer_id, client_address, get_lang, parse_tokens
from ..keeper import schema as sheet_schema
from ..keeper.manager import KeptSheet
from ..limits import Bucket
from ..live import (
    CLOSE_CROWDED,
    CLOSE_ORIGIN,
    CLOSE_UNKNOWN,
    Connection,
    RequestError,
    dumps,
    error,
    failure,
    same_origin,
    serve_socket,
)
from ..session import Hello, Ping, Session, SessionFront, welcome
from ..tables import schema as table_schema
from ..tables.table import LiveTable

router = APIRouter()
log = logging.getLogger("yambak.server")

S = TypeVar("S", bound=Session)

Ref = int | str | None  # the client's id for a message (`live.serve_socket` checked it)

CROWDED = {  # the refusal of a socket over one of the caps (`limits.SocketCaps`), by cap
    "session": "at most {{}} connections from one address to one {noun}",
    "address": "at most {{}} connections from one address",
    "total": "this {noun} has {{}} connections: no more",
}


async def _serve(
    ws: WebSocket,
    manager: SessionFront[S],
    session_id: str,
    schema: Any,
    act: Callable[[S, Connection, Any, Ref], Awaitable[None]],
    seats: Callable[[S, list[str]], set[int]],
    watch: Callable[[S], Awaitable[None]] | None = None,
) -> None:
    """`watch`: asked before a client holding no seat watches (raises to refuse it)."""
    await ws.accept()
    if not same_origin(ws):
        await ws.send_text(dumps(error("auth/origin", "this socket belongs to pages of this site")))
        await ws.close(code=CLOSE_ORIGIN)
        return
    caps = ws.app.state.sockets
    ticket = await caps.enter(client_address(ws)[:64], f"{manager.KIND}:{str(session_id)[:40]}")
    if isinstance(ticket, str):  # a fair share per client: one address cannot crowd out a table or the server
        limit, said = caps.limits[ticket], CROWDED[ticket].format(noun=manager.NOUN)
        refusal = localize_error(error("rate/sockets", said.format(limit), cap=ticket, limit=limit), get_lang(ws))
        await ws.send_text(dumps(refusal))
        await ws.close(code=CLOSE_CROWDED)
        return
    try:
        await _session(ws, manager, session_id, schema, act, seats, watch)
    finally:
        caps.leave(ticket)


async def _session(
    ws: WebSocket,
    manager: SessionFront[S],
    session_id: str,
    schema: Any,
    act: Callable[[S, Connection, Any, Ref], Awaitable[None]],
    seats: Callable[[S, list[str]], set[int]],
    watch: Callable[[S], Awaitable[None]] | None,
) -> None:
    try:
        session = await manager.aget(session_id)
    except RequestError as exc:
        await ws.send_text(dumps(error(exc.code, exc.message)))
        await ws.close(code=CLOSE_UNKNOWN)
        return
    said = parse_tokens(ws.cookies.get(TOKEN_COOKIE))
    conn = Connection(seats=seats(session, said), keys={hash_token(t) for t in said}, lang=get_lang(ws))
    session.conns.add(conn)
    settings = ws.app.state.settings
    hellos = Bucket(settings.hello_rate, settings.hello_burst)  # a hello may cost a whole view

    async def handle(msg: Any, ref: Ref) -> None:
        if isinstance(msg, Ping):
            conn.send({"type": "pong"})
        elif isinstance(msg, Hello):
            if not hellos.take():
                raise RequestError("rate/limited", "too many hellos on this socket: slow down")
            conn.seats |= seats(session, msg.tokens)
            conn.keys |= {hash_token(t) for t in msg.tokens[:16]}
            if not conn.seats and watch is not None:
                await watch(session)
            conn.joined = True
            conn.send(welcome(session.version, sorted(conn.seats)))
            manager.connected(session, conn)  # who is here, counted before the view this client gets
            conn.send(manager.resync(session, conn, msg.since))
        elif not conn.joined:
            raise RequestError("protocol/hello-first", "send hello before acting")
        else:
            await act(session, conn, msg, ref)

    try:
        await serve_socket(ws, conn, settings, schema.MESSAGE_TYPES, schema.client_message.validate_python, handle)
    finally:
        session.conns.discard(conn)
        if conn.joined:
            manager.connected(session, conn)
        manager.release(session)


def _table_seats(table: LiveTable, tokens: list[str]) -> set[int]:
    return table.seats_for({hash_token(t) for t in tokens})


@router.websocket("/ws/{table_id}")
async def table_socket(ws: WebSocket, table_id: str) -> None:
    manager = ws.app.state.manager
    asker = Asker(manager.coach)  # this socket's advice: one at a time, the newest request wins

    async def advice(table: LiveTable, conn: Connection, msg: table_schema.AdviseMsg, ref: Ref) -> None:
        try:
            conn.send(await manager.advise(table, conn.seats, msg, asker))
        except asyncio.CancelledError:
            conn.refuse(RequestError("advice/replaced", "a newer request for advice took this one's place"), ref)
            raise
        except (RequestError, IllegalAction) as exc:
            conn.refuse(exc, ref)
        except Exception as exc:  # never a traceback to the client
            refusal = failure(exc, "the advice failed on the server")
            if refusal.status == 500:
                log.exception("advice at table %s failed", table.id)
            conn.refuse(refusal, ref)

    async def act(table: LiveTable, conn: Connection, msg: Any, ref: Ref) -> None:
        if isinstance(msg, table_schema.AdviseMsg):  # answered while the socket goes on reading
            asker.start(advice(table, conn, msg, ref))
        elif isinstance(msg, table_schema.CloseSeatMsg):
            await manager.seating.close(table, conn.seats, msg)
        elif isinstance(msg, table_schema.ReactMsg):
            await manager.reactions.send(table, conn.seats, msg.seat, msg.reaction)
        else:
            done = await manager.act(table, conn.seats, msg, ref)
            if done is not None:  # done before under this ref: the event it made, to this client alone
                conn.send(done)

    async def watch(table: LiveTable) -> None:  # not an open deal's game
        await acheck(table, (), lambda: aviewer_id(ws))

    try:
        await _serve(ws, manager, table_id, table_schema, act, _table_seats, watch)
    finally:
        asker.close()


@router.websocket("/ws/keep/{sheet_id}")
async def sheet_socket(ws: WebSocket, sheet_id: str) -> None:
    """Anyone with the sheet's id watches; an entry needs a write token said in `hello`, checked for each
    entry (a token revoked meanwhile by a renewed code stops writing at once: `auth/sheet-token`)."""
    keeper = ws.app.state.keeper
    tokens: list[str] = []  # this socket's: said in hello

    def said(_sheet: KeptSheet, more: list[str]) -> set[int]:
        tokens[:] = list(dict.fromkeys([*more, *tokens]))[:16]  # what hello says first
        return set()  # a sheet has no seats: whoever may write, writes for any player

    async def act(sheet: KeptSheet, conn: Connection, msg: Any, _ref: Ref) -> None:
        await keeper.writer(sheet, tokens)
        result = await keeper.enter(sheet, msg.entry)
        if result["duplicate"]:  # applied before (a lost answer, an offline queue sent again): no new event
            ack: Ack = {"type": "ack", "ref": msg.entry.id, "v": result["applied_as"]}
            conn.send(ack)

    await _serve(ws, keeper, sheet_id, sheet_schema, act, said)
