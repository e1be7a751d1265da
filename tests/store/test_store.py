"""The store against SQLite and a real PostgreSQL: tables, seats, the event log, no duplicates."""

from __future__ import annotations

import secrets
import threading

import pytest
from sqlalchemy import inspect, text

from yambak.engine import Hold, Roll, Score, SeededDice, new_game, replay, state_to_record
from yambak.rules import load_ruleset
from yambak.store import SeatRow, SessionRow, Store, StoreConflict


def _table(store: Store, **kw) -> SessionRow:
    tid = secrets.token_urlsafe(9)
    row = SessionRow(
        tid,
        kw.get("name", "Ann's <table>"),
        "yams",
        kw.get("listed", True),
        False,
        None,
        {"format": "yambak-game/1", "rules": "yams", "players": ["Ann", "Seat 2"], "seed": None, "turns": []},
        seats=[SeatRow(0, "human", "Ann", "h" * 64), SeatRow(1, "open", "Seat 2")],
    )
    store.create(row)
    return row


def test_schema_is_migrated_and_migrating_again_is_a_no_op(store):
    store.migrate()
    names = set(inspect(store.engine).get_table_names())
    assert {"game_tables", "seats", "events", "graded_decisions", "trainer_positions", "alembic_version"} <= names
    assert not names & {"keeper_sheets", "keeper_entries"}  # one session model (0007)
    with store.engine.connect() as conn:
        assert conn.execute(text("select version_num from alembic_version")).scalar() == "0021"


def test_sqlite_runs_in_wal_mode(tmp_path):
    s = Store(f"sqlite:///{tmp_path}/wal.db")
    with s.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
    s.close()


def test_create_and_read_back(store):
    row = _table(store)
    got = store.get_session(row.id)
    assert got.name == "Ann's <table>" and got.rules == "yams" and got.version == 0
    assert [(s.seat, s.kind, s.name) for s in got.seats] == [(0, "human", "Ann"), (1, "open", "Seat 2")]
    assert got.record["players"] == ["Ann", "Seat 2"]
    assert store.get_session("nope") is None


def test_the_event_log_is_gapless_and_never_duplicated(store):
    row = _table(store)
    rules = load_ruleset("yams")
    state = new_game(rules, ["Ann", "Bram"], dice=SeededDice(3))
    actions = [Roll(0), Hold(0, (0, 1)), Roll(0), Score(0, "chance"), Roll(1)]
    for v, action in enumerate(actions, start=1):
        state, event = state.apply(action)
        snapshot = state_to_record(state).to_dict() if v == 5 else None  # a snapshot now and then
        store.append(row.id, v, event.player, event.type, event.to_dict(), snapshot)
    with pytest.raises(StoreConflict):  # the same version again
        store.append(row.id, 5, 1, "rolled", {})
    with pytest.raises(StoreConflict):  # a gap
        store.append(row.id, 7, 1, "rolled", {})
    events = store.events(row.id)
    assert [e.version for e in events] == [1, 2, 3, 4, 5]
    assert [e.type for e in events] == ["rolled", "held", "rolled", "scored", "rolled"]
    assert [e.version for e in store.events(row.id, since=3)] == [4, 5]
    got = store.get_session(row.id)
    assert got.version == 5
    assert replay(got.record).turns[1].dice == state.turns[1].dice  # the stored record resumes mid-turn


def test_concurrent_appends_store_each_version_once(store):
    row = _table(store)
    results = []

    def writer():
        try:
            store.append(row.id, 1, 0, "rolled", {"n": 1})
            results.append("ok")
        except StoreConflict:
            results.append("conflict")

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["conflict"] * 3 + ["ok"]
    assert [e.version for e in store.events(row.id)] == [1]


def test_claiming_a_seat_once(store):
    row = _table(store)
    store.claim_seat(row.id, 1, "Bram", "b" * 64)
    with pytest.raises(StoreConflict):
        store.claim_seat(row.id, 1, "Cleo", "c" * 64)
    with pytest.raises(StoreConflict):
        store.claim_seat(row.id, 0, "Cleo", "c" * 64)
    got = store.get_session(row.id)
    assert got.seats[1].name == "Bram" and got.seats[1].token_hash == "b" * 64


def test_unfinished_tables_and_rematch(store):
    a = _table(store)
    b = _table(store)
    store.append(b.id, 1, 0, "scored", {}, {"done": True}, finished=True)
    unfinished = {t.id for t in store.tables(unfinished_only=True)}
    assert a.id in unfinished and b.id not in unfinished
    store.set_rematch(b.id, a.id)
    assert store.get_session(b.id).rematch == a.id and store.get_session(b.id).finished


def test_a_load_never_holds_an_event_beyond_its_state(store, monkeypatch):
    """An event committed between a load's two reads (the events after the snapshot, then the recent
    history) is the next load's: the history a client is resynced from stops where the state does."""
    row = _table(store)
    store.append(row.id, 1, 0, "rolled", {"n": 1})
    read = store.events

    def then_another_commits(table_id, since=0):
        out = read(table_id, since)
        if not any(e.version == 2 for e in read(table_id)):
            store.append(row.id, 2, 0, "rolled", {"n": 2})  # the owner, in another process, meanwhile
        return out

    monkeypatch.setattr(store, "events", then_another_commits)
    _, after, recent = store.load_session(row.id)
    assert [e.version for e in after] == [1] and [e.version for e in recent] == [1]
    assert store.versions([row.id]) == {row.id: 2}  # the next look at the log sees it
