"""The presets' shipped strategy data: built from each preset as it is now (the fingerprint), with
figures that still agree with the code that reads them (the odds, the rules read off the openings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yambak.rules import load_ruleset, preset_ids
from yambak.strategy import fingerprint, odds, shipped
from yambak.strategy.data_files import DATA_DIR, data_path
from yambak.strategy.openings import Opening, opening_rules

FILES = sorted(DATA_DIR.glob("*.json"))


def test_every_preset_ships_its_figures() -> None:
    """A preset's strategy page answers from the package, not after minutes of games on first visit: a new
    preset comes with its file (python -m yambak.strategy.make_data PRESET)."""
    assert {p.stem for p in FILES} == set(preset_ids())


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_each_file_was_built_from_the_preset_as_it_is_now(path: Path) -> None:
    assert path.stem in preset_ids()
    rules = load_ruleset(path.stem)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["fingerprint"] == fingerprint(rules), f"rebuild: python -m yambak.strategy.make_data {path.stem}"
    loaded = shipped(rules)
    assert loaded is not None and loaded.to_json() == data  # the file reads back whole
    assert data["odds"] == {b.box: list(b.chances) for b in odds(rules)}
    openings = [Opening.from_json(o) for o in data["openings"]]
    assert [r.to_json() for r in opening_rules(openings, rules)] == data["rules"]
    assert data.get("win_points") == (rules.win_points if rules.wins_outright else None)
    if data["exact"]:
        assert len(openings) == 252 and data["games"] >= 100_000 and data["bot"] == "optimal"
    else:
        assert data["games"] >= 2_000 and data["stderr"] > 0


def test_a_variant_is_not_read_from_the_presets_file() -> None:
    variant = load_ruleset("yams", {"joker": "free"})
    assert data_path(variant) is None and shipped(variant) is None
    assert fingerprint(variant) != fingerprint(load_ruleset("yams"))
