"""Deals, their entrants and tournaments in the store, on SQLite and a real PostgreSQL: a deal is made
once, a board reads only counted scores of the entrants' own tables, best solo scores, tournament
players, and a deleted profile's places stay, nameless (boards of closed deals never change)."""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from yambak.store import DealRow, ResultRow, SeatRow, SessionRow, Store, StoreConflict, TournamentRow

T0 = datetime(2026, 3, 1, 0, 0)


def _profile(store: Store, name: str) -> str:
    pid = secrets.token_urlsafe(9)
    store.create_profile(pid, name, secrets.token_hex(32), T0 - timedelta(days=1))
    return pid


def _deal(n: int = 0, **kw) -> DealRow:
    base = dict(
        id=f"daily:2026-03-0{n + 1}:yams", kind="daily", preset="yams", seed="ab" * 32, commitment="cd" * 32,
        opens_at=T0 + timedelta(days=n), closes_at=T0 + timedelta(days=n + 1),
    )  # fmt: skip
    base.update(kw)
    return DealRow(**base)


def _played(store: Store, deal: DealRow, pid: str, score: int, counted: bool = True, players: int = 1) -> str:
    table = secrets.token_urlsafe(9)
    store._sync(Store.add_entry_op(deal.id, pid, table, deal.opens_at))
    store.insert_results(
        [ResultRow(pid, "daily", table, 0, "yams", "yams", deal.opens_at, score, False, players, counted)]
    )
    return table


def test_deals_entries_and_boards(store):
    deal, new = store.ensure_deal(_deal())
    assert new and store.ensure_deal(_deal(seed="ef" * 32)) == (deal, False)  # made once: the first seed stays
    ann, bram, cy = _profile(store, "Ann"), _profile(store, "Bram"), _profile(store, "Cy")
    table = _played(store, deal, ann, 250)
    _played(store, deal, bram, 230)
    _played(store, deal, cy, 300, counted=False)  # a hint: no counted score
    with pytest.raises(StoreConflict):  # one counted attempt per profile and deal
        store._sync(Store.add_entry_op(deal.id, ann, "another", T0))
    # Ann's practice game of the same deal is a result too, but not her entry's
    store.insert_results([ResultRow(ann, "daily", "practice", 0, "yams", "yams", T0, 290, False, 1, True)])
    scores = {s.name: s.score for s in store.deal_scores([deal.id])}
    assert scores == {"Ann": 250, "Bram": 230, "Cy": None}
    assert store.entry(deal.id, ann) == table and store.entry(deal.id, "nobody") is None
    later, _ = store.ensure_deal(_deal(1))
    assert [d.id for d in store.deals("daily", "yams", T0 + timedelta(hours=1))] == [later.id]
    store.set_par(deal.id, 254, "optimal", "partable")
    store.set_par(deal.id, 1, "strong", "other")  # the first par stays
    assert (store.get_deal(deal.id).par_score, store.get_deal(deal.id).par_table) == (254, "partable")
    # Bram alone against a bot counts as solo; with another person, or with options changed, it does not
    for n, (seats, rules_id) in enumerate(
        [(["human", "bot"], "yams"), (["human", "human"], "yams"), (["human"], "yams columns=3")]
    ):
        ref = f"table{n}"
        store.create(
            SessionRow(
                ref,
                "t",
                "yams",
                False,
                False,
                None,
                {},
                seats=[
                    SeatRow(i, kind, f"p{i}", None, "easy" if kind == "bot" else None) for i, kind in enumerate(seats)
                ],
            )
        )
        store.insert_results(
            [ResultRow(bram, "table", ref, 0, "yams", rules_id, T0, 240 + 10 * n, False, len(seats), True)]
        )
    best = store.best_solo("yams")
    assert [(b.name, b.score) for b in best] == [("Ann", 290), ("Bram", 240)]  # Cy's game had help
    store.delete_profile(ann)  # her places stay, nameless: the others' matchpoints and ranks do not change
    assert store.get_profile(ann) is None
    after = {(s.withdrawn, s.name, s.score) for s in store.deal_scores([deal.id])}
    assert after == {(True, "", 250), (False, "Bram", 230), (False, "Cy", None)}
    assert [(b.withdrawn, b.name, b.score) for b in store.best_solo("yams")] == [(True, "", 290), (False, "Bram", 240)]


def test_a_deal_game_won_outright_keeps_its_turn(store):
    """A result's outright win (docs/rules.md §7) reaches the deal's scores, and only a counted one."""
    deal, _ = store.ensure_deal(_deal(preset="generala"))
    ann, bram = _profile(store, "Ann"), _profile(store, "Bram")
    for pid, score, turn in ((ann, 50, 4), (bram, 210, None)):
        table = secrets.token_urlsafe(9)
        store._sync(Store.add_entry_op(deal.id, pid, table, deal.opens_at))
        row = ResultRow(pid, "daily", table, 0, "generala", "generala", deal.opens_at, score, False, 1, True)
        store.insert_results([replace(row, outright_turn=turn)])
    got = {s.name: (s.score, s.outright_turn) for s in store.deal_scores([deal.id])}
    assert got == {"Ann": (50, 4), "Bram": (210, None)}
    assert [r.outright_turn for r in store.results(ann)[0]] == [4]


def test_tournaments(store):
    ann, bram = _profile(store, "Ann"), _profile(store, "Bram")
    t = TournamentRow("club1", "Club night", "yatzy", ann, "invite-code", 2, 60, T0, T0)
    rounds = [
        _deal(k, id=f"club:club1:{k + 1}", kind="club", preset="yatzy", tournament_id="club1", round=k + 1)
        for k in range(2)
    ]
    store.create_tournament(t, rounds)
    assert store.get_tournament("club1") == t and [d.round for d in store.tournament_deals("club1")] == [1, 2]
    assert store.join_tournament("club1", bram, T0, "pending") == "pending"
    assert store.join_tournament("club1", bram, T0) == "pending"  # joined before: the place it had
    assert store.set_member("club1", bram, "player", T0) and not store.set_member("club1", "nobody", "player", T0)
    assert [m.name for m in store.tournament_players("club1")] == ["Ann", "Bram"]
    assert [x.id for x in store.tournaments_of(bram)] == ["club1"]
    store.delete_profile(ann)  # the organiser goes: the tournament stays, without them, their place nameless
    assert store.get_tournament("club1").organiser_id is None
    assert [(m.name, m.withdrawn) for m in store.tournament_players("club1")] == [("", True), ("Bram", False)]


def test_a_served_generala_ranks_first_on_the_deals_board(store):
    """A one-seat game won outright, from the engine's state to the board through the store: ranked first,
    above a higher total (docs/rulesets.md, "Ranking one-seat games"), and shown as a win."""
    from yambak.engine import ManualDice, Roll, Score, new_game
    from yambak.rules import load_ruleset
    from yambak.server.daily.boards import deal_board
    from yambak.server.profiles.results import table_results

    deal, _ = store.ensure_deal(_deal(preset="generala"))
    ann, bram = _profile(store, "Ann"), _profile(store, "Bram")
    state = new_game(load_ruleset("generala"), ["Ann"], dice=ManualDice())
    for dice, box in (((2, 2, 3, 4, 6), "twos"), ((1, 1, 1, 1, 1), "yam")):
        state, _ = state.apply(Roll(0, dice=dice))
        state, _ = state.apply(Score(0, box))
    assert state.finished and state.total(0) == 4 + 50
    store._sync(Store.add_entry_op(deal.id, ann, "ann-table", deal.opens_at))
    seat = SeatRow(0, "human", "Ann", profile_id=ann)
    store.insert_results(table_results("ann-table", [seat], state, deal.opens_at, "daily", deal.id))
    _played(store, deal, bram, 230)
    board = deal_board(deal, store.deal_scores([deal.id]), deal.closes_at, ann)
    rows = [(r["name"], r["rank"], r["score"], r["outright"], r["mp"]) for r in board["rows"]]
    assert rows == [("Ann", 1, 54, 2, 2), ("Bram", 2, 230, None, 0)]
    assert board["me"]["outright"] == 2
