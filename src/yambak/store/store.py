"""The store: one small interface over SQLAlchemy 2, SQLite (WAL) or PostgreSQL."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import Table, bindparam, create_engine, event, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from .models import Event, GameTable, KeeperEntry, KeeperSheet, Seat

__all__ = ["DEFAULT_URL", "Store", "StoreConflict", "TableRow", "SeatRow", "EventRow", "KeeperRow"]

DEFAULT_URL = "sqlite:///var/yambak.db"
_MIGRATIONS = Path(__file__).with_name("migrations")

# The hot path, built once: advance a table's version with its record, and log the event.
_T, _E = cast(Table, GameTable.__table__), cast(Table, Event.__table__)
_ADVANCE = (
    update(_T)
    .where(_T.c.id == bindparam("tid"), _T.c.version == bindparam("prev"))
    .values(version=bindparam("new"), record=bindparam("rec"), finished=bindparam("fin"), updated_at=bindparam("now"))
)
_LOG = insert(_E).values(
    table_id=bindparam("tid"),
    version=bindparam("new"),
    seat=bindparam("seat"),
    type=bindparam("kind"),
    data=bindparam("data"),
    created_at=bindparam("now"),
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


@dataclass
class TableRow:
    id: str
    name: str
    rules: Any
    listed: bool
    duplicate: bool
    seed: str | None
    record: dict[str, Any]
    version: int = 0
    finished: bool = False
    rematch: str | None = None
    seats: list[SeatRow] = field(default_factory=list)
    created_at: datetime | None = None
    settings: dict[str, Any] | None = None


@dataclass
class KeeperRow:
    """A score-keeper sheet: its record (RULES.md section 11) at `version` (one per accepted entry)."""

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


class Store:
    def __init__(self, url: str | None = None, migrate: bool = True) -> None:
        self.url = url or os.environ.get("YAMBAK_DATABASE_URL") or DEFAULT_URL
        self.engine = make_engine(self.url)
        if migrate:
            self.migrate()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def migrate(self) -> None:
        """Bring the schema to the newest Alembic revision."""
        cfg = Config()
        cfg.set_main_option("script_location", str(_MIGRATIONS))
        with self.engine.begin() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def close(self) -> None:
        self.engine.dispose()

    # --- writing ---------------------------------------------------------------------------

    def create_table(self, table: TableRow) -> None:
        now = _now()
        with self.engine.begin() as conn:
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
                        }
                        for s in table.seats
                    ],
                )

    def claim_seat(self, table_id: str, seat: int, name: str, token_hash: str, record: dict[str, Any]) -> None:
        """Turn an open seat into a player's; raises StoreConflict when it was taken meanwhile."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(Seat)
                .where(Seat.table_id == table_id, Seat.seat == seat, Seat.kind == "open")
                .values(kind="human", name=name, token_hash=token_hash)
            )
            if res.rowcount != 1:
                raise StoreConflict(f"seat {seat} is not open")
            conn.execute(update(GameTable).where(GameTable.id == table_id).values(record=record, updated_at=_now()))

    def append(
        self,
        table_id: str,
        version: int,
        seat: int,
        type_: str,
        data: dict[str, Any],
        record: dict[str, Any],
        finished: bool,
    ) -> None:
        """Store one accepted action as event `version` (the previous must be version - 1)."""
        now = _now()
        try:
            with self.engine.begin() as conn:
                res = conn.execute(
                    _ADVANCE,
                    {"tid": table_id, "prev": version - 1, "new": version, "rec": record, "fin": finished, "now": now},
                )
                if res.rowcount != 1:
                    raise StoreConflict(f"table {table_id}: version {version} is not next")
                conn.execute(
                    _LOG,
                    {
                        "tid": table_id,
                        "new": version,
                        "seat": seat,
                        "kind": type_,
                        "data": json.dumps(data),
                        "now": now,
                    },
                )
        except IntegrityError as exc:
            raise StoreConflict(f"table {table_id}: version {version} already stored") from exc

    def set_rematch(self, table_id: str, rematch: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(GameTable).where(GameTable.id == table_id).values(rematch=rematch))

    # --- reading ---------------------------------------------------------------------------

    def _seats(self, conn: Any, table_ids: list[str]) -> dict[str, list[SeatRow]]:
        out: dict[str, list[SeatRow]] = {t: [] for t in table_ids}
        if not table_ids:
            return out
        for s in conn.execute(
            select(Seat.table_id, Seat.seat, Seat.kind, Seat.name, Seat.token_hash, Seat.bot)
            .where(Seat.table_id.in_(table_ids))
            .order_by(Seat.table_id, Seat.seat)
        ):
            out[s.table_id].append(SeatRow(s.seat, s.kind, s.name, s.token_hash, s.bot))
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
                    settings=t["settings"],
                )
                for t in tables
            ]

    def get_table(self, table_id: str) -> TableRow | None:
        rows = self._rows(GameTable.id == table_id)
        return rows[0] if rows else None

    def tables(self, unfinished_only: bool = False, limit: int | None = None) -> list[TableRow]:
        return self._rows(GameTable.finished.is_(False) if unfinished_only else None, limit)

    def events(self, table_id: str, since: int = 0) -> list[EventRow]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(Event.version, Event.seat, Event.type, Event.data)
                .where(Event.table_id == table_id, Event.version > since)
                .order_by(Event.version)
            )
            return [EventRow(r.version, r.seat, r.type, json.loads(r.data)) for r in rows]

    # --- score-keeper sheets ------------------------------------------------------------------

    def create_sheet(self, sheet: KeeperRow) -> None:
        """Store a new sheet; raises StoreConflict when its id or join code is taken."""
        now = _now()
        try:
            with self.engine.begin() as conn:
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
        except IntegrityError as exc:
            raise StoreConflict(f"sheet {sheet.id} / code {sheet.code} exists") from exc

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

    def advance_sheet(
        self, sheet_id: str, version: int, record: dict[str, Any], finished: bool, entry_id: str, kind: str
    ) -> None:
        """Store the record after one accepted entry as `version` (the stored one must be version - 1),
        and remember the entry's id, in one transaction. StoreConflict when either is taken."""
        now = _now()
        try:
            with self.engine.begin() as conn:
                res = conn.execute(
                    update(KeeperSheet)
                    .where(KeeperSheet.id == sheet_id, KeeperSheet.version == version - 1)
                    .values(version=version, record=record, finished=finished, updated_at=now)
                )
                if res.rowcount != 1:
                    raise StoreConflict(f"sheet {sheet_id}: version {version} is not next")
                conn.execute(
                    insert(KeeperEntry).values(
                        sheet_id=sheet_id, entry_id=entry_id, version=version, kind=kind, created_at=now
                    )
                )
        except IntegrityError as exc:
            raise StoreConflict(f"sheet {sheet_id}: entry {entry_id} already stored") from exc

    def entry_version(self, sheet_id: str, entry_id: str) -> int | None:
        """The version an entry id made, if it was applied."""
        with self.engine.connect() as conn:
            return conn.execute(
                select(KeeperEntry.version).where(KeeperEntry.sheet_id == sheet_id, KeeperEntry.entry_id == entry_id)
            ).scalar()
