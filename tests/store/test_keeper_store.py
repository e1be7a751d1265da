"""Score-keeper sheets in the store: versioned records and applied entry ids (SQLite and PostgreSQL)."""

from __future__ import annotations

import secrets

import pytest

from yambak.store import KeeperRow, StoreConflict


def test_sheet_versions_and_entry_ids(store):
    sid, code = secrets.token_hex(8), secrets.token_hex(3).upper()
    record = {"format": "yambak-game/1", "rules": "yams", "players": ["Ann"], "seed": None, "turns": []}
    store.create_sheet(KeeperRow(sid, code, "Kitchen", record))
    assert store.get_sheet(sid).version == 0 and store.sheet_by_code(code).id == sid
    with pytest.raises(StoreConflict):  # a join code is unique
        store.create_sheet(KeeperRow(secrets.token_hex(8), code, "Other", record))
    turn = {"player": 0, "rolls": [[6, 6, 6, 6, 6]], "box": "yam"}
    store.append_entry(sid, 1, "entry-0001", "dice", {"box": "yam"}, {**record, "turns": [turn]}, finished=True)
    row = store.get_sheet(sid)
    assert (row.version, row.finished, row.record["turns"]) == (1, True, [turn])
    assert store.entry_version(sid, "entry-0001") == 1 and store.entry_version(sid, "entry-0002") is None
    with pytest.raises(StoreConflict):  # version 1 is taken
        store.append_entry(sid, 1, "entry-0002", "undo", None)
    with pytest.raises(StoreConflict):  # an entry id is applied once, and nothing else changes with it
        store.append_entry(sid, 2, "entry-0001", "undo", None)
    assert store.get_sheet(sid).version == 1 and store.get_sheet(sid).record["turns"] == [turn]
    assert store.get_sheet("nope") is None and store.sheet_by_code("ZZZZZZ") is None
