"""A graded ranked game written straight into the store, as the grader writes one: the fair-play tests'
common setup (tests/store/test_fairplay_store.py, tests/server/test_fairplay.py)."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from yambak.store import DecisionRow, ResultRow, SessionRow, Store

T0 = datetime(2026, 12, 1, 12, 0)


def graded_game(
    store: Store,
    pid: str,
    n: int,
    loss: float,
    ranked: bool = True,
    at: datetime = T0,
    preset: str = "yams",
    unit: str = "score",
) -> None:
    """Game n of a preset (yams) for `pid`, finished n minutes after `at`, graded in `unit`: 13 decisions, the
    first losing `loss`."""
    table_id = f"g{n}-{secrets.token_hex(3)}"
    settings = {"ranked": preset} if ranked else {}
    store.create(SessionRow(table_id, "", preset, False, False, None, {}, settings=settings))
    result = ResultRow(
        profile_id=pid, kind="table", ref=table_id, seat=0, preset=preset, rules_id=preset,
        finished_at=at + timedelta(minutes=n), score=250, won=True, players=2, counted=True,
    )  # fmt: skip
    (result.id,) = store.insert_results([result])
    rows = [
        DecisionRow(
            turn=t, roll=1, kind="box", box="chance", dice=(1, 2, 3, 4, 5), chosen={}, best={}, options=3,
            loss=loss if t == 1 else 0.0, unit=unit, exact=unit == "score", rules_id=preset,
        )
        for t in range(1, 14)
    ]  # fmt: skip
    store.set_grade(result, loss / 13, 13, rows)
