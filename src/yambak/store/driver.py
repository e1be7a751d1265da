"""Statements of the hot paths compiled once per dialect and handed to the driver as text."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.engine import Connection

__all__ = ["DriverStatement"]


class DriverStatement:
    """A statement compiled once per dialect and handed to the driver as text: SQLAlchemy's per-execution
    work (caching key, parameter processing, result wrapping) on the insert every action makes was 40% of
    the writer's CPU for it (a micro-benchmark: 0.50 -> 0.31 ms per write). The turns' rows, written with
    every event that starts or ends a turn, went through the ORM's insert: 0.6 ms more of the event loop's
    CPU per such write (PostgreSQL), 0.3 ms this way. Parameters a dialect's driver cannot take as they are
    (SQLite's datetimes) go through the type's own bind processor."""

    def __init__(self, construct: Any) -> None:
        self.construct = construct
        self._compiled: dict[str, tuple[str, tuple[str, ...] | None, dict[str, Callable[[Any], Any]]]] = {}

    def _for(self, conn: Connection) -> tuple[str, tuple[str, ...] | None, dict[str, Callable[[Any], Any]]]:
        dialect = conn.dialect
        compiled = self.construct.compile(dialect=dialect)
        names = tuple(compiled.positiontup or ()) if compiled.positional else None
        processors = {}
        for bind in compiled.binds.values():
            processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if processor is not None:
                processors[bind.key] = processor
        return str(compiled), names, processors

    def execute(self, conn: Connection, params: dict[str, Any]) -> Any:
        """Run it with these parameters (consumed: replaced by what the driver takes); its result."""
        found = self._compiled.get(conn.dialect.name)
        if found is None:
            found = self._compiled[conn.dialect.name] = self._for(conn)
        sql, names, processors = found
        for key, processor in processors.items():
            params[key] = processor(params[key])
        args = params if names is None else tuple(params[n] for n in names)
        return conn.exec_driver_sql(sql, args)
