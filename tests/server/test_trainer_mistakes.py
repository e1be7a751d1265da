"""Trainer positions from the stored graded decisions (SQLite and PostgreSQL): the costliest decisions of
finished games join a preset's pool, anonymous, re-graded by the coach; a decision of a deal that has not
closed never becomes a position (docs/daily.md)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from sqlalchemy import delete, insert, update

from yambak.coach.advice import advise
from yambak.server import Settings
from yambak.server.trainer.manager import TrainerManager, TrainingError
from yambak.store.models import Deal, GradedDecision
from yambak.trainer import THRESHOLD, PoolSpec, generate_pool, grade, state_of
from yambak.trainer.mistakes import Mistake, merge_pools, puzzles_of_mistakes

from .profile_helpers import new_table
from .test_decisions import _play_with_keeps


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


def _pool(client, size: int = 2):
    store = client.app.state.store
    trainer = TrainerManager(store, client.app.state.settings.clock, size=size, seed=1)
    return asyncio.run(trainer.pool("yams")), trainer


def test_an_open_deals_decisions_never_become_positions(client, clock) -> None:
    made = new_table(client, "yams", seats=[{"name": "Ann Secret"}])
    _play_with_keeps(client, made["id"], made["tokens"]["0"], 0)
    assert client.app.state.profiles.grader.wait()
    store = client.app.state.store
    now = clock().replace(tzinfo=None)
    stored = store.biggest_mistakes("yams", now, THRESHOLD, 40)
    assert stored, "the game's keeps and boxes lose points"
    assert [m.loss for m in stored] == sorted((m.loss for m in stored), reverse=True)
    assert all(m.loss >= THRESHOLD for m in stored)
    text = json.dumps([m.record for m in stored])
    assert "Ann Secret" not in text and made["id"] not in text and '"seed"' not in text
    expected = puzzles_of_mistakes([Mistake(m.record, m.seat, m.turn, m.roll, m.kind) for m in stored], "yams")
    assert expected
    for puzzle in expected:  # re-graded: the options' values are the coach's on the rebuilt position
        state = state_of(puzzle)
        advice = advise(state, 0, wins=False)
        top = max(o.value for o in advice.options)
        assert puzzle.best.value == pytest.approx(top, abs=1e-9)
        assert len(advice.options) == len(puzzle.options)
        for option in advice.options:
            choice = (
                {"kind": "keep", "keep": list(option.keep or ())}
                if option.kind == "keep"
                else {"kind": option.kind, "box": option.box, **({"strike": True} if option.strike else {})}
            )
            assert grade(puzzle, choice).loss == pytest.approx(top - option.value, abs=1e-9)
        assert puzzle.obvious_loss >= THRESHOLD and json.loads(puzzle.record)["players"] == ["you"]
        assert grade(puzzle, puzzle.obvious).loss == pytest.approx(puzzle.obvious_loss)
    mine = {p.id for p in expected}

    # the same decisions as a deal's, the deal still open: no position from them
    with store.engine.begin() as conn:
        conn.execute(
            insert(Deal).values(
                id="daily:test:yams", kind="daily", preset="yams", seed="s", commitment="c",
                opens_at=now - timedelta(hours=1), closes_at=now + timedelta(hours=1),
            )
        )  # fmt: skip
        conn.execute(update(GradedDecision).values(deal_id="daily:test:yams"))
    assert store.biggest_mistakes("yams", now, THRESHOLD, 40) == []
    pool, trainer = _pool(client)
    assert mine.isdisjoint(p.id for p in pool) and len(pool) == 2

    # closed: they join the seeded pool, once each, after it
    clock.now += timedelta(hours=2)
    pool, trainer = _pool(client)
    seeded = generate_pool(trainer.spec("yams"))
    assert pool == merge_pools(seeded, expected) and pool[: len(seeded)] == seeded
    assert mine <= {p.id for p in pool} and len({p.id for p in pool}) == len(pool)
    assert asyncio.run(trainer.daily("yams")) in seeded  # the day's position: the seeded pool's


def test_merging_keeps_each_position_once() -> None:
    pool = generate_pool(PoolSpec("yams", size=3, seed=1))
    assert merge_pools(pool[:2], [pool[1], pool[2], pool[2]]) == pool


def test_a_position_from_a_mistake_is_known_to_every_process(client) -> None:
    """Two server processes on one store: the positions one rebuilt from mistakes are answered by the other,
    though its own pool (read later, the decisions gone) does not have them."""
    made = new_table(client, "yams", seats=[{"name": "Ann"}])
    _play_with_keeps(client, made["id"], made["tokens"]["0"], 0)
    assert client.app.state.profiles.grader.wait()
    pool, first = _pool(client)
    extra = pool[len(first._seeded["yams"]) :]
    assert extra, "the game's mistakes join the pool"
    store = client.app.state.store
    with store.engine.begin() as conn:
        conn.execute(delete(GradedDecision))
    other_pool, other = _pool(client)
    assert {p.id for p in extra}.isdisjoint(p.id for p in other_pool)
    for puzzle in extra:
        assert asyncio.run(other.position("yams", puzzle.id)) == puzzle
        assert other._by_id["yams"][puzzle.id] == puzzle  # read once, then kept
    with pytest.raises(TrainingError):  # another preset's id is not this one's
        asyncio.run(other.position("yamb", extra[0].id))
