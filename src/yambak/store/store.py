"""The store: one small interface over SQLAlchemy 2, SQLite (WAL) or PostgreSQL.

The truth of a game session (a live table or a kept sheet: one model for both) is
its event log: one row per accepted action, keyed by (session, version), so a
version is stored once and only on top of the one before it (the primary key is
the fence between two writers: the second to write a version gets
`StoreConflict`), and by the client's id for the action where it sent one (`ref`:
an action sent twice is found, not stored twice). The game record is a snapshot,
rewritten every few events and at the end, not at every action; a session
rebuilds from its snapshot and the events after it.

Writes from the server go through one writer (a task of the event loop) that
commits whatever is waiting in one transaction (group commit): the event loop
never blocks on the database, and a busy server pays one commit for many
actions. A batch that fails is retried one operation at a time, so one conflict
never sinks the others.
Reads from the event loop run in worker threads (`Store.read`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, TypeVarTuple, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    ColumnElement,
    DateTime,
    Integer,
    String,
    Table,
    Text,
    and_,
    bindparam,
    create_engine,
    delete,
    event,
    exists,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine
from sqlalchemy.pool import NullPool

from ..viewtypes import JSONObject
from .daily import DealStore
from .decisions import DecisionStore
from .driver import DriverStatement, Statements, Step
from .fairplay import FairplayStore
from .groups import GroupStore
from .models import Event, GameSession, Seat
from .profiles import ProfileStore
from .push import PushStore
from .ranked import RankedStore
from .sheets import SheetStore
from .trainer import TrainerStore
from .turns import TurnStore

if TYPE_CHECKING:
    import psycopg  # the writer's own connection (`_Writer._send`): imported when first used (some 70 ms)

__all__ = ["DEFAULT_URL", "RefTaken", "Statements", "Store", "StoreConflict", "SessionRow", "SeatRow", "EventRow"]

log = logging.getLogger("yambak.store")

DEFAULT_URL = "sqlite:///var/yambak.db"
_MIGRATIONS = Path(__file__).with_name("migrations")
T = TypeVar("T")
Ts = TypeVarTuple("Ts")

# The hot path, built once: log an event; now and then, a snapshot of the record beside it.
_T, _E = cast(Table, GameSession.__table__), cast(Table, Event.__table__)
_LOG = insert(_E).values(
    table_id=bindparam("tid"),
    version=bindparam("new"),
    seat=bindparam("seat"),
    type=bindparam("kind"),
    data=bindparam("data"),
    ref=bindparam("ref"),
    created_at=bindparam("now"),
)
# Event v is stored only on top of event v - 1 (or of a snapshot at v - 1, for logs older than their
# snapshots): one statement, no read before it.
_LOG_NEXT = (
    insert(_E)
    .from_select(
        ["table_id", "version", "seat", "type", "data", "ref", "created_at"],
        select(
            bindparam("tid", type_=String),
            bindparam("new", type_=Integer),
            bindparam("seat", type_=Integer),
            bindparam("kind", type_=String),
            bindparam("data", type_=Text),
            bindparam("ref", type_=String),
            bindparam("now", type_=DateTime),
        ).where(
            (
                exists().where(_E.c.table_id == bindparam("tid"), _E.c.version == bindparam("prev"))
                | exists().where(_T.c.id == bindparam("tid"), _T.c.version == bindparam("prev"))
            )
            # an action already logged under its ref is not logged again (a resend, a retried forward)
            & ~exists().where(_E.c.table_id == bindparam("tid"), _E.c.ref == bindparam("ref"))
        ),
    )
    .returning(_E.c.version)
)


_LOG_FIRST, _LOG_ON_TOP = DriverStatement(_LOG), DriverStatement(_LOG_NEXT, guarded=True)
_REF = select(_E.c.version).where(_E.c.table_id == bindparam("tid"), _E.c.ref == bindparam("ref"))
_SNAPSHOT = DriverStatement(
    update(_T)
    .where(_T.c.id == bindparam("tid"), _T.c.version < bindparam("new"))
    .values(version=bindparam("new"), record=bindparam("rec"), finished=bindparam("fin"), updated_at=bindparam("now"))
)


class StoreConflict(RuntimeError):
    """A write lost a race: the version was taken or the seat was no longer open."""


class RefTaken(StoreConflict):
    """An action's ref is logged already: the action was applied before, as `version`."""

    def __init__(self, session_id: str, ref: str, version: int) -> None:
        super().__init__(f"session {session_id}: ref {ref!r} is logged already, as version {version}")
        self.version = version


@dataclass
class SeatRow:
    seat: int
    kind: str  # human | bot | open
    name: str
    token_hash: str | None = None
    bot: str | None = None
    profile_id: str | None = None  # the player's profile, where they have one
    assisted: bool = False  # asked the coach, or a bot played one of their turns
    device: str | None = None  # the profile key (hash) of the device the token was given to (never shown)


@dataclass
class SessionRow:
    """A stored game session: a live table (`kind` "table": seats, dice commitment, settings) or a kept
    sheet ("sheet": players in the record, a join code)."""

    id: str
    name: str
    rules: Any
    listed: bool
    duplicate: bool
    seed: str | None
    record: JSONObject  # a snapshot: the game record (pending turns included) at `version`
    version: int = 0  # the snapshot's version; the log may be ahead
    finished: bool = False
    rematch: str | None = None
    seats: list[SeatRow] = field(default_factory=list)
    created_at: datetime | None = None
    fairness: JSONObject | None = None  # the dice commitment, with its secret seed
    settings: JSONObject | None = None
    kind: str = "table"
    code: str | None = None
    tokens: list[tuple[str, str]] = field(default_factory=list)  # a sheet's write tokens: (hash, owner | code)


@dataclass
class EventRow:
    version: int
    seat: int
    type: str
    data: JSONObject  # the event (a table's) or the entry (a kept sheet's), as logged
    ref: str | None = None


def _seat_rows(table_id: str, seats: list[SeatRow]) -> list[dict[str, object]]:
    """Seats as rows of the `seats` table."""
    return [{"table_id": table_id, **asdict(s)} for s in seats]


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _sqlite_pragmas(dbapi_conn: DBAPIConnection, _record: object) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()


def make_engine(url: str) -> Engine:
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=5)


Op = Callable[[Connection], object]  # a write: run in a transaction, its outcome to the caller


def _answer(fut: asyncio.Future[Any], result: Any = None, error: BaseException | None = None) -> None:
    """A write's outcome to its waiter, unless it gave up meanwhile."""
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)


class _Writer:
    """Group commit: every write waiting when a transaction starts shares it, on one connection the writer
    keeps. The writer is a task of the event loop that writes. On PostgreSQL its transactions run on the
    driver's asynchronous connection, on the loop itself: a writer thread handed the interpreter lock back
    and forth with a busy loop at every round trip to the database, and each hand-off could wait for the
    switch interval (`bench/load.py`: a 1 ms commit took 5 to 9 ms at the median, 20 to 65 ms at the 99th
    percentile). A batch of `Statements` only (every action's write) goes as one message on a psycopg
    connection of the writer's own, without SQLAlchemy (`_send`). On SQLite (no round trips) each
    transaction runs in a worker thread."""

    def __init__(self, engine: Engine, max_batch: int = 256, synchronous: bool = True) -> None:
        self.engine = engine
        self.max_batch = max_batch
        # PostgreSQL: off answers a commit before its WAL reaches the disk (Store's `synchronous`)
        self.relaxed = not synchronous and engine.dialect.name == "postgresql"
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[tuple[Op, asyncio.Future[Any]] | None] = asyncio.Queue()
        self.batches = 0  # transactions committed (for tests and metrics)
        self.cpu = 0.0  # SQLite: the worker thread's CPU in transactions (PostgreSQL's is the event loop's)
        postgres = engine.dialect.name == "postgresql"
        self._async = create_async_engine(engine.url, poolclass=NullPool) if postgres else None
        # PostgreSQL: two transactions in flight (each on its own connection), so that a write arriving
        # while one commits does not wait for it; a session's writes never overlap (its lock is held until
        # its write is committed). SQLite takes one writer at a time.
        lanes = 2 if postgres else 1
        self._aconns: list[AsyncConnection | None] = [None] * lanes
        self._raw: list[psycopg.AsyncConnection[Any] | None] = [None] * lanes  # `_send`'s
        self._conn: Connection | None = None
        self.task = self.loop.create_task(self._serve(lanes), name="yambak-store-writer")

    async def _serve(self, lanes: int) -> None:
        try:
            await asyncio.gather(*(self._lane(k) for k in range(lanes)))
        finally:
            await self._close()

    async def _lane(self, lane: int) -> None:
        while True:
            item = await self.queue.get()
            if item is None:
                self.queue.put_nowait(None)  # the other lanes stop too
                return
            batch = [item]
            while len(batch) < self.max_batch and not self.queue.empty():
                more = self.queue.get_nowait()
                if more is None:
                    self.queue.put_nowait(None)  # stop after this batch
                    break
                batch.append(more)
            await self._run(batch, lane)

    async def _close(self) -> None:
        for lane, raw in enumerate(self._raw):
            self._raw[lane] = None
            if raw is not None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(raw.close())
        for lane, aconn in enumerate(self._aconns):
            self._aconns[lane] = None
            if aconn is not None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(aconn.close())
        if self._async is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._async.dispose())
        if self._conn is not None:
            self._conn.close()

    async def _transaction(self, ops: list[Op], lane: int) -> list[object]:
        if self._async is None:
            return await asyncio.to_thread(self._thread_transaction, ops)
        aconn = self._aconns[lane]
        if aconn is None or aconn.closed or aconn.invalidated:
            aconn = self._aconns[lane] = await self._async.connect()
        try:
            async with aconn.begin():
                if self.relaxed:
                    await aconn.exec_driver_sql("SET LOCAL synchronous_commit TO off")
                return await aconn.run_sync(lambda conn: [op(conn) for op in ops])
        except DBAPIError as exc:
            if exc.connection_invalidated:
                self._aconns[lane] = None
            raise

    async def _send(self, ops: list[Statements[Any]], lane: int) -> list[object]:
        """Writes made of statements alone, as one message: one transaction, one round trip (`Statements`)."""
        import psycopg

        raw = self._raw[lane]
        if raw is None or raw.closed or raw.broken:
            url = self.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
            raw = self._raw[lane] = await psycopg.AsyncConnection.connect(url, autocommit=True)
            if self.relaxed:  # this connection makes the writer's transactions only
                await raw.execute("SET synchronous_commit TO off")
        bind = psycopg.AsyncClientCursor(raw).mogrify
        dialect = self.engine.dialect
        # no parameters: the simple protocol, whose one message may hold several statements
        await raw.execute(";".join(op.literal(dialect, bind) for op in ops), prepare=False)
        return [op.result for op in ops]

    def _thread_transaction(self, ops: list[Op]) -> list[object]:
        start = time.thread_time()
        try:
            if self._conn is None or self._conn.closed or self._conn.invalidated:
                self._conn = self.engine.connect()
            conn = self._conn
            try:
                with conn.begin():
                    return [op(conn) for op in ops]
            except DBAPIError as exc:
                if exc.connection_invalidated:
                    self._conn = None
                raise
        finally:
            self.cpu += time.thread_time() - start

    async def _run(self, batch: list[tuple[Op, asyncio.Future[Any]]], lane: int) -> None:
        live = [(op, fut) for op, fut in batch if not fut.done()]  # a waiter that gave up: its write is not made
        plain = [op for op, _ in live if isinstance(op, Statements)]
        together: Awaitable[list[object]] | None = None
        if self._async is not None and live and len(plain) == len(live):
            together = self._send(plain, lane)  # statements only: one message, one round trip
        elif len(live) > 1:
            together = self._transaction([op for op, _ in live], lane)
        if together is not None:
            try:
                results = await together
            except Exception:  # noqa: BLE001 - one failed (or the connection): each alone, below, so only it fails
                pass
            else:
                self.batches += 1
                for (_, fut), result in zip(live, results, strict=True):
                    _answer(fut, result)
                return
        for op, fut in live:
            try:
                result = (await self._transaction([op], lane))[0]
            except IntegrityError as exc:
                _answer(fut, error=StoreConflict(f"already stored: {str(exc.orig)[:200]}"))
            except Exception as exc:  # noqa: BLE001 - handed to the caller
                _answer(fut, error=exc)
            else:
                self.batches += 1
                _answer(fut, result)

    def stop(self) -> None:
        """Finish the writes queued so far, then close (from any thread)."""
        if not self.loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self.loop.call_soon_threadsafe(self.queue.put_nowait, None)


class Store(
    ProfileStore,
    DealStore,
    RankedStore,
    SheetStore,
    TurnStore,
    PushStore,
    DecisionStore,
    TrainerStore,
    FairplayStore,
    GroupStore,
):
    def __init__(self, url: str | None = None, migrate: bool = True, synchronous: bool = True) -> None:
        """`synchronous` false (PostgreSQL): the writer's commits return before their WAL is on disk
        (`synchronous_commit = off` for them): a disk's slow flushes no longer hold every action, and a
        crash of PostgreSQL or of the machine (not of this process) may lose the last fraction of a second
        of acknowledged writes. Every other write, and SQLite's, stays as it was."""
        self.url = url or os.environ.get("YAMBAK_DATABASE_URL") or DEFAULT_URL
        self.engine = make_engine(self.url)
        self.synchronous = synchronous
        self._writer: _Writer | None = None
        self._writer_lock = threading.Lock()
        if migrate:
            self.migrate()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision (one process at a time on PostgreSQL)."""
        cfg = Config()
        cfg.set_main_option("script_location", str(_MIGRATIONS))
        with self.engine.begin() as conn:
            if self.dialect == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(7212540)"))  # several processes start at once
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def close(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.stop()
        self.engine.dispose()

    async def aclose(self) -> None:
        """`close`, once the writes queued so far are committed (on the writer's loop)."""
        writer = self._writer
        if writer is not None and writer.loop is asyncio.get_running_loop():
            writer.stop()
            await asyncio.wait([writer.task], timeout=10)
        self.close()

    def writer_cpu(self) -> float:
        """CPU seconds the writer has spent in its transactions so far in a thread of its own (SQLite's; on
        PostgreSQL they run on the event loop and count as its CPU)."""
        writer = self._writer
        return writer.cpu if writer is not None else 0.0

    # --- off the event loop ----------------------------------------------------------------------

    async def write(self, op: Callable[[Connection], T]) -> T:
        """A write, committed (StoreConflict when it lost a race), without blocking the event loop: it
        shares a transaction with the writes waiting beside it."""
        loop = asyncio.get_running_loop()
        with self._writer_lock:
            writer = self._writer
            if writer is None or writer.loop is not loop or writer.task.done():
                if writer is not None:
                    writer.stop()  # a store used from another loop before (tests run several)
                writer = self._writer = _Writer(self.engine, synchronous=self.synchronous)
        fut: asyncio.Future[T] = loop.create_future()
        writer.queue.put_nowait((op, fut))
        return await fut

    async def read(self, fn: Callable[[*Ts], T], *args: *Ts) -> T:
        """A read in a worker thread."""
        return await asyncio.to_thread(fn, *args)

    def _sync(self, op: Callable[[Connection], T]) -> T:
        try:
            with self.engine.begin() as conn:
                return op(conn)
        except IntegrityError as exc:
            raise StoreConflict(f"already stored: {str(exc.orig)[:200]}") from exc

    # --- tables: writing (each write is an operation: run now, or handed to the writer) -----------

    @staticmethod
    def create_op(table: SessionRow, also: Op | None = None) -> Op:
        """A new session (StoreConflict when its id, or a sheet's code, is taken), and `also` with it."""

        def op(conn: Connection) -> None:
            now = _now()
            conn.execute(
                insert(GameSession).values(
                    id=table.id,
                    kind=table.kind,
                    code=table.code,
                    name=table.name,
                    rules=table.rules,
                    listed=table.listed,
                    duplicate=table.duplicate,
                    seed=table.seed,
                    version=table.version,
                    finished=table.finished,
                    record=table.record,
                    fairness=table.fairness,
                    rematch=None,
                    settings=table.settings,
                    created_at=now,
                    updated_at=now,
                )
            )
            if table.seats:
                conn.execute(insert(Seat), _seat_rows(table.id, table.seats))
            for token_hash, kind in table.tokens:  # a sheet's write tokens, stored with it
                SheetStore.sheet_token_op(table.id, token_hash, kind)(conn)
            if also is not None:
                also(conn)

        return op

    def create(self, table: SessionRow, also: Op | None = None) -> None:
        self._sync(self.create_op(table, also))

    @staticmethod
    def claim_seat_op(
        table_id: str, seat: int, name: str, token_hash: str, profile_id: str | None = None, device: str | None = None
    ) -> Op:
        """`device`: the profile key (hash) of the device the token goes to."""

        def op(conn: Connection) -> None:
            res = conn.execute(
                update(Seat)
                .where(Seat.table_id == table_id, Seat.seat == seat, Seat.kind == "open")
                .values(kind="human", name=name, token_hash=token_hash, profile_id=profile_id, device=device)
            )
            if res.rowcount != 1:
                raise StoreConflict(f"seat {seat} is not open")

        return op

    @staticmethod
    def seat_bot_op(table_id: str, seat: int, name: str, bot: str) -> Op:
        """An open seat goes to a bot (StoreConflict when it was taken meanwhile)."""

        def op(conn: Connection) -> None:
            res = conn.execute(
                update(Seat)
                .where(Seat.table_id == table_id, Seat.seat == seat, Seat.kind == "open")
                .values(kind="bot", name=name, bot=bot)
            )
            if res.rowcount != 1:
                raise StoreConflict(f"seat {seat} is not open")

        return op

    @staticmethod
    def remove_seat_op(
        table_id: str, seat: int, seats: list[SeatRow], record: JSONObject, fairness: JSONObject | None
    ) -> Op:
        """An open seat leaves a table before its first roll: the seats after it move up one (`seats`, the
        table's seats from then on), and the table's record and dice commitment say so (StoreConflict when
        the seat was taken meanwhile)."""

        def op(conn: Connection) -> None:
            kind = conn.execute(select(Seat.kind).where(Seat.table_id == table_id, Seat.seat == seat)).scalar()
            if kind != "open":
                raise StoreConflict(f"seat {seat} is not open")
            conn.execute(delete(Seat).where(Seat.table_id == table_id, Seat.seat >= seat))
            moved = [s for s in seats if s.seat >= seat]
            if moved:
                conn.execute(insert(Seat), _seat_rows(table_id, moved))
            values: dict[str, object] = {"record": record, "updated_at": _now()}
            if fairness is not None:
                values["fairness"] = fairness
            conn.execute(update(GameSession).where(GameSession.id == table_id).values(**values))

        return op

    @staticmethod
    def seat_token_op(table_id: str, seat: int, profile_id: str, token_hash: str, device: str | None = None) -> Op:
        """A profile's seat gets a new token (its owner plays on from another device, `device` its key's hash)."""

        def op(conn: Connection) -> None:
            conn.execute(
                update(Seat)
                .where(Seat.table_id == table_id, Seat.seat == seat, Seat.profile_id == profile_id)
                .values(token_hash=token_hash, device=device)
            )

        return op

    def claim_seat(self, table_id: str, seat: int, name: str, token_hash: str) -> None:
        """Turn an open seat into a player's (the seat row holds the name); StoreConflict when it was taken."""
        self._sync(self.claim_seat_op(table_id, seat, name, token_hash))

    @staticmethod
    def append_op(
        table_id: str,
        version: int,
        seat: int,
        type_: str,
        data: JSONObject,
        snapshot: JSONObject | None = None,
        finished: bool = False,
        ref: str | None = None,
    ) -> Statements[None]:
        now = _now()
        row = {"tid": table_id, "new": version, "seat": seat, "kind": type_, "data": json.dumps(data)}
        row.update(ref=ref, now=now)
        logged: Step = (_LOG_FIRST, row) if version == 1 else (_LOG_ON_TOP, {**row, "prev": version - 1})
        steps = [logged]
        if snapshot is not None:
            steps.append((_SNAPSHOT, {"tid": table_id, "new": version, "rec": snapshot, "fin": finished, "now": now}))

        def op(conn: Connection) -> None:
            statement, params = logged
            result = statement.execute(conn, params)
            if statement is _LOG_ON_TOP and result.first() is None:
                done = None if ref is None else conn.execute(_REF, {"tid": table_id, "ref": ref}).scalar()
                if done is not None:
                    raise RefTaken(table_id, ref or "", int(done))
                raise StoreConflict(f"session {table_id}: version {version} is not next")
            for statement, params in steps[1:]:
                statement.execute(conn, params)

        return Statements(steps, None, op)

    def append(
        self,
        table_id: str,
        version: int,
        seat: int,
        type_: str,
        data: JSONObject,
        snapshot: JSONObject | None = None,
        finished: bool = False,
        ref: str | None = None,
    ) -> None:
        """Log one accepted action as event `version` (the log must hold version - 1), with a snapshot
        of the record at that version when given. StoreConflict when the version is taken or not next,
        or the ref was logged already."""
        self._sync(self.append_op(table_id, version, seat, type_, data, snapshot, finished, ref))

    @staticmethod
    def fairness_op(table_id: str, fairness: JSONObject) -> Op:
        def op(conn: Connection) -> None:
            conn.execute(update(GameSession).where(GameSession.id == table_id).values(fairness=fairness))

        return op

    @staticmethod
    def set_rematch_op(table_id: str, rematch: str) -> Op:
        def op(conn: Connection) -> None:
            conn.execute(update(GameSession).where(GameSession.id == table_id).values(rematch=rematch))

        return op

    def set_rematch(self, table_id: str, rematch: str) -> None:
        self._sync(self.set_rematch_op(table_id, rematch))

    # --- tables: reading -----------------------------------------------------------------------

    def _seats(self, conn: Connection, table_ids: list[str]) -> dict[str, list[SeatRow]]:
        out: dict[str, list[SeatRow]] = {t: [] for t in table_ids}
        if not table_ids:
            return out
        for s in conn.execute(
            select(Seat.table_id, Seat.seat, Seat.kind, Seat.name, Seat.token_hash, Seat.bot)
            .add_columns(Seat.profile_id, Seat.assisted, Seat.device)
            .where(Seat.table_id.in_(table_ids))
            .order_by(Seat.table_id, Seat.seat)
        ):
            out[s.table_id].append(
                SeatRow(s.seat, s.kind, s.name, s.token_hash, s.bot, s.profile_id, bool(s.assisted), s.device)
            )
        return out

    def _rows(self, where: ColumnElement[bool] | None = None, limit: int | None = None) -> list[SessionRow]:
        with self.engine.connect() as conn:
            q = select(GameSession)
            if where is not None:
                q = q.where(where)
            q = q.order_by(GameSession.created_at.desc())
            if limit:
                q = q.limit(limit)
            tables = list(conn.execute(q).mappings())
            seats = self._seats(conn, [t["id"] for t in tables])
            return [
                SessionRow(
                    id=t["id"],
                    kind=t["kind"],
                    code=t["code"],
                    name=t["name"],
                    rules=t["rules"],
                    listed=t["listed"],
                    duplicate=t["duplicate"],
                    seed=t["seed"],
                    record=t["record"],
                    version=t["version"],
                    finished=t["finished"],
                    rematch=t["rematch"],
                    seats=seats[t["id"]],
                    created_at=t["created_at"],
                    fairness=t["fairness"],
                    settings=t["settings"],
                )
                for t in tables
            ]

    def get_session(self, session_id: str, kind: str | None = None) -> SessionRow | None:
        """A session by id (of this kind, when given)."""
        where = GameSession.id == session_id
        rows = self._rows(where if kind is None else and_(where, GameSession.kind == kind))
        return rows[0] if rows else None

    def session_by_code(self, code: str) -> SessionRow | None:
        """A kept sheet by its join code."""
        rows = self._rows(and_(GameSession.code == code, GameSession.kind == "sheet"))
        return rows[0] if rows else None

    def tables(
        self, unfinished_only: bool = False, limit: int | None = None, listed_only: bool = False
    ) -> list[SessionRow]:
        """Live tables (not kept sheets), newest first."""
        conditions = [GameSession.kind == "table"]
        if unfinished_only:
            conditions.append(GameSession.finished.is_(False))
        if listed_only:
            conditions.append(GameSession.listed.is_(True))
        return self._rows(and_(*conditions), limit)

    def idle_seconds(self, table_ids: list[str]) -> dict[str, float]:
        """Seconds since each table's last stored action (its creation when it has none)."""
        if not table_ids:
            return {}
        with self.engine.connect() as conn:
            last = dict(
                conn.execute(
                    select(Event.table_id, func.max(Event.created_at))
                    .where(Event.table_id.in_(table_ids))
                    .group_by(Event.table_id)
                ).all()
            )
            made_q = select(GameSession.id, GameSession.created_at).where(GameSession.id.in_(table_ids))
            made = dict(conn.execute(made_q).all())
        now = _now()
        return {t: (now - (last.get(t) or made[t])).total_seconds() for t in table_ids if t in made}

    def unfinished_with_bots(self) -> list[str]:
        with self.engine.connect() as conn:
            q = select(GameSession.id).where(
                GameSession.finished.is_(False), GameSession.id.in_(select(Seat.table_id).where(Seat.kind == "bot"))
            )
            return list(conn.execute(q).scalars())

    def events(self, table_id: str, since: int = 0) -> list[EventRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Event.version, Event.seat, Event.type, Event.data, Event.ref)
                .where(Event.table_id == table_id, Event.version > since)
                .order_by(Event.version)
            )
            return [EventRow(r.version, r.seat, r.type, json.loads(r.data), r.ref) for r in rows]

    def last_events(self, table_id: str, n: int) -> list[EventRow]:
        """The newest `n` events, oldest first."""
        with self.engine.connect() as conn:
            rows = list(
                conn.execute(
                    select(Event.version, Event.seat, Event.type, Event.data, Event.ref)
                    .where(Event.table_id == table_id)
                    .order_by(Event.version.desc())
                    .limit(n)
                )
            )
        return [EventRow(r.version, r.seat, r.type, json.loads(r.data), r.ref) for r in reversed(rows)]

    def versions(self, session_ids: list[str]) -> dict[str, int]:
        """Each session's newest version: its log's last event (or its snapshot's, with no event yet)."""
        out: dict[str, int] = {}
        with self.engine.connect() as conn:
            for i in range(0, len(session_ids), 500):
                chunk = session_ids[i : i + 500]
                rows = conn.execute(select(GameSession.id, GameSession.version).where(GameSession.id.in_(chunk)))
                out.update({session_id: version for session_id, version in rows})
                newest = select(Event.table_id, func.max(Event.version)).where(Event.table_id.in_(chunk))
                for session_id, version in conn.execute(newest.group_by(Event.table_id)):
                    out[session_id] = max(out.get(session_id, 0), version or 0)
        return out

    def seat_versions(self, table_id: str) -> dict[int, int]:
        """Each seat's newest event version."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Event.seat, func.max(Event.version)).where(Event.table_id == table_id).group_by(Event.seat)
            )
            return {int(seat): int(v) for seat, v in rows}

    def ref_version(self, session_id: str, ref: str) -> int | None:
        """The version an action logged under the client's `ref` made, if it was logged."""
        with self.engine.connect() as conn:
            return conn.execute(select(Event.version).where(Event.table_id == session_id, Event.ref == ref)).scalar()

    def ref_event(self, session_id: str, ref: str) -> EventRow | None:
        """The event an action logged under the client's `ref` made, if it was logged."""
        with self.engine.connect() as conn:
            r = conn.execute(
                select(Event.version, Event.seat, Event.type, Event.data, Event.ref).where(
                    Event.table_id == session_id, Event.ref == ref
                )
            ).first()
        return None if r is None else EventRow(r.version, r.seat, r.type, json.loads(r.data), r.ref)

    def load_session(
        self, table_id: str, history: int = 200, kind: str | None = None
    ) -> tuple[SessionRow, list[EventRow], list[EventRow]] | None:
        """What a session rebuilds from: its row (snapshot), the events after the snapshot, and the newest
        `history` events (for reconnecting clients)."""
        row = self.get_session(table_id, kind)
        if row is None:
            return None
        after = self.events(table_id, since=row.version)
        if len(after) >= history:
            return row, after, after[-history:]
        # a read of its own: an event committed since `after` was read belongs to the next load, not to this one
        newest = after[-1].version if after else row.version
        return row, after, [e for e in self.last_events(table_id, history) if e.version <= newest]

    # --- health ----------------------------------------------------------------------------------

    def ping(self) -> bool:
        with self.engine.connect() as conn:
            return conn.execute(text("SELECT 1")).scalar() == 1
