"""The store: one small interface over SQLAlchemy 2, SQLite (WAL) or PostgreSQL.

The truth of a table is its event log: one row per accepted action, keyed by
(table, version), so a version is stored once and only on top of the one before
it (the primary key is the fence between two writers: the second to write a
version gets `StoreConflict`). The table's game record is a snapshot, rewritten
every few events and at the end, not at every action; a table rebuilds from its
snapshot and the events after it. Score-keeper sheets work the same way, with
their entries as the log.

Writes from the server go through one writer thread that commits whatever is
waiting in one transaction (group commit): the event loop never waits on the
database, and a busy server pays one commit for many actions. A batch that
fails is retried one operation at a time, so one conflict never sinks the others.
Reads from the event loop run in worker threads (`Store.read`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    DateTime,
    Integer,
    String,
    Table,
    Text,
    and_,
    bindparam,
    create_engine,
    event,
    exists,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, IntegrityError

from .daily import DealStore
from .models import Event, GameTable, KeeperEntry, KeeperSheet, Seat
from .profiles import ProfileStore

__all__ = ["DEFAULT_URL", "Store", "StoreConflict", "TableRow", "SeatRow", "EventRow", "KeeperRow", "EntryRow"]

log = logging.getLogger("yambak.store")

DEFAULT_URL = "sqlite:///var/yambak.db"
_MIGRATIONS = Path(__file__).with_name("migrations")
T = TypeVar("T")

# The hot path, built once: log an event; now and then, a snapshot of the record beside it.
_T, _E = cast(Table, GameTable.__table__), cast(Table, Event.__table__)
_LOG = insert(_E).values(
    table_id=bindparam("tid"),
    version=bindparam("new"),
    seat=bindparam("seat"),
    type=bindparam("kind"),
    data=bindparam("data"),
    created_at=bindparam("now"),
)
# Event v is stored only on top of event v - 1: one statement, no read before it.
_LOG_NEXT = (
    insert(_E)
    .from_select(
        ["table_id", "version", "seat", "type", "data", "created_at"],
        select(
            bindparam("tid", type_=String),
            bindparam("new", type_=Integer),
            bindparam("seat", type_=Integer),
            bindparam("kind", type_=String),
            bindparam("data", type_=Text),
            bindparam("now", type_=DateTime),
        ).where(exists().where(_E.c.table_id == bindparam("tid"), _E.c.version == bindparam("prev"))),
    )
    .returning(_E.c.version)
)
_SNAPSHOT = (
    update(_T)
    .where(_T.c.id == bindparam("tid"), _T.c.version < bindparam("new"))
    .values(version=bindparam("new"), record=bindparam("rec"), finished=bindparam("fin"), updated_at=bindparam("now"))
)


class StoreConflict(RuntimeError):
    """A write lost a race: the version was taken or the seat was no longer open."""


@dataclass
class SeatRow:
    seat: int
    kind: str  # human | bot | open
    name: str
    token_hash: str | None = None
    bot: str | None = None
    profile_id: str | None = None  # the player's profile, where they have one
    assisted: bool = False  # asked the coach, or a bot played one of their turns


@dataclass
class TableRow:
    id: str
    name: str
    rules: Any
    listed: bool
    duplicate: bool
    seed: str | None
    record: dict[str, Any]  # a snapshot: the game record (pending turns included) at `version`
    version: int = 0  # the snapshot's version; the log may be ahead
    finished: bool = False
    rematch: str | None = None
    seats: list[SeatRow] = field(default_factory=list)
    created_at: datetime | None = None
    fairness: dict[str, Any] | None = None  # the dice commitment, with its secret seed
    settings: dict[str, Any] | None = None


@dataclass
class KeeperRow:
    """A score-keeper sheet: a snapshot of its record (RULES.md section 11) at `version`."""

    id: str
    code: str
    name: str
    record: dict[str, Any]
    version: int = 0
    finished: bool = False


@dataclass
class EventRow:
    version: int
    seat: int
    type: str
    data: dict[str, Any]


@dataclass
class EntryRow:
    version: int
    kind: str
    data: dict[str, Any] | None


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
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


Op = Callable[[Connection], Any]


class _Writer(threading.Thread):
    """Group commit: every operation waiting when a transaction starts shares it, on one connection
    that the writer keeps (no checkout or ping per transaction: few GIL hand-offs per commit)."""

    def __init__(self, engine: Engine, max_batch: int = 256) -> None:
        super().__init__(name="yambak-store-writer", daemon=True)
        self.engine = engine
        self.max_batch = max_batch
        self.queue: queue.SimpleQueue[tuple[Op, concurrent.futures.Future[Any]] | None] = queue.SimpleQueue()
        self.batches = 0  # transactions committed (for tests and metrics)
        self._conn: Connection | None = None

    def run(self) -> None:
        stop = False
        try:
            while not stop:
                item = self.queue.get()
                if item is None:
                    return
                batch = [item]
                while len(batch) < self.max_batch:
                    try:
                        more = self.queue.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stop = True
                        break
                    batch.append(more)
                self._run(batch)
        finally:
            if self._conn is not None:
                self._conn.close()

    def _transaction(self, ops: list[Op]) -> list[Any]:
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

    def _run(self, batch: list[tuple[Op, concurrent.futures.Future[Any]]]) -> None:
        live = [(op, fut) for op, fut in batch if fut.set_running_or_notify_cancel()]
        if not live:
            return
        if len(live) > 1:
            try:
                results = self._transaction([op for op, _ in live])
            except Exception:  # one of them failed: each alone, so that only it fails
                pass
            else:
                self.batches += 1
                for (_, fut), result in zip(live, results, strict=True):
                    fut.set_result(result)
                return
        for op, fut in live:
            try:
                result = self._transaction([op])[0]
            except IntegrityError as exc:
                fut.set_exception(StoreConflict(f"already stored: {str(exc.orig)[:200]}"))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                fut.set_exception(exc)
            else:
                self.batches += 1
                fut.set_result(result)


class Store(ProfileStore, DealStore):
    def __init__(self, url: str | None = None, migrate: bool = True) -> None:
        self.url = url or os.environ.get("YAMBAK_DATABASE_URL") or DEFAULT_URL
        self.engine = make_engine(self.url)
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
            writer.queue.put(None)
            writer.join(10)
        self.engine.dispose()

    # --- off the event loop ----------------------------------------------------------------------

    def submit(self, op: Callable[[Connection], T]) -> concurrent.futures.Future[T]:
        """Queue a write for the writer thread; it runs in a transaction shared with the others waiting."""
        with self._writer_lock:
            if self._writer is None:
                self._writer = _Writer(self.engine)
                self._writer.start()
            writer = self._writer
        fut: concurrent.futures.Future[T] = concurrent.futures.Future()
        writer.queue.put((op, fut))
        return fut

    async def write(self, op: Callable[[Connection], T]) -> T:
        """A write, committed (StoreConflict when it lost a race), without blocking the event loop."""
        return await asyncio.wrap_future(self.submit(op))

    async def read(self, fn: Callable[..., T], *args: Any) -> T:
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
    def create_table_op(table: TableRow) -> Op:
        def op(conn: Connection) -> None:
            now = _now()
            conn.execute(
                insert(GameTable).values(
                    id=table.id,
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
                conn.execute(
                    insert(Seat),
                    [
                        {
                            "table_id": table.id,
                            "seat": s.seat,
                            "kind": s.kind,
                            "name": s.name,
                            "token_hash": s.token_hash,
                            "bot": s.bot,
                            "profile_id": s.profile_id,
                            "assisted": s.assisted,
                        }
                        for s in table.seats
                    ],
                )

        return op

    def create_table(self, table: TableRow) -> None:
        self._sync(self.create_table_op(table))

    @staticmethod
    def claim_seat_op(table_id: str, seat: int, name: str, token_hash: str, profile_id: str | None = None) -> Op:
        def op(conn: Connection) -> None:
            res = conn.execute(
                update(Seat)
                .where(Seat.table_id == table_id, Seat.seat == seat, Seat.kind == "open")
                .values(kind="human", name=name, token_hash=token_hash, profile_id=profile_id)
            )
            if res.rowcount != 1:
                raise StoreConflict(f"seat {seat} is not open")

        return op

    @staticmethod
    def seat_token_op(table_id: str, seat: int, profile_id: str, token_hash: str) -> Op:
        """A profile's seat gets a new token (its owner plays on from another device)."""

        def op(conn: Connection) -> None:
            conn.execute(
                update(Seat)
                .where(Seat.table_id == table_id, Seat.seat == seat, Seat.profile_id == profile_id)
                .values(token_hash=token_hash)
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
        data: dict[str, Any],
        snapshot: dict[str, Any] | None = None,
        finished: bool = False,
    ) -> Op:
        def op(conn: Connection) -> None:
            now = _now()
            row = {"tid": table_id, "new": version, "seat": seat, "kind": type_, "data": json.dumps(data), "now": now}
            if version == 1:
                conn.execute(_LOG, row)
            elif conn.execute(_LOG_NEXT, {**row, "prev": version - 1}).first() is None:
                raise StoreConflict(f"table {table_id}: version {version} is not next")
            if snapshot is not None:
                conn.execute(_SNAPSHOT, {"tid": table_id, "new": version, "rec": snapshot, "fin": finished, "now": now})

        return op

    def append(
        self,
        table_id: str,
        version: int,
        seat: int,
        type_: str,
        data: dict[str, Any],
        snapshot: dict[str, Any] | None = None,
        finished: bool = False,
    ) -> None:
        """Log one accepted action as event `version` (the log must hold version - 1), with a snapshot
        of the record at that version when given. StoreConflict when the version is taken or not next."""
        self._sync(self.append_op(table_id, version, seat, type_, data, snapshot, finished))

    @staticmethod
    def snapshot_op(table_id: str, version: int, record: dict[str, Any], finished: bool) -> Op:
        def op(conn: Connection) -> None:
            conn.execute(_SNAPSHOT, {"tid": table_id, "new": version, "rec": record, "fin": finished, "now": _now()})

        return op

    @staticmethod
    def fairness_op(table_id: str, fairness: dict[str, Any]) -> Op:
        def op(conn: Connection) -> None:
            conn.execute(update(GameTable).where(GameTable.id == table_id).values(fairness=fairness))

        return op

    @staticmethod
    def set_rematch_op(table_id: str, rematch: str) -> Op:
        def op(conn: Connection) -> None:
            conn.execute(update(GameTable).where(GameTable.id == table_id).values(rematch=rematch))

        return op

    def set_rematch(self, table_id: str, rematch: str) -> None:
        self._sync(self.set_rematch_op(table_id, rematch))

    # --- tables: reading -----------------------------------------------------------------------

    def _seats(self, conn: Any, table_ids: list[str]) -> dict[str, list[SeatRow]]:
        out: dict[str, list[SeatRow]] = {t: [] for t in table_ids}
        if not table_ids:
            return out
        for s in conn.execute(
            select(Seat.table_id, Seat.seat, Seat.kind, Seat.name, Seat.token_hash, Seat.bot)
            .add_columns(Seat.profile_id, Seat.assisted)
            .where(Seat.table_id.in_(table_ids))
            .order_by(Seat.table_id, Seat.seat)
        ):
            out[s.table_id].append(SeatRow(s.seat, s.kind, s.name, s.token_hash, s.bot, s.profile_id, bool(s.assisted)))
        return out

    def _rows(self, where: Any = None, limit: int | None = None) -> list[TableRow]:
        with self.engine.connect() as conn:
            q = select(GameTable)
            if where is not None:
                q = q.where(where)
            q = q.order_by(GameTable.created_at.desc())
            if limit:
                q = q.limit(limit)
            tables = list(conn.execute(q).mappings())
            seats = self._seats(conn, [t["id"] for t in tables])
            return [
                TableRow(
                    id=t["id"],
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

    def get_table(self, table_id: str) -> TableRow | None:
        rows = self._rows(GameTable.id == table_id)
        return rows[0] if rows else None

    def tables(
        self, unfinished_only: bool = False, limit: int | None = None, listed_only: bool = False
    ) -> list[TableRow]:
        conditions = []
        if unfinished_only:
            conditions.append(GameTable.finished.is_(False))
        if listed_only:
            conditions.append(GameTable.listed.is_(True))
        where = and_(*conditions) if conditions else None
        return self._rows(where, limit)

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
            made_q = select(GameTable.id, GameTable.created_at).where(GameTable.id.in_(table_ids))
            made = dict(conn.execute(made_q).all())
        now = _now()
        return {t: (now - (last.get(t) or made[t])).total_seconds() for t in table_ids if t in made}

    def unfinished_ids(self) -> list[str]:
        with self.engine.connect() as conn:
            return list(conn.execute(select(GameTable.id).where(GameTable.finished.is_(False))).scalars())

    def unfinished_with_bots(self) -> list[str]:
        with self.engine.connect() as conn:
            q = select(GameTable.id).where(
                GameTable.finished.is_(False), GameTable.id.in_(select(Seat.table_id).where(Seat.kind == "bot"))
            )
            return list(conn.execute(q).scalars())

    def events(self, table_id: str, since: int = 0) -> list[EventRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Event.version, Event.seat, Event.type, Event.data)
                .where(Event.table_id == table_id, Event.version > since)
                .order_by(Event.version)
            )
            return [EventRow(r.version, r.seat, r.type, json.loads(r.data)) for r in rows]

    def last_events(self, table_id: str, n: int) -> list[EventRow]:
        """The newest `n` events, oldest first."""
        with self.engine.connect() as conn:
            rows = list(
                conn.execute(
                    select(Event.version, Event.seat, Event.type, Event.data)
                    .where(Event.table_id == table_id)
                    .order_by(Event.version.desc())
                    .limit(n)
                )
            )
        return [EventRow(r.version, r.seat, r.type, json.loads(r.data)) for r in reversed(rows)]

    def table_versions(self, table_ids: list[str]) -> dict[str, int]:
        """Each table's newest version: its log's last event (or its snapshot's, with no event yet)."""
        return self._versions(GameTable.id, GameTable.version, Event.table_id, Event.version, table_ids)

    def sheet_versions(self, sheet_ids: list[str]) -> dict[str, int]:
        """Each score sheet's newest version: its log's last entry (or its snapshot's)."""
        return self._versions(KeeperSheet.id, KeeperSheet.version, KeeperEntry.sheet_id, KeeperEntry.version, sheet_ids)

    def _versions(self, row_id: Any, row_version: Any, log_id: Any, log_version: Any, ids: list[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        with self.engine.connect() as conn:
            for i in range(0, len(ids), 500):
                chunk = ids[i : i + 500]
                out.update({r[0]: r[1] for r in conn.execute(select(row_id, row_version).where(row_id.in_(chunk)))})
                newest = select(log_id, func.max(log_version)).where(log_id.in_(chunk)).group_by(log_id)
                for object_id, version in conn.execute(newest):
                    out[object_id] = max(out.get(object_id, 0), version or 0)
        return out

    def seat_versions(self, table_id: str) -> dict[int, int]:
        """Each seat's newest event version."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Event.seat, func.max(Event.version)).where(Event.table_id == table_id).group_by(Event.seat)
            )
            return {int(seat): int(v) for seat, v in rows}

    def load_table(self, table_id: str, history: int = 200) -> tuple[TableRow, list[EventRow], list[EventRow]] | None:
        """What a table rebuilds from: its row (snapshot), the events after the snapshot, and the newest
        `history` events (for reconnecting clients)."""
        row = self.get_table(table_id)
        if row is None:
            return None
        after = self.events(table_id, since=row.version)
        recent = after[-history:] if len(after) >= history else self.last_events(table_id, history)
        return row, after, recent

    # --- score-keeper sheets ------------------------------------------------------------------

    @staticmethod
    def create_sheet_op(sheet: KeeperRow) -> Op:
        def op(conn: Connection) -> None:
            now = _now()
            conn.execute(
                insert(KeeperSheet).values(
                    id=sheet.id,
                    code=sheet.code,
                    name=sheet.name,
                    version=sheet.version,
                    finished=sheet.finished,
                    record=sheet.record,
                    created_at=now,
                    updated_at=now,
                )
            )

        return op

    def create_sheet(self, sheet: KeeperRow) -> None:
        """Store a new sheet; raises StoreConflict when its id or join code is taken."""
        self._sync(self.create_sheet_op(sheet))

    def _sheet(self, where: Any) -> KeeperRow | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(KeeperSheet).where(where)).mappings().first()
        if r is None:
            return None
        return KeeperRow(r["id"], r["code"], r["name"], r["record"], r["version"], r["finished"])

    def get_sheet(self, sheet_id: str) -> KeeperRow | None:
        return self._sheet(KeeperSheet.id == sheet_id)

    def sheet_by_code(self, code: str) -> KeeperRow | None:
        return self._sheet(KeeperSheet.code == code)

    @staticmethod
    def append_entry_op(
        sheet_id: str,
        version: int,
        entry_id: str,
        kind: str,
        data: dict[str, Any] | None,
        snapshot: dict[str, Any] | None = None,
        finished: bool = False,
    ) -> Op:
        def op(conn: Connection) -> None:
            now = _now()
            if version > 1:
                prev = conn.execute(
                    select(KeeperEntry.version).where(
                        KeeperEntry.sheet_id == sheet_id, KeeperEntry.version == version - 1
                    )
                ).first()
                at = conn.execute(select(KeeperSheet.version).where(KeeperSheet.id == sheet_id)).scalar()
                if prev is None and at != version - 1:
                    raise StoreConflict(f"sheet {sheet_id}: version {version} is not next")
            conn.execute(
                insert(KeeperEntry).values(
                    sheet_id=sheet_id,
                    entry_id=entry_id,
                    version=version,
                    kind=kind,
                    data=json.dumps(data) if data is not None else None,
                    created_at=now,
                )
            )
            if snapshot is not None:
                conn.execute(
                    update(KeeperSheet)
                    .where(KeeperSheet.id == sheet_id, KeeperSheet.version < version)
                    .values(version=version, record=snapshot, finished=finished, updated_at=now)
                )

        return op

    def append_entry(
        self,
        sheet_id: str,
        version: int,
        entry_id: str,
        kind: str,
        data: dict[str, Any] | None,
        snapshot: dict[str, Any] | None = None,
        finished: bool = False,
    ) -> None:
        """Log one accepted entry as `version` (the log must hold version - 1) under its client id, with a
        snapshot of the record when given. StoreConflict when the version or the id is taken."""
        self._sync(self.append_entry_op(sheet_id, version, entry_id, kind, data, snapshot, finished))

    def entries(self, sheet_id: str, since: int = 0) -> list[EntryRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(KeeperEntry.version, KeeperEntry.kind, KeeperEntry.data)
                .where(KeeperEntry.sheet_id == sheet_id, KeeperEntry.version > since)
                .order_by(KeeperEntry.version)
            )
            return [EntryRow(r.version, r.kind, json.loads(r.data) if r.data else None) for r in rows]

    def entry_version(self, sheet_id: str, entry_id: str) -> int | None:
        """The version an entry id made, if it was applied."""
        with self.engine.connect() as conn:
            return conn.execute(
                select(KeeperEntry.version).where(KeeperEntry.sheet_id == sheet_id, KeeperEntry.entry_id == entry_id)
            ).scalar()

    # --- health ----------------------------------------------------------------------------------

    def ping(self) -> bool:
        with self.engine.connect() as conn:
            return conn.execute(text("SELECT 1")).scalar() == 1
