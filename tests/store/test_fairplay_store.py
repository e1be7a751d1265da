"""The fair-play review in the store (store/fairplay.py), on SQLite and PostgreSQL: a thrown ranked game,
voided, rates nobody, and its players' ratings are computed again from it on out of the stored rating
changes (the others' rows untouched), once however often it is found; the operator's list of profiles at
the solver's accuracy, and clearing one from it."""

from __future__ import annotations

import secrets
from datetime import timedelta

import pytest
from openskill.models import PlackettLuce
from sqlalchemy import select

from yambak.store import REVIEWED, ChangeRow, ResultRow, SessionRow, Store
from yambak.store.models import FairplayClear

from .fairplay_helpers import T0, graded_game

MODEL = PlackettLuce()


def _profile(store: Store, name: str) -> str:
    pid = secrets.token_urlsafe(9)
    store.create_profile(pid, name, secrets.token_hex(32), T0)
    return pid


def _rate(before: list[tuple[float, float]], places: list[int]) -> list[tuple[float, float]]:
    teams = MODEL.rate([[MODEL.rating(mu=m, sigma=s)] for m, s in before], ranks=[float(p) for p in places])
    return [(t[0].mu, t[0].sigma) for t in teams]


def _ranked_game(store: Store, n: int, players: list[str]) -> str:
    """Game n: a ranked yams table whose players (in seat order) finish in that order, rated as a game's
    end rates them (the ratings locked, OpenSkill's update, the rows and the changes stored)."""
    table_id = f"r{n}-{secrets.token_hex(3)}"
    store.create(SessionRow(table_id, "", "yams", False, False, None, {}, settings={"ranked": "yams"}))
    at = T0 + timedelta(hours=n)

    def op(conn):
        now = Store.lock_ratings(conn, "yams", players, MODEL.mu, MODEL.sigma, at)
        before = [now[p][:2] for p in players]
        after = _rate(before, list(range(1, len(players) + 1)))
        changes = [
            ChangeRow(seat, p, seat + 1, True, None, False, b[0], b[1], a[0], a[1])
            for seat, (p, b, a) in enumerate(zip(players, before, after, strict=True))
        ]
        Store.store_ratings(conn, table_id, "yams", changes, at)

    store._sync(op)
    return table_id


def _near(value: float):
    return pytest.approx(value, abs=1e-9)


def _ratings(store: Store) -> dict[str, tuple[float, float, int]]:
    return {r.profile_id: (r.mu, r.sigma, r.games) for r in store.ladder("yams", least_games=0)}


def _ordinal(rating: tuple[float, float]) -> float:
    return rating[0] - 3 * rating[1]


def test_nobody_gains_from_a_thrown_game_and_its_winners_are_rated_again_from_it_on(store) -> None:
    farmer, x, y, honest = (_profile(store, n) for n in ("Farmer", "Xalt", "Yalt", "Honest"))
    history = [[farmer, x], [farmer, y], [honest, farmer], [farmer, honest], [x, y]]  # winner first
    tables = [_ranked_game(store, n, players) for n, players in enumerate(history)]
    stored = _ratings(store)
    thrown = tables[1]  # the farmer's win over Yalt, who threw it

    # independently: the whole history as rated (every player's rating before and after each game) ...
    now = {p: (MODEL.mu, MODEL.sigma) for p in (farmer, x, y, honest)}
    befores, afters = [], []
    for players in history:
        befores.append([now[p] for p in players])
        afters.append(_rate(befores[-1], list(range(1, len(players) + 1))))
        now.update(zip(players, afters[-1], strict=True))
    assert {p: v[:2] for p, v in stored.items()} == {p: (_near(m), _near(s)) for p, (m, s) in now.items()}
    assert _ordinal(afters[1][0]) > _ordinal(befores[1][0]) and _ordinal(afters[1][1]) < _ordinal(befores[1][1])

    # ... then again without the farmer's gain: the farmer from where they stood before it, everybody else
    # as they were stored before each game
    def without(voided: set[int]) -> tuple[float, float]:
        mine = befores[1][0]
        for n, players in enumerate(history):
            if n > 1 and farmer in players and n not in voided:
                before = [mine if p == farmer else befores[n][i] for i, p in enumerate(players)]
                mine = _rate(before, list(range(1, len(players) + 1)))[players.index(farmer)]
        return mine

    void = lambda table_id, days: store._sync(  # noqa: E731
        lambda conn: Store.void_game(conn, table_id, _rate, T0 + timedelta(days=days))
    )
    assert void(thrown, 1) == [farmer]  # the gainer alone: Yalt's loss stands
    ratings = _ratings(store)
    assert ratings[farmer] == (_near(without(set())[0]), _near(without(set())[1]), stored[farmer][2] - 1)
    assert ratings[farmer][0] < stored[farmer][0]  # the win over an alt no longer counts
    assert ratings[x] == stored[x] and ratings[y] == stored[y] and ratings[honest] == stored[honest]
    rows = store.changes(thrown)
    assert [(c.rated, c.reason, c.mu_after) for c in rows] == [(False, REVIEWED, None), (True, None, afters[1][1][0])]
    assert [(c.mu_before, c.sigma_before) for c in rows] == befores[1]  # where they stood, as the page shows
    # the later games' changes follow: the farmer's last game starts where the one before it now ends
    third, fourth = store.changes(tables[2]), store.changes(tables[3])
    assert (fourth[0].mu_before, fourth[0].sigma_before) == (third[1].mu_after, third[1].sigma_after)
    assert (fourth[0].mu_after, fourth[0].sigma_after) == (ratings[farmer][0], ratings[farmer][1])
    assert (fourth[1].mu_before, fourth[1].mu_after) == (befores[3][1][0], stored[honest][0])  # Honest's: as stored

    # found again (the other player's grade): nothing more changes
    assert void(thrown, 2) == []
    assert _ratings(store) == ratings
    # a later thrown game (the farmer's win over Honest): the farmer ends where the game before it left them
    assert void(tables[3], 3) == [farmer]
    ratings = _ratings(store)
    assert ratings[farmer] == (_near(without({3})[0]), _near(without({3})[1]), stored[farmer][2] - 2)
    assert ratings[honest] == stored[honest]


def test_the_operators_list_holds_profiles_whose_ranked_games_lose_almost_nothing(store) -> None:
    ace, good, casual, gone = (_profile(store, n) for n in ("Ace", "Good", "Casual", "Gone"))
    for n in range(10):
        graded_game(store, ace, n, 0.0)  # the solver's own play, ten ranked games
        graded_game(store, good, n, 13 * 0.3)  # a strong player's: 0.3 points a decision
        graded_game(store, gone, n, 0.0)
    for n in range(12):
        graded_game(store, casual, n, 0.0, ranked=n < 9)  # perfect, but only nine of them ranked
    listed = sorted((r.name, r.preset, r.games, r.accuracy) for r in store.assisted(10, 0.05))
    assert listed == [("Ace", "yams", 10, 0.0), ("Gone", "yams", 10, 0.0)]
    assert store.clear_fairplay(gone, T0 - timedelta(days=1))  # cleared before those games: still listed
    assert sorted(r.name for r in store.assisted(10, 0.05)) == ["Ace", "Gone"]
    assert store.delete_profile(gone, T0) is not None  # gone with its profile, its clearing too
    assert [r.name for r in store.assisted(10, 0.05)] == ["Ace"]
    with store.engine.connect() as conn:
        assert conn.execute(select(FairplayClear.profile_id)).scalars().all() == []
    assert store.clear_fairplay(ace, T0 + timedelta(days=1)) and not store.clear_fairplay("nobody", T0)
    assert store.assisted(10, 0.05) == []  # cleared: only games after that count
    for n in range(10):
        graded_game(store, ace, 100 + n, 0.0, at=T0 + timedelta(days=2))
    assert [(r.name, r.games) for r in store.assisted(10, 0.05)] == [("Ace", 10)]
    assert sorted(r.name for r in store.assisted(10, 0.5)) == ["Ace", "Good"]  # a looser line lists Good too


def test_results_left_ungraded_come_back_ranked_games_first(store) -> None:
    pid = _profile(store, "Ann")
    refs = []
    for n, ranked in enumerate([False, True, False, True]):
        table_id = f"u{n}-{secrets.token_hex(3)}"
        store.create(
            SessionRow(table_id, "", "yams", False, False, None, {}, settings={"ranked": "yams"} if ranked else {})
        )
        result = ResultRow(
            profile_id=pid, kind="table", ref=table_id, seat=0, preset="yams", rules_id="yams",
            finished_at=T0 + timedelta(minutes=n), score=200, won=True, players=2, counted=True,
        )  # fmt: skip
        store.insert_results([result])
        refs.append(table_id)
    assert [r.ref for r in store.ungraded()] == [refs[1], refs[3], refs[0], refs[2]]  # ranked, then the rest


def test_thrown_games_found_in_any_order_leave_the_same_ratings(store) -> None:
    """Two thrown games of one farmer, reviewed in either order (grades come as they come): the same
    ratings and the same rows, the later game rated again with the seat it rated and took back since."""
    ends = []
    for label, order in (("a", (1, 3)), ("b", (3, 1))):
        farmer, x, y, honest = (_profile(store, f"{n}-{label}") for n in ("Farmer", "Xalt", "Yalt", "Honest"))
        history = [[farmer, x], [farmer, y], [honest, farmer], [farmer, honest], [x, y]]
        tables = [_ranked_game(store, n, players) for n, players in enumerate(history)]
        for days, n in enumerate(order):
            thrown, at = tables[n], T0 + timedelta(days=days)
            store._sync(lambda conn, thrown=thrown, at=at: Store.void_game(conn, thrown, _rate, at))

        def rounded(v: float | None) -> float | None:
            return None if v is None else round(v, 9)

        ratings = _ratings(store)
        rows = [
            (
                c.rated,
                c.reason,
                rounded(c.mu_before),
                rounded(c.sigma_before),
                rounded(c.mu_after),
                rounded(c.sigma_after),
            )
            for t in tables
            for c in store.changes(t)
        ]
        ends.append(([tuple(rounded(v) for v in ratings[p]) for p in (farmer, x, y, honest)], rows))
    assert ends[0] == ends[1]
    assert [r[:2] for r in ends[0][1]].count((False, REVIEWED)) == 2  # the farmer's two wins, taken back
