#!/usr/bin/env python3
"""The event loop's CPU per write of the store's writer on PostgreSQL, alone (what `bench/load.py` counts in
"sockets/JSON/validation/rest": on PostgreSQL the writer's transactions run on the event loop).

`--tables` sessions each log `--events` events one after another (a roll-sized event, a snapshot every 50,
the turns' rows rewritten every third event, as a table's action writes them), all at once: as many writes
wait for the writer at any time as there are tables, so 1 is a quiet server (one write per transaction)
and 16 a busy one. A fresh database each run (`--db`: a URL whose user may create databases). Run two trees
in turn to compare them (PYTHONPATH=OTHER/src python bench/writer.py).

    .venv/bin/python bench/writer.py --db postgresql+psycopg://yambak:yambak@127.0.0.1:5432/postgres [--tables 1 4 16]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from datetime import UTC, datetime

from sqlalchemy import create_engine, text

from yambak.store import Op, SessionRow, Store, TurnRow

try:
    from yambak.store import Statements
except ImportError:  # a tree from before the writer sent statements as one message
    Statements = None  # type: ignore[assignment,misc]

EVENT = {"type": "rolled", "player": 0, "dice": [1, 2, 3, 4, 5], "held": [0, 1], "roll": 2, "game_over": False}


async def run(store: Store, tables: int, events: int) -> tuple[float, int]:
    """Loop CPU seconds per write, and the transactions made."""
    ids = [uuid.uuid4().hex[:16] for _ in range(tables)]
    for tid in ids:
        store.create(SessionRow(tid, "bench", "yams", False, False, None, {"turns": []}))
    now = datetime.now(UTC).replace(tzinfo=None)

    async def table(tid: str) -> None:
        for v in range(1, events + 1):
            snapshot = {"turns": [], "v": v} if v % 50 == 0 else None
            op = Store.append_op(tid, v, 0, "rolled", EVENT, snapshot, ref=f"r{v}")
            if v % 3 == 0:  # the two writes in one, as `SessionManager.commit` makes them
                turns = Store.turns_op(tid, [TurnRow(v % 2, now)])
                both: Op = lambda conn, op=op, turns=turns: (op(conn), turns(conn))  # noqa: E731
                await store.write(Statements.chain([op, turns], None) if Statements is not None else both)
            else:
                await store.write(op)

    await store.write(lambda _conn: None)  # the writer up, its connections made
    before = store._writer.batches if store._writer else 0
    cpu = time.thread_time()
    await asyncio.gather(*(table(t) for t in ids))
    cpu = time.thread_time() - cpu
    made = (store._writer.batches if store._writer else 0) - before
    await store.aclose()
    return cpu / (tables * events), made


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", required=True)
    p.add_argument("--tables", type=int, nargs="+", default=[1, 4, 16])
    p.add_argument("--events", type=int, default=300)
    args = p.parse_args()
    try:
        import uvloop  # the server's loop (uvicorn[standard])

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    admin = create_engine(args.db, isolation_level="AUTOCOMMIT")
    for tables in args.tables:
        name = f"yambak_writer_{uuid.uuid4().hex[:8]}"
        with admin.connect() as conn:
            conn.execute(text(f"CREATE DATABASE {name}"))
        try:
            store = Store(args.db.rsplit("/", 1)[0] + "/" + name)
            per, made = runner(run(store, tables, args.events))
            store.close()
            writes = tables * args.events
            print(f"{tables:3} tables: {per * 1e6:5.0f} us of loop CPU per write ({writes} writes, {made} commits)")
        finally:
            with admin.connect() as conn:
                conn.execute(text(f"DROP DATABASE {name} WITH (FORCE)"))
    admin.dispose()


if __name__ == "__main__":
    main()
