"""Kept sheets in the store: game sessions of kind "sheet", a join code, entries logged under their ids
(SQLite and PostgreSQL)."""

from __future__ import annotations

import secrets

import pytest

from yambak.store import SessionRow, StoreConflict


def _sheet(sid: str, code: str, name: str, record: dict) -> SessionRow:
    return SessionRow(sid, name, record["rules"], False, False, None, record, kind="sheet", code=code)


def test_sheet_versions_and_entry_ids(store):
    sid, code = secrets.token_hex(8), secrets.token_hex(3).upper()
    record = {"format": "yambak-game/1", "rules": "yams", "players": ["Ann"], "seed": None, "turns": []}
    store.create(_sheet(sid, code, "Kitchen", record))
    assert store.get_session(sid).version == 0 and store.session_by_code(code).id == sid
    assert store.get_session(sid).kind == "sheet" and store.get_session(sid, "table") is None
    with pytest.raises(StoreConflict):  # a join code is unique
        store.create(_sheet(secrets.token_hex(8), code, "Other", record))
    turn = {"player": 0, "rolls": [[6, 6, 6, 6, 6]], "box": "yam"}
    store.append(sid, 1, 0, "dice", {"box": "yam"}, {**record, "turns": [turn]}, finished=True, ref="entry-0001")
    row = store.get_session(sid)
    assert (row.version, row.finished, row.record["turns"]) == (1, True, [turn])
    assert store.ref_version(sid, "entry-0001") == 1 and store.ref_version(sid, "entry-0002") is None
    with pytest.raises(StoreConflict):  # version 1 is taken
        store.append(sid, 1, -1, "undo", None, ref="entry-0002")
    with pytest.raises(StoreConflict):  # an entry id is applied once, and nothing else changes with it
        store.append(sid, 2, -1, "undo", None, ref="entry-0001")
    assert store.get_session(sid).version == 1 and store.get_session(sid).record["turns"] == [turn]
    assert [e.ref for e in store.events(sid)] == ["entry-0001"]
    assert store.get_session("nope") is None and store.session_by_code("ZZZZZZ") is None
    assert sid not in {t.id for t in store.tables()}  # the lobby's list holds tables only


def test_a_table_is_never_found_by_a_sheets_code(store):
    record = {"format": "yambak-game/1", "rules": "yams", "players": ["Ann"], "seed": None, "turns": []}
    store.create(SessionRow("t" * 16, "T", "yams", True, False, None, record))
    assert store.get_session("t" * 16).kind == "table" and store.session_by_code("TTTTTT") is None
