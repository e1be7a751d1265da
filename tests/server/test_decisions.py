"""Every graded decision stored (SQLite and PostgreSQL): the rows a finished game's grade writes are the
coach's review of the stored record, decision by decision; the strategy page's aggregate answers at
/api/strategy/{preset}/losses, and says nothing before a ruleset has 100 graded games."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from yambak.coach import review
from yambak.server import Settings
from yambak.server.profiles.results import solo_record

from .helpers import WS, legal
from .profile_helpers import new_table


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


def _play_with_keeps(client: TestClient, table_id: str, token: str, seat: int) -> None:
    """Play one seat to the end: roll, hold the first two dice and roll again on every other turn, fill the
    first box offered (keeps to grade as well as boxes)."""
    with client.websocket_connect(f"/ws/{table_id}") as s:
        ws = WS(s)
        _, out = ws.hello([token])
        view, v, turn = out["view"], out["v"], 0
        while not view["finished"]:
            if seat not in view["to_act"]:
                out = ws.recv()
                if out.get("view"):
                    view, v = out["view"], out["v"]
                continue
            out = ws.act(type="roll", seat=seat, v=v)
            if turn % 2 == 0:
                out = ws.act(type="hold", seat=seat, v=out["v"], dice=[0, 1])
                assert out["type"] == "event", out
                out = ws.act(type="roll", seat=seat, v=out["v"])
            assert out["type"] == "event", out
            box = legal(out["view"]["players"][seat]["turn"])[0]
            out = ws.act(type="score", seat=seat, v=out["v"], box=box)
            assert out["type"] == "event", out
            view, v, turn = out["view"], out["v"], turn + 1


def _kind(option: Any) -> str:
    return "strike" if option.kind == "box" and option.strike else option.kind


def test_a_graded_games_rows_are_the_coachs_review_of_its_stored_record(client) -> None:
    seats = [{"kind": "bot", "bot": "easy", "name": "Robo"}, {"name": "Ann"}]  # Ann at seat 1
    made = new_table(client, "yams", seats=seats)
    _play_with_keeps(client, made["id"], made["tokens"]["1"], 1)
    assert client.app.state.profiles.grader.wait()
    store = client.app.state.store
    (result,) = client.get("/api/me/games").json()["games"]
    stored = store.result_for(client.get("/api/me").json()["profile"]["id"], made["id"])
    rows = store.graded_decisions(stored.id)
    # the coach's review of the record as the server stored it, her own turns as a solo game
    record = client.get(f"/t/{made['id']}/record.json").json()
    graded = review(solo_record(record, 1))
    mine = graded.for_player(0)
    assert len(rows) == len(mine) == stored.decisions and {r["kind"] for r in rows} >= {"keep", "box"}
    for row, d in zip(rows, mine, strict=True):
        assert (row["turn"], row["roll"], row["box"], row["options"]) == (d.turn, d.roll, d.box, d.options)
        assert row["kind"] == _kind(d.chosen) and row["dice"] == list(d.dice)
        assert row["chosen"] == d.chosen.to_dict() and row["best"] == d.best.to_dict()
        assert abs(row["loss"] - d.loss) <= 1e-9
        assert (row["unit"], row["exact"]) == (graded.measure, graded.exact) == ("score", True)
        assert (row["table_id"], row["seat"], row["rules_id"], row["source"]) == (made["id"], 1, "yams", "table")
        assert row["result_id"] == stored.id and row["profile_id"] == stored.profile_id
        assert row["counted"] and not row["ranked"] and not row["duplicate"] and row["deal_id"] is None
    assert stored.accuracy == pytest.approx(sum(r["loss"] for r in rows) / len(rows), abs=1e-9)
    assert result["ref"] == made["id"]
    # one graded game of 100: the route says how many, and shows nothing yet
    losses = client.get("/api/strategy/yams/losses").json()
    assert losses == {
        "preset": "yams", "rules_id": "yams", "games": 1, "enough": False, "min_games": 100, "unit": "score",
        "kinds": [],
    }  # fmt: skip
    assert client.get("/api/strategy/yatzy/losses").json()["games"] == 0
    unknown = client.get("/api/strategy/nope/losses")
    assert unknown.status_code == 404 and unknown.json()["code"] == "preset/unknown"


def test_the_routes_figures_are_the_stores_aggregate(client, monkeypatch) -> None:
    """Past the threshold (lowered here to the one game played) the route gives the store's aggregate: per
    kind the costliest first, the rows' own sums."""
    from yambak.store.decisions import DecisionStore

    made = new_table(client, "yams", seats=[{"name": "Ann"}])
    _play_with_keeps(client, made["id"], made["tokens"]["0"], 0)
    assert client.app.state.profiles.grader.wait()
    store = client.app.state.store
    pid = client.get("/api/me").json()["profile"]["id"]
    rows = store.graded_decisions(store.result_for(pid, made["id"]).id)
    losses = DecisionStore.decision_losses
    monkeypatch.setattr(type(store), "decision_losses", lambda self, key, now, _m, u: losses(self, key, now, 1, u))
    data = client.get("/api/strategy/yams/losses").json()
    assert data["games"] == 1 and data["enough"] is True
    total = sum(r["loss"] for r in rows)
    assert [k["kind"] for k in data["kinds"]] == sorted(
        {r["kind"] for r in rows}, key=lambda k: (-sum(r["loss"] for r in rows if r["kind"] == k), k)
    )
    for k in data["kinds"]:
        mine = [r for r in rows if r["kind"] == k["kind"]]
        assert k["count"] == len(mine) and k["mistakes"] == sum(1 for r in mine if r["loss"] > 1e-9)
        assert k["total_loss"] == pytest.approx(sum(r["loss"] for r in mine), abs=1e-4)
        assert k["share"] == pytest.approx(sum(r["loss"] for r in mine) / total, abs=1e-4)
        assert sum(b["count"] for b in k["boxes"]) == len(mine)


def test_the_routes_cache_holds_while_the_same_deals_are_open(tmp_path) -> None:
    """The aggregate is computed at most once per ten minutes, but anew as soon as the deals open are not the
    ones it was computed with (a deal opened, closed, or extended again)."""
    import asyncio
    import secrets
    from datetime import datetime, timedelta

    from yambak.server.routes.losses import LossesCache
    from yambak.store import DealRow, DecisionRow, ResultRow, Store

    store = Store(f"sqlite:///{tmp_path}/cache.db")
    t0 = datetime(2026, 12, 1, 12, 0)
    pid = secrets.token_urlsafe(9)
    store.create_profile(pid, "Ann", secrets.token_hex(32), t0)
    row = DecisionRow(1, 1, "box", "chance", (1, 2, 3, 4, 5), {}, {}, 5, 1.5, "score", True, "yams")

    def graded() -> None:
        r = ResultRow(pid, "table", secrets.token_hex(6), 0, "yams", "yams", t0, 100, False, 1, True)
        (r.id,) = store.insert_results([r])
        store.set_grade(r, 1.5, 1, [row])

    cache = LossesCache()
    graded()
    assert asyncio.run(cache.get(store, "yams", t0, "score")).games == 1
    graded()
    assert asyncio.run(cache.get(store, "yams", t0, "score")).games == 1  # within ten minutes, the same deals open
    store.ensure_deal(DealRow("daily:2026-12-01:yams", "daily", "yams", "s", "c", t0, t0 + timedelta(hours=1)))
    assert asyncio.run(cache.get(store, "yams", t0, "score")).games == 2  # a deal opened: computed anew
    graded()
    assert asyncio.run(cache.get(store, "yams", t0 + timedelta(hours=2), "score")).games == 3  # and closed
    assert len(cache.entries) == 1
    store.close()


def test_a_balut_games_losses_are_read_and_shown_in_category_points(client, monkeypatch) -> None:
    """Balut's coach counts category points: its graded decisions are stored in that unit, and its losses
    (the threshold lowered to the one game played) are read in it and said so on the strategy page, where
    the other presets say expected points."""
    from yambak.store.decisions import DecisionStore

    made = new_table(client, "balut", seats=[{"name": "Ann"}])
    _play_with_keeps(client, made["id"], made["tokens"]["0"], 0)
    assert client.app.state.profiles.grader.wait()
    store = client.app.state.store
    pid = client.get("/api/me").json()["profile"]["id"]
    rows = store.graded_decisions(store.result_for(pid, made["id"]).id)
    assert rows and {r["unit"] for r in rows} == {"category_points"}
    losses = DecisionStore.decision_losses
    monkeypatch.setattr(type(store), "decision_losses", lambda self, key, now, _m, u: losses(self, key, now, 1, u))
    data = client.get("/api/strategy/balut/losses").json()
    assert (data["games"], data["enough"], data["unit"]) == (1, True, "category_points")
    assert sum(k["total_loss"] for k in data["kinds"]) == pytest.approx(sum(r["loss"] for r in rows), abs=1e-3)
    page = client.get("/strategy/balut").text
    assert "the kinds of decision that cost most, in expected category points." in page
    assert client.get("/api/strategy/yams/losses").json()["unit"] == "score"
