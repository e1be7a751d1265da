"""The boards: a deal's ranking, a week's or all time's by matchpoints, a tournament's standings.

Only display names are shown. A daily deal ranks the profiles made before its day (a profile made
that day could have been made to scout the dice for another); a tournament ranks its players. Scores
are the engine's, from counted results (a game the server rolled, no hint, no bot turn) of games over
before the deal closed: a closed deal's board never changes, but for a deleted player's name, which
becomes `withdrawn` (translated by the caller) in place. Ties are listed in the order the players
started, so that no rename reorders a closed board; a cancelled deal ranks nobody. A game won outright
ranks above every other, by the one rule of docs/rulesets.md ("Ranking one-seat games", `rank_key`).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, TypedDict

from ...engine import rank_key
from ...store import DealRow, DealScore
from .matchpoints import matchpoints, percent, ranks, top

__all__ = [
    "WITHDRAWN",
    "BoardRow",
    "DealBoard",
    "PeriodRow",
    "deal_board",
    "period_board",
    "ranked_scores",
    "shown_name",
]


WITHDRAWN = "A withdrawn player"


class BoardRow(TypedDict):
    """A game on a deal's board."""

    rank: int
    name: str
    score: int | None
    outright: int | None  # won outright on this turn: the board says so, not the total
    mp: int
    pct: float | None
    me: bool
    table: str | None  # once the deal is closed


class Par(TypedDict):
    score: int
    bot: str | None
    table: str | None
    outright: int | None  # won at once on this turn: said as a win, not its total


class MyAttempt(TypedDict):
    status: str | None  # playing, ranked or unranked
    table: str
    score: int | None
    outright: int | None


class DealBoard(TypedDict):
    """A deal's board (`deal_board`)."""

    deal: str
    kind: str
    preset: str
    day: str
    round: int | None
    opens_at: str
    closes_at: str
    closed: bool
    opens_in: int  # seconds until it opens and closes, by the server's clock (pages count down from them)
    closes_in: int
    cancelled: bool
    paused: bool
    started: bool
    commitment: str
    seed: str | None
    par: Par | None
    rows: list[BoardRow]
    max: int
    playing: int
    unfinished: int
    me: MyAttempt | None


class PeriodScore(TypedDict):
    score: int | None
    outright: int | None
    mp: int


class _Total(TypedDict):
    name: str
    mp: int
    max: int
    deals: int
    scores: dict[str, PeriodScore]  # by deal


class PeriodRow(_Total):
    """A player's matchpoints over several deals (`period_board`)."""

    rank: int
    pct: float | None
    me: bool


def shown_name(s: DealScore | Any, withdrawn: str) -> str:
    return withdrawn if s.withdrawn else s.name


def _started(s: DealScore) -> datetime:
    return s.started_at or datetime.min


def _key(s: DealScore) -> tuple[int, int]:
    """Where the game ranks (docs/rulesets.md): a win at once first, then the higher total."""
    return rank_key(s.score or 0, s.outright_turn)


def ranked_scores(deal: DealRow, scores: Iterable[DealScore]) -> list[DealScore]:
    """The deal's finished counted attempts that enter its board, best first (a cancelled deal: none)."""
    if deal.cancelled:
        return []
    out = [
        s
        for s in scores
        if s.deal_id == deal.id and s.score is not None and (deal.kind != "daily" or s.profile_created < deal.opens_at)
    ]
    # ties in the order the games started, then by their tables (a deleted profile's stand-in has a new
    # id: ordering by it would reorder a closed board)
    return sorted(out, key=lambda s: (tuple(-k for k in _key(s)), _started(s), s.table_id))


def deal_board(
    deal: DealRow, scores: list[DealScore], now: datetime, viewer: str | None, withdrawn: str = WITHDRAWN
) -> DealBoard:
    """One deal's board: rank, name, score, matchpoints and their percentage; the par once the deal
    is closed or the viewer has finished their attempt; each game's table once the deal is closed;
    how many still play (or, once it closed, how many games it left unfinished)."""
    closed = deal.closed(now)
    ranked = ranked_scores(deal, scores)
    points = matchpoints({s.profile_id: _key(s) for s in ranked})
    most = top(len(ranked))
    rows: list[BoardRow] = []
    for rank, s in zip(ranks([_key(s) for s in ranked]), ranked, strict=True):
        rows.append(
            {
                "rank": rank,
                "name": shown_name(s, withdrawn),
                "score": s.score,
                "outright": s.outright_turn,  # won outright on this turn: the board says so, not the total
                "mp": points[s.profile_id],
                "pct": percent(points[s.profile_id], most),
                "me": s.profile_id == viewer,
                "table": s.table_id if closed else None,
            }
        )
    mine = next((s for s in scores if s.profile_id == viewer and s.deal_id == deal.id), None)
    status: str | None = None
    if mine is not None:
        if mine.score is None:
            status = "playing"
        elif any(r["me"] for r in rows):
            status = "ranked"
        else:
            status = "unranked"
    show_par = closed or (mine is not None and mine.score is not None)
    return {
        "deal": deal.id,
        "kind": deal.kind,
        "preset": deal.preset,
        "day": deal.opens_at.date().isoformat(),
        "round": deal.round,
        "opens_at": deal.opens_at.isoformat() + "Z",
        "closes_at": deal.closes_at.isoformat() + "Z",
        "closed": closed,
        # seconds until it opens and closes, by the server's clock (pages count down from them)
        "opens_in": max(0, int((deal.opens_at - now).total_seconds())),
        "closes_in": max(0, int((deal.closes_at - now).total_seconds())),
        "cancelled": deal.cancelled,
        "paused": deal.paused_at is not None,
        "started": now >= deal.opens_at,
        "commitment": deal.commitment,
        "seed": deal.seed if closed else None,
        "par": (
            {
                "score": deal.par_score,
                "bot": deal.par_bot,
                "table": deal.par_table if closed else None,
                "outright": deal.par_outright,  # won at once on this turn: said as a win, not its total
            }
            if show_par and deal.par_score is not None
            else None
        ),
        "rows": rows,
        "max": most,
        "playing": 0 if closed else sum(1 for s in scores if s.deal_id == deal.id and s.score is None),
        "unfinished": sum(1 for s in scores if s.deal_id == deal.id and s.score is None) if closed else 0,
        "me": (
            {"status": status, "table": mine.table_id, "score": mine.score, "outright": mine.outright_turn}
            if mine is not None
            else None
        ),
    }


def period_board(
    deals: list[DealRow], scores: list[DealScore], viewer: str | None, limit: int = 100, withdrawn: str = WITHDRAWN
) -> list[PeriodRow]:
    """Matchpoints added up over several deals (a week's, all time's, a tournament's rounds): ranked by
    their total, shown with the percentage of the most the deals a player played could have given;
    ties in the order the players first started."""
    total: dict[str, _Total] = {}
    first: dict[str, tuple[datetime, str]] = {}  # a player's first game: when it started, its table
    for deal in deals:
        ranked = ranked_scores(deal, scores)
        points = matchpoints({s.profile_id: _key(s) for s in ranked})
        most = top(len(ranked))
        for s in ranked:
            name = shown_name(s, withdrawn)
            t = total.setdefault(s.profile_id, {"name": name, "mp": 0, "max": 0, "deals": 0, "scores": {}})
            game = (_started(s), s.table_id)
            first[s.profile_id] = min(first.get(s.profile_id, game), game)
            t["mp"] += points[s.profile_id]
            t["max"] += most
            t["deals"] += 1
            t["scores"][deal.id] = {"score": s.score, "outright": s.outright_turn, "mp": points[s.profile_id]}
    order = sorted(
        total.items(),
        key=lambda kv: (-kv[1]["mp"], -(percent(kv[1]["mp"], kv[1]["max"]) or 0), first[kv[0]], kv[0]),
    )
    rows: list[PeriodRow] = []
    for rank, (pid, t) in zip(ranks([t["mp"] for _, t in order]), order, strict=True):
        rows.append(PeriodRow(rank=rank, **t, pct=percent(t["mp"], t["max"]), me=pid == viewer))
    return rows[:limit]
