"""Golden game records, worked by hand from docs/rules.md: replayed and diffed.

Each file in cases/ holds a record and either the exact `replay --json` result
or the first illegal turn and its error code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yambak.engine import RecordError, replay, state_to_record, summary
from yambak.rules import preset_ids

CASES = sorted((Path(__file__).parent / "cases").glob("*.json"))


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_golden_case(path: Path) -> None:
    case = json.loads(path.read_text())
    if "error" in case:
        with pytest.raises(RecordError) as info:
            replay(case["record"])
        assert (info.value.turn, info.value.code) == (case["error"]["turn"], case["error"]["code"]), str(info.value)
    else:
        state = replay(case["record"])
        assert summary(state) == case["expected"]
        # and the state turns back into the same record
        again = state_to_record(state).to_dict()
        assert replay(again).sheets == state.sheets


def test_every_preset_has_a_golden_game() -> None:
    covered = {p.name.split("--")[0] for p in CASES if "error" not in json.loads(p.read_text())}
    assert set(preset_ids()) <= covered
