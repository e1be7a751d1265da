"""Statements of the hot paths compiled once per dialect and handed to the driver as text, and the writes
made of them alone (`Statements`), which the writer sends to PostgreSQL as one message."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

from sqlalchemy.engine import Connection, Dialect

__all__ = ["DriverStatement", "Statements", "Step"]

T = TypeVar("T")

Compiled = tuple[str, tuple[str, ...] | None, dict[str, Callable[[Any], Any]]]


class DriverStatement:
    """A statement compiled once per dialect and handed to the driver as text: SQLAlchemy's per-execution
    work (caching key, parameter processing, result wrapping) on the insert every action makes was 40% of
    the writer's CPU for it (a micro-benchmark: 0.50 -> 0.31 ms per write). The turns' rows, written with
    every event that starts or ends a turn, went through the ORM's insert: 0.6 ms more of the event loop's
    CPU per such write (PostgreSQL), 0.3 ms this way. Parameters a dialect's driver cannot take as they are
    (SQLite's datetimes, PostgreSQL's JSON) go through the type's own bind processor.

    `guarded`: the statement returns the rows it wrote, and writing none is a failure of the transaction
    (the insert of event v on top of v - 1): sent among others in one message, where nothing can look at its
    rows in between, it is wrapped so that writing none raises in the database (`literal`)."""

    def __init__(self, construct: Any, guarded: bool = False) -> None:
        self.construct = construct
        self.guarded = guarded
        self._compiled: dict[str, Compiled] = {}

    def _for(self, dialect: Dialect) -> Compiled:
        found = self._compiled.get(dialect.name)
        if found is None:
            compiled = self.construct.compile(dialect=dialect)
            names = tuple(compiled.positiontup or ()) if compiled.positional else None
            processors = {}
            for bind in compiled.binds.values():
                processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
                if processor is not None:
                    processors[bind.key] = processor
            found = self._compiled[dialect.name] = (str(compiled), names, processors)
        return found

    @staticmethod
    def _processed(processors: dict[str, Callable[[Any], Any]], params: dict[str, object]) -> dict[str, object]:
        if not processors:
            return params
        return {**params, **{key: processor(params[key]) for key, processor in processors.items()}}

    def execute(self, conn: Connection, params: dict[str, object]) -> Any:
        """Run it with these parameters; its result."""
        sql, names, processors = self._for(conn.dialect)
        params = self._processed(processors, params)
        args = params if names is None else tuple(params[n] for n in names)
        return conn.exec_driver_sql(sql, args)

    def literal(
        self, dialect: Dialect, params: dict[str, object], bind: Callable[[str, dict[str, object]], str]
    ) -> str:
        """The statement with its values written in (`bind`: the driver's own quoting, psycopg's `mogrify`),
        for a message of several statements; a guarded one fails (division by zero) when it writes no row."""
        sql, _, processors = self._for(dialect)
        text = bind(sql, self._processed(processors, params))
        # count(*) is no constant, so PostgreSQL cannot fold the division before the insert has run
        return f"WITH written AS ({text}) SELECT 1 / count(*) FROM written" if self.guarded else text


Step = tuple[DriverStatement, dict[str, object]]


class Statements(Generic[T]):
    """A write made of driver statements only, in order, none of whose rows decides what comes next (a
    guarded statement's check is made by the database), whose outcome is known before it runs (`result`).

    On PostgreSQL the writer sends every such write waiting, each statement with its values written in, as
    one message: PostgreSQL runs a message of several statements as one transaction, committed before it
    answers, rolled back whole if one fails. One round trip instead of a BEGIN, one per statement and a
    COMMIT; on the event loop, each of them cost about 0.1 ms of CPU (the driver's wait, the socket's
    system calls), and SQLAlchemy's asynchronous layers as much again (`bench/writer.py`). When that
    message fails, each write is made again alone, as any other (`run`: a guarded insert finds out why,
    and raises StoreConflict or RefTaken); SQLite always runs `run`."""

    def __init__(self, steps: Iterable[Step], result: T, run: Callable[[Connection], T] | None = None) -> None:
        self.steps = tuple(steps)
        self.result = result
        self._run = run

    def __call__(self, conn: Connection) -> T:
        if self._run is not None:
            return self._run(conn)
        for statement, params in self.steps:
            statement.execute(conn, params)
        return self.result

    @staticmethod
    def chain(parts: Iterable[Statements[Any]], result: T) -> Statements[T]:
        """These writes, one after another, as one."""
        parts = tuple(parts)

        def run(conn: Connection) -> T:
            for part in parts:
                part(conn)
            return result

        return Statements([step for part in parts for step in part.steps], result, run)

    def literal(self, dialect: Dialect, bind: Callable[[str, dict[str, object]], str]) -> str:
        return ";".join(statement.literal(dialect, params, bind) for statement, params in self.steps)
