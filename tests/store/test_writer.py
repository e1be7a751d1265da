"""The store's writer thread: many writes share one commit; a conflicting one fails alone."""

from __future__ import annotations

import asyncio
import secrets
from datetime import datetime

import pytest

from yambak.store import RefTaken, SeatRow, SessionRow, Statements, Store, StoreConflict, TurnRow


def _table(store: Store) -> str:
    tid = secrets.token_urlsafe(9)
    record = {"format": "yambak-game/1", "rules": "yams", "players": ["Ann"], "seed": None, "turns": []}
    store.create(SessionRow(tid, "T", "yams", True, False, None, record, seats=[SeatRow(0, "human", "Ann")]))
    return tid


def test_group_commit_and_a_conflict_that_fails_alone(store):
    tables = [_table(store) for _ in range(20)]

    async def main(version: int, extra: list) -> list[object]:
        writes = [store.write(Store.append_op(t, version, 0, "rolled", {"n": i})) for i, t in enumerate(tables)]
        return await asyncio.gather(*writes, *[store.write(op) for op in extra], return_exceptions=True)

    assert asyncio.run(main(1, [])) == [None] * 20
    assert store._writer is not None and store._writer.batches <= 5  # twenty writes, a few commits
    conflicts = [
        Store.append_op(tables[0], 2, 0, "rolled", {"n": "again"}),  # version 2 twice
        Store.append_op(tables[1], 4, 0, "rolled", {}),  # a gap
    ]
    results = asyncio.run(main(2, conflicts))
    assert results[:20] == [None] * 20
    assert isinstance(results[20], StoreConflict) and isinstance(results[21], StoreConflict)
    assert all([e.version for e in store.events(t)] == [1, 2] for t in tables)
    assert store.events(tables[0])[1].data == {"n": 0}


def test_reads_off_the_loop(store):
    tid = _table(store)

    async def main() -> object:
        return await store.read(store.get_session, tid)

    assert asyncio.run(main()).id == tid
    with pytest.raises(StoreConflict):
        store.claim_seat(tid, 0, "Cleo", "c" * 64)  # not open


def test_a_write_given_up_before_it_started_is_not_made(store):
    """A coroutine cancelled while its write waits in the queue (a socket gone mid-action): the write is
    skipped; the one after it is committed and answered."""
    tid = _table(store)

    async def main() -> object:
        await store.write(lambda _conn: None)  # the writer is up, waiting for work
        given_up = asyncio.ensure_future(store.write(Store.append_op(tid, 1, 0, "rolled", {"n": "given up"})))
        await asyncio.sleep(0)  # queued, and the writer woken: it runs after this coroutine's next step
        given_up.cancel()
        return await store.write(Store.append_op(tid, 1, 0, "rolled", {"n": "after"}))

    assert asyncio.run(main()) is None
    assert [e.data for e in store.events(tid)] == [{"n": "after"}]


def test_a_slow_transaction_holds_neither_the_loop_nor_the_writes_behind_it(pg_store):
    """PostgreSQL: the writer's transactions run on the event loop's own connection, two at a time. While
    one waits on the database (here a sleep inside it), the loop runs, and another write commits."""
    tid = _table(pg_store)
    seen: list[str] = []

    async def ticker(stop: asyncio.Event) -> int:
        ticks = 0
        while not stop.is_set():
            await asyncio.sleep(0.01)
            ticks += 1
        return ticks

    async def main() -> int:
        await pg_store.write(lambda _conn: None)
        stop = asyncio.Event()
        ticks = asyncio.ensure_future(ticker(stop))
        slow = asyncio.ensure_future(
            pg_store.write(
                lambda conn: (seen.append("begun"), conn.exec_driver_sql("SELECT pg_sleep(1.0)"), seen.append("slow"))
            )
        )
        while "begun" not in seen:  # the slow one is in flight
            await asyncio.sleep(0.01)
        await pg_store.write(Store.append_op(tid, 1, 0, "rolled", {}))
        seen.append("quick")
        await slow
        stop.set()
        return await ticks

    assert asyncio.run(main()) >= 50  # the loop ticked through the second (about 100 ticks of 10 ms)
    assert seen == ["begun", "quick", "slow"] and [e.version for e in pg_store.events(tid)] == [1]


def test_statements_go_as_one_message_and_fail_whole(store):
    """Every action's write (`Statements`: the event, a snapshot, the turns' rows) goes with the others
    waiting in one message on PostgreSQL; values with quotes, backslashes and any script come back as they
    went; an event that is not next fails its whole write (its snapshot and turns' rows are not made), the
    others of the message are stored, and a ref logged before is told apart (RefTaken)."""
    tables = [_table(store) for _ in range(3)]
    odd = {"name": 'O\'Brien \\ "x" ; -- é 💥', "n": [1, 2]}
    now = datetime(2026, 12, 8, 1, 0, 0)

    async def main(ops: list) -> list[object]:
        return await asyncio.gather(*[store.write(op) for op in ops], return_exceptions=True)

    def action(t: str, v: int, ref: str, seat: int) -> Statements[list[object]]:
        logged = Store.append_op(t, v, 0, "rolled", odd, snapshot={"v": v, "odd": odd}, ref=ref)
        return Statements.chain([logged, Store.turns_op(t, [TurnRow(seat, now)])], [])

    assert asyncio.run(main([action(t, 1, "a'1", 0) for t in tables])) == [[], [], []]
    assert all(store.events(t)[0].data == odd and store.events(t)[0].ref == "a'1" for t in tables)
    assert store.get_session(tables[0]).record == {"v": 1, "odd": odd}
    results = asyncio.run(
        main([action(tables[0], 3, "b", 1), action(tables[1], 2, "a'1", 1), action(tables[2], 2, "c", 1)])
    )
    assert isinstance(results[0], StoreConflict) and not isinstance(results[0], RefTaken)  # a gap
    assert isinstance(results[1], RefTaken) and results[1].version == 1  # sent again
    assert results[2] == []
    for t, version, seat in ((tables[0], 1, 0), (tables[1], 1, 0), (tables[2], 2, 1)):
        assert [e.version for e in store.events(t)] == list(range(1, version + 1))
        assert store.get_session(t).version == version and store.turns_of(t) == {seat: TurnRow(seat, now)}


@pytest.mark.parametrize("synchronous", [True, False])
def test_the_writers_own_connection_commits_as_the_store_says(pg_database, synchronous):
    """`Store(synchronous=False)`: the commits of the writer's one-message batches are not waited on to
    reach the disk either; by default they are."""
    store = Store(pg_database, synchronous=synchronous)
    tid = _table(store)

    async def main() -> str:
        await store.write(Store.append_op(tid, 1, 0, "rolled", {}))
        assert store._writer is not None
        raw = next(c for c in store._writer._raw if c is not None)  # the batch went this way
        setting = await (await raw.execute("SHOW synchronous_commit")).fetchone()
        await store.aclose()
        return str(setting[0]) if setting else ""

    try:
        assert asyncio.run(main()) == ("on" if synchronous else "off")
        assert [e.version for e in store.events(tid)] == [1]
    finally:
        store.close()
