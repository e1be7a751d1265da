"""A strategy page of a sheet filled in order reads the exact table, and its games fill each box on its turn."""

from __future__ import annotations

from pathlib import Path

from yambak.rules.loader import load_ruleset_file
from yambak.strategy.report import build, has_table

FORCED_YATZY = Path(__file__).parents[2] / "bench" / "rulesets" / "yatzy-down.toml"


def test_forced_yatzy_has_an_exact_page_whose_boxes_come_in_sheet_order() -> None:
    rules = load_ruleset_file(FORCED_YATZY)
    assert has_table(rules)
    data = build(rules, games=500)
    assert data.exact and abs(data.expected_score - 122.5585274) < 1e-6
    assert [(b.box, b.usual_turn, b.mean_turn) for b in data.boxes] == [
        (r.id, i + 1, i + 1) for i, r in enumerate(rules.rows)
    ]
