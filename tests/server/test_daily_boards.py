"""A deal's board and a period's (server/daily/boards.py): ties keep their order when a profile is deleted
(its places pass to a stand-in with a new id), so a closed board never changes."""

from __future__ import annotations

from datetime import datetime

from yambak.server.daily.boards import deal_board, period_board, ranked_scores
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


def test_games_won_outright_rank_first_by_their_turn_then_totals() -> None:
    """docs/rulesets.md, "Ranking one-seat games": a win at once above any total, an earlier turn's above a
    later one's; matchpoints and places follow the same order (checked against a count written here)."""
    made = datetime(2026, 3, 1)
    games = {"ann": (50, 3), "bram": (300, None), "cy": (40, 1), "dee": (300, None), "eve": (55, 3)}
    scores = [
        DealScore("d1", pid, pid.title(), made, f"t-{pid}", score, STARTED, outright_turn=turn)
        for pid, (score, turn) in games.items()
    ]
    rows = deal_board(DEAL, scores, datetime(2026, 3, 5), "ann")["rows"]
    # the order by hand: Cy won on turn 1; Ann and Eve on turn 3 (level, whatever their totals); then 300s
    expected = [("Cy", 1, 8), ("Ann", 2, 5), ("Eve", 2, 5), ("Bram", 4, 1), ("Dee", 4, 1)]
    assert [(r["name"], r["rank"], r["mp"]) for r in rows] == expected
    assert [r["outright"] for r in rows] == [1, 3, 3, None, None]
    week = {r["name"]: r["mp"] for r in period_board([DEAL], scores, None)}
    assert week == {name: mp for name, _, mp in expected}


def test_a_board_page_says_won_outright_instead_of_the_total() -> None:
    from yambak.server.common.pages import templates
    from yambak.web.i18n import translations

    made = datetime(2026, 3, 1)
    scores = [
        DealScore("d1", "ann", "Ann", made, "t1", 310, STARTED),
        DealScore("d1", "cy", "Cy", made, "t2", 50, STARTED, outright_turn=2),
    ]
    board = deal_board(DEAL, scores, datetime(2026, 3, 5), "ann")
    tr = translations("fr")
    html = templates.get_template("_daily_board.html").render(b=board, _=tr.gettext, pct=lambda x: f"{x:.0%}")
    cy, ann = html.replace("&#39;", "'").split("<tr")[2:4]
    assert ">Cy<" in cy and "gagné d'office" in cy and "Gagné d'office au tour 2." in cy and ">50<" not in cy
    assert ">Ann<" in ann and ">310<" in ann and "gagné d'office" not in ann
