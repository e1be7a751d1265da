"""Profiles and results in the store, on SQLite and a real PostgreSQL: keys, one-time links, results
with personal bests, the statistics aggregates and histogram, and deletion that leaves no name behind."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from yambak.store import ResultRow, SeatRow, SessionRow, Store

T0 = datetime(2026, 3, 1, 12, 0)


def _profile(store: Store, name: str = "Ann") -> tuple[str, str]:
    pid, key = secrets.token_urlsafe(9), secrets.token_hex(32)
    store.create_profile(pid, name, key, T0)
    return pid, key


def _result(pid: str, score: int, n: int, **kw) -> ResultRow:
    base = dict(
        profile_id=pid, kind="table", ref=f"t{n}-{secrets.token_hex(3)}", seat=0, preset="yams", rules_id="yams",
        finished_at=T0 + timedelta(minutes=n), score=score, won=False, players=1, counted=True,
        bonus_columns=0, columns=1, yams=0, yam_boxes=1,
    )  # fmt: skip
    base.update(kw)
    return ResultRow(**base)


def test_keys_prove_a_profile_and_links_work_once(store):
    pid, key = _profile(store)
    assert store.profile_by_key(key).id == pid
    assert store.profile_by_key("0" * 64) is None
    store.add_link(pid, "l" * 64, T0 + timedelta(minutes=15), T0)
    assert store.profile_by_key("l" * 64) is None  # a link is no device key
    assert store.link_profile("l" * 64, T0).id == pid
    assert store.link_profile("l" * 64, T0 + timedelta(minutes=16)) is None
    assert store.claim_link("l" * 64, "d" * 64, T0) == pid
    assert store.claim_link("l" * 64, "e" * 64, T0) is None  # spent
    assert store.profile_by_key("d" * 64).id == pid and store.profile_by_key("e" * 64) is None


def test_personal_bests_and_statistics(store):
    pid, _ = _profile(store)
    other, _ = _profile(store, "Bram")
    rows = [
        _result(pid, 200, 1, bonus_columns=1, yams=1, accuracy=2.0, decisions=10, won=True, players=2),
        _result(pid, 250, 2, accuracy=1.0, decisions=30),  # a best: beats 200
        _result(pid, 240, 3),  # not a best
        _result(pid, 300, 4, counted=False),  # a hint was used: not a best, and no bar for the next one
        _result(pid, 260, 5, bonus_columns=1),  # a best: beats 250 (the uncounted 300 does not count)
        _result(pid, 100, 6, preset="yatzy", rules_id="yatzy"),  # the first of its variant: nothing beaten
        _result(other, 400, 7),
    ]
    ids = store.insert_results(rows)
    assert len(set(ids)) == 7
    bests = {r.score: r.best for r in store.results(pid, None, 0, 0)[0]}
    assert bests == {200: False, 250: True, 240: False, 300: False, 260: True, 100: False}
    stats = {s.rules_id: s for s in store.stats(pid)}
    yams = stats["yams"]
    assert yams.games == 5 and yams.wins == 1 and yams.best == 300 and yams.counted_best == 260
    assert yams.worst == 200
    assert abs(yams.mean - (200 + 250 + 240 + 300 + 260) / 5) < 1e-9
    assert yams.bonus_columns == 2 and yams.columns == 5 and yams.yams == 1 and yams.yam_boxes == 5
    assert abs(yams.accuracy - (2.0 * 10 + 1.0 * 30) / 40) < 1e-9 and yams.graded == 2  # per decision
    assert stats["yatzy"].games == 1
    assert store.histogram(pid, "yams", 50) == [(200, 2), (250, 2), (300, 1)]
    trend = store.recent_scores(pid, "yams", limit=3)
    assert [r.score for r in trend] == [240, 300, 260]  # the newest three, oldest first
    assert [r.score for r in store.bests(pid, "yams")] == [260, 250]
    page, total = store.results(pid, "yams", 2, 0)
    assert total == 5 and [r.score for r in page] == [260, 300]
    assert store.result_presets(pid) == {"yams": 5, "yatzy": 1}


def test_deleting_a_profile_scrubs_its_name(store):
    pid, key = _profile(store)
    tid = secrets.token_urlsafe(9)
    record = {"format": "yambak-game/1", "rules": "yams", "players": ["Ann", "Bram"], "seed": None, "turns": []}
    store.create(
        SessionRow(tid, "Ann's table", "yams", False, False, None, record,
                 seats=[SeatRow(0, "human", "Ann", "h" * 64, None, pid), SeatRow(1, "human", "Bram", "i" * 64)])
    )  # fmt: skip
    store.insert_results([_result(pid, 200, 1, ref=tid)])
    gone = store.delete_profile(pid)
    assert gone is not None and gone.tables == [tid]
    row = store.get_session(tid)
    assert [s.name for s in row.seats] == ["Player 1", "Bram"] and row.seats[0].profile_id is None
    assert row.record["players"] == ["Player 1", "Bram"]
    assert store.profile_by_key(key) is None and store.get_profile(pid) is None
    assert store.results(pid, None, 0, 0) == ([], 0)
    assert store.delete_profile(pid) is None
