"""Graded decisions in the store (store/decisions.py), on SQLite and PostgreSQL: a grade writes its rows once,
they go with their result and their profile, and a ruleset's aggregate counts only the games the server
rolled without help, of closed deals only, and shows its kinds from 100 graded games on."""

from __future__ import annotations

import secrets
from collections import defaultdict
from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select

from yambak.store import DealRow, DecisionRow, ResultRow, SessionRow, Store
from yambak.store.models import GradedDecision, Result

T0 = datetime(2026, 12, 1, 12, 0)
KINDS = ("keep", "box", "strike", "announce")
BOXES = ("ones", "chance", "yam")


def _profile(store: Store, name: str = "Ann") -> str:
    pid = secrets.token_urlsafe(9)
    store.create_profile(pid, name, secrets.token_hex(32), T0)
    return pid


def _result(pid: str, n: int, **kw) -> ResultRow:
    base = dict(
        profile_id=pid, kind="table", ref=f"t{n}-{secrets.token_hex(3)}", seat=0, preset="yams", rules_id="yams",
        finished_at=T0 + timedelta(minutes=n), score=200, won=False, players=1, counted=True,
    )  # fmt: skip
    base.update(kw)
    return ResultRow(**base)


def _rows(n: int, rules_id: str = "yams", unit: str = "score") -> list[DecisionRow]:
    """Game n's decisions: each kind once per box, with losses that differ by game, kind and box (some zero)."""
    out = []
    for k, kind in enumerate(KINDS):
        for b, box in enumerate(BOXES):
            loss = ((n * 7 + k * 3 + b * 5) % 11) / 4  # 0 to 2.5 in quarters: a zero now and then
            out.append(
                DecisionRow(
                    turn=b + 1, roll=1 + k % 3, kind=kind, box=box, dice=(1, 2, 3, 4, 5),
                    chosen={"kind": kind, "box": box}, best={"kind": kind, "box": "yam"}, options=10 + k,
                    loss=loss, unit=unit, exact=True, rules_id=rules_id,
                )
            )  # fmt: skip
    return out


def _graded(store: Store, results: list[ResultRow], rows: list[list[DecisionRow]]) -> None:
    for r, rid in zip(results, store.insert_results(results), strict=True):
        r.id = rid
    store._sync(lambda conn: [Store.grade_op(r, 1.0, len(x), x)(conn) for r, x in zip(results, rows, strict=True)])


def _expected(games: list[list[DecisionRow]]) -> dict[tuple[str, str | None], tuple[int, int, float]]:
    """(count, mistakes, total loss) per (kind, None) and per (kind, box): summed here, row by row."""
    out: dict[tuple[str, str | None], list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for rows in games:
        for r in rows:
            for key in ((r.kind, None), (r.kind, r.box)):
                out[key][0] += 1
                out[key][1] += r.loss > 1e-9
                out[key][2] += r.loss
    return {k: (int(v[0]), int(v[1]), v[2]) for k, v in out.items()}


def test_a_grade_writes_its_rows_once_and_they_go_with_the_result_and_the_profile(store):
    ann, bram = _profile(store), _profile(store, "Bram")
    kept = _result(ann, 1, kind="kept", record={"turns": []})
    table, other = _result(ann, 2), _result(bram, 3)
    _graded(store, [kept, table, other], [_rows(1), _rows(2), _rows(3)])
    store.set_grade(table, 0.75, 12, _rows(2))  # graded again: the same rows, not twice as many
    stored = store.graded_decisions(table.id)
    assert [(d["kind"], d["box"], d["loss"], d["turn"], d["roll"]) for d in stored] == [
        (r.kind, r.box, r.loss, r.turn, r.roll) for r in _rows(2)
    ]
    first = stored[0]
    assert (first["profile_id"], first["table_id"], first["seat"], first["source"]) == (ann, table.ref, 0, "table")
    assert first["dice"] == [1, 2, 3, 4, 5] and first["chosen"] == {"kind": "keep", "box": "ones"}
    assert first["unit"] == "score" and first["counted"] and not first["ranked"] and first["deal_id"] is None
    with store.engine.connect() as conn:
        graded = conn.execute(select(Result.accuracy, Result.decisions).where(Result.id == table.id)).one()
    assert tuple(graded) == (0.75, 12)
    # a kept sheet imported again replaces its result: the old rows go with it
    again = _result(ann, 1, kind="kept", ref=kept.ref, record={"turns": []})
    again.id = store.replace_kept(again)
    assert store.graded_decisions(kept.id) == [] and store.graded_decisions(again.id) == []
    # the profile deleted: its rows go, the other profile's stay
    assert store.delete_profile(ann) is not None
    assert store.graded_decisions(table.id) == [] and len(store.graded_decisions(other.id)) == len(_rows(3))
    with store.engine.connect() as conn:
        left = conn.execute(select(func.count()).where(GradedDecision.profile_id == ann)).scalar_one()
    assert left == 0
    # a grade finishing after its profile was deleted writes nothing
    store.set_grade(table, 0.5, 12, _rows(2))
    assert store.graded_decisions(table.id) == []


def test_ranked_and_duplicate_games_are_flagged_from_their_tables(store):
    pid = _profile(store)
    ranked, dup = secrets.token_hex(8), secrets.token_hex(8)
    store.create(SessionRow(ranked, "", "yams", False, False, None, {}, settings={"ranked": "yams"}))
    store.create(SessionRow(dup, "", "yams", False, True, None, {}))
    results = [_result(pid, 1, ref=ranked), _result(pid, 2, ref=dup)]
    _graded(store, results, [_rows(1), _rows(2)])
    assert {(d["ranked"], d["duplicate"]) for d in store.graded_decisions(results[0].id)} == {(True, False)}
    assert {(d["ranked"], d["duplicate"]) for d in store.graded_decisions(results[1].id)} == {(False, True)}


def test_a_rulesets_losses_count_only_own_closed_games_and_show_from_100(store):
    pid = _profile(store)
    closes = T0 + timedelta(hours=12)
    for deal_id in ("daily:2026-12-01:yams", "daily:2026-12-02:yams"):
        day = T0 if deal_id.endswith("01:yams") else T0 + timedelta(days=1)
        store.ensure_deal(DealRow(deal_id, "daily", "yams", "s", "c", day, day + timedelta(hours=12)))
    counted = [_result(pid, n) for n in range(98)]
    counted.append(_result(pid, 500, kind="daily", deal_id="daily:2026-12-01:yams"))  # closed at `closes`
    left_out = [
        _result(pid, 600, kind="daily", deal_id="daily:2026-12-02:yams"),  # open until the next day
        _result(pid, 601, kind="kept", record={"turns": []}),  # typed by anyone: not the server's dice
        _result(pid, 602, counted=False),  # a hint or a bot's turn
        _result(pid, 603, preset="yatzy", rules_id="yatzy"),  # another ruleset
    ]
    games = [_rows(n) for n in range(99)]
    _graded(store, counted + left_out, [*games, _rows(600), _rows(601), _rows(602), _rows(603, "yatzy")])
    losses = store.decision_losses("yams", closes)
    assert (losses.games, losses.enough, losses.kinds) == (99, False, ())  # one game short: nothing shown
    assert store.decision_losses("yams", closes - timedelta(seconds=1)).games == 98  # the deal still open
    assert store.decision_losses("yatzy", closes).games == 1
    _graded(store, [_result(pid, 99)], [_rows(99)])
    games.append(_rows(99))
    losses = store.decision_losses("yams", closes)
    assert (losses.games, losses.enough, losses.unit) == (100, True, "score")
    expected = _expected(games)
    total = sum(v[2] for (_, box), v in expected.items() if box is None)
    assert [k.kind for k, _ in losses.kinds] == sorted(KINDS, key=lambda k: -expected[(k, None)][2])
    for kind, boxes in losses.kinds:
        n, mistakes, lost = expected[(kind.kind, None)]
        assert (kind.count, kind.mistakes) == (n, mistakes) and kind.box is None
        assert kind.total_loss == pytest.approx(lost, abs=1e-9) and kind.mean_loss == pytest.approx(lost / n)
        assert kind.share == pytest.approx(lost / total)
        assert [b.box for b in boxes] == sorted(BOXES, key=lambda b: (-expected[(kind.kind, b)][2], b))
        for b in boxes:
            bn, bm, bl = expected[(kind.kind, b.box)]
            assert (b.count, b.mistakes, b.kind) == (bn, bm, kind.kind)
            assert b.total_loss == pytest.approx(bl, abs=1e-9) and b.share == pytest.approx(bl / total)
    assert sum(k.share for k, _ in losses.kinds) == pytest.approx(1.0)
    assert store.decision_losses("yams", closes - timedelta(seconds=1)).enough is False  # 99 while the deal is open


def test_a_rulesets_losses_and_mistakes_are_read_in_its_own_unit(store):
    """Balut's grades are in category points (the coach's measure), the others' in points: each aggregate and
    the trainer's costliest mistakes read one unit, never the two mixed (a Balut game graded in pips before
    the coach counted category points stays out of Balut's figures)."""
    pid = _profile(store)
    balut = [_result(pid, n, preset="balut", rules_id="balut") for n in range(3)]
    for r in balut:  # the trainer reads a mistake's position from its table's finished record
        store.create(SessionRow(r.ref, "", "balut", False, False, None, {"turns": []}, finished=True))
    _graded(
        store, balut, [_rows(0, "balut", "category_points"), _rows(1, "balut", "category_points"), _rows(2, "balut")]
    )
    now = T0 + timedelta(days=1)
    counted = store.decision_losses("balut", now, 2, "category_points")
    assert (counted.games, counted.enough, counted.unit) == (2, True, "category_points")
    expected = _expected([_rows(0, "balut", "category_points"), _rows(1, "balut", "category_points")])
    assert {k.kind: k.total_loss for k, _ in counted.kinds} == pytest.approx(
        {kind: expected[(kind, None)][2] for kind in KINDS}
    )
    assert store.decision_losses("balut", now, 1).games == 1  # the pips game alone, in points
    assert store.decision_losses("balut", now, 5, "category_points").unit == "category_points"  # too few: still named
    losses = {(r.kind, r.loss) for r in store.biggest_mistakes("balut", now, 2.0, 100, "category_points")}
    worst = {(r.kind, r.loss) for g in (0, 1) for r in _rows(g, "balut", "category_points") if r.loss >= 2.0}
    assert losses == worst and store.biggest_mistakes("yams", now, 0.0, 100, "category_points") == []
