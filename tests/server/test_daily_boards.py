"""A deal's board and a period's (server/daily/boards.py): ties keep their order when a profile is deleted
(its places pass to a stand-in with a new id), so a closed board never changes."""

from __future__ import annotations

from datetime import datetime

from yambak.server.daily.boards import period_board, ranked_scores
from yambak.store import DealRow, DealScore

OPENS, STARTED = datetime(2026, 3, 3), datetime(2026, 3, 3, 9)
DEAL = DealRow("d1", "daily", "yams", "seed", "commit", OPENS, datetime(2026, 3, 4))


def _scores(ann_id: str) -> list[DealScore]:
    """Ann and Cy tie, started at the same moment (tables t2 and t1)."""
    made = datetime(2026, 3, 1)
    return [
        DealScore("d1", ann_id, "Ann", made, "t2", 52, STARTED, ann_id != "ann"),
        DealScore("d1", "cy", "Cy", made, "t1", 52, STARTED),
        DealScore("d1", "bram", "Bram", made, "t3", 40, STARTED),
    ]


def test_a_tie_keeps_its_order_when_a_tied_profile_is_deleted() -> None:
    for stand_in in ("a-new-id", "zz-new-id"):  # ordering by profile id would put Ann first, then last
        before = [s.table_id for s in ranked_scores(DEAL, _scores("ann"))]
        after = [s.table_id for s in ranked_scores(DEAL, _scores(stand_in))]
        assert before == after == ["t1", "t2", "t3"]
        week = [(r["name"], r["mp"]) for r in period_board([DEAL], _scores(stand_in), None, withdrawn="—")]
        assert week == [(n if n != "Ann" else "—", mp) for n, mp in
                        [(r["name"], r["mp"]) for r in period_board([DEAL], _scores("ann"), None)]]  # fmt: skip

