"""Groups of kept sheets in the store: codes unique, tokens per group, sheets filed once and gone with the
group or the sheet (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlalchemy import delete

from yambak.store import SessionRow, StoreConflict
from yambak.store.models import GameSession, SheetGroup


def _sheet(store, sid: str, code: str, finished: bool) -> None:
    record = {"format": "yambak-game/1", "rules": "yams", "players": ["Ann"], "seed": None, "turns": []}
    store.create(SessionRow(sid, f"Sheet {sid}", "yams", False, False, None, record, kind="sheet", code=code))
    if finished:
        store.append(sid, 1, 0, "dice", {"box": "x"}, {**record, "turns": [{"n": 1}]}, finished=True, ref="e-000001")


def test_groups_codes_tokens_and_sheets(store):
    store.create_group("g" * 16, "Ghent", "ABCDEF", "h1" * 32)
    with pytest.raises(StoreConflict):  # a code is one group's
        store.create_group("h" * 16, "Other", "ABCDEF", "h2" * 32)
    assert store.get_group("h" * 16) is None and store.group_by_code("ABCDEF").id == "g" * 16
    store.add_group_token("g" * 16, "h3" * 32)
    assert store.group_member("g" * 16, ["zz" * 32, "h3" * 32]) and store.group_member("g" * 16, ["h1" * 32])
    assert not store.group_member("g" * 16, ["zz" * 32]) and not store.group_member("g" * 16, [])
    _sheet(store, "s1" * 8, "SHEET1", finished=True)
    _sheet(store, "s2" * 8, "SHEET2", finished=False)
    assert store.add_group_sheet("g" * 16, "s1" * 8) and not store.add_group_sheet("g" * 16, "s1" * 8)
    assert store.add_group_sheet("g" * 16, "s2" * 8)
    rows = store.group_sheets("g" * 16)
    assert [(r.id, r.finished) for r in rows] == [("s1" * 8, True), ("s2" * 8, False)]
    assert rows[0].record["turns"] == [{"n": 1}] and rows[0].name == "Sheet " + "s1" * 8
    assert store.remove_group_sheet("g" * 16, "s2" * 8) and not store.remove_group_sheet("g" * 16, "s2" * 8)
    with store.engine.begin() as conn:  # a deleted sheet leaves its groups
        conn.execute(delete(GameSession).where(GameSession.id == "s1" * 8))
    assert store.group_sheets("g" * 16) == []
    store.add_group_sheet("g" * 16, "s2" * 8)
    with store.engine.begin() as conn:  # a deleted group takes its tokens and filings, never the sheets
        conn.execute(delete(SheetGroup).where(SheetGroup.id == "g" * 16))
    assert not store.group_member("g" * 16, ["h3" * 32]) and store.get_session("s2" * 8) is not None
