"""Published optimal values, state counts, the cache and what the solver refuses."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yambak.rules import RulesetError
from yambak.solver import Strategy, UnsupportedRuleset, solve


def test_yams_optimal_value_official_joker(yams: Strategy) -> None:
    # docs/rules.md §6: forced joker, +100 per further yam while the box holds 50.
    assert yams.expected_score == pytest.approx(254.5877287, abs=1e-6)
    assert yams.states == 536_448


def test_yatzy_optimal_value(yatzy: Strategy) -> None:
    assert yatzy.expected_score == pytest.approx(248.4399894, abs=1e-6)
    assert yatzy.states == 1_430_528


def test_yams_fr_one_column_without_max_min(yams_fr: Strategy) -> None:
    # Pinned from this solver (no published figure): guards against silent changes.
    assert yams_fr.expected_score == pytest.approx(211.5325507, abs=1e-6)
    assert yams_fr.states == 357_632


def test_yams_fr_one_column_with_max_min(
    yams_fr_max_min: Strategy, yams_fr_max_min_free: Strategy, yams_fr: Strategy
) -> None:
    # Pinned from this solver (no published figure); the end games are checked by brute force
    # (test_induction). Dropping the relation can only help, and two more sum rows help a lot.
    assert yams_fr_max_min.expected_score == pytest.approx(273.0740486, abs=1e-6)
    assert yams_fr_max_min.states == 20_027_392
    assert yams_fr_max_min_free.expected_score == pytest.approx(273.6248236, abs=1e-6)
    assert yams_fr_max_min_free.states == 1_430_528
    assert yams_fr.expected_score < yams_fr_max_min.expected_score <= yams_fr_max_min_free.expected_score


def test_relation_table_round_trip(yams_fr_max_min: Strategy, cache_folder: Path) -> None:
    again = solve("yams-fr", {"columns": 1}, folder=cache_folder)
    assert again.loaded and again.states == yams_fr_max_min.states
    assert np.array_equal(again.table, yams_fr_max_min.table)


def test_tables_are_float64(yams: Strategy) -> None:
    assert yams.table.dtype == np.float64


def test_cache_round_trip(yams: Strategy, cache_folder: Path) -> None:
    again = solve("yams", folder=cache_folder)
    assert again.loaded
    assert again.seconds < 1.0
    assert np.array_equal(again.table, yams.table)
    assert again.states == yams.states


@pytest.mark.usefixtures("yams_fr")
def test_cache_key_depends_on_options(cache_folder: Path) -> None:
    names = {p.name for p in cache_folder.iterdir()}
    assert any(n.startswith("yams-fr-mean-v") for n in names)
    assert any(n.startswith("yams-mean-v") for n in names)


def test_damaged_cache_file_is_recomputed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from yambak.rules import load_ruleset
    from yambak.solver import table as table_module
    from yambak.solver.objective import MeanScore

    ruleset = load_ruleset("yams")
    path = table_module._cache_path(ruleset, MeanScore(), tmp_path)
    path.write_bytes(b"not a table")
    calls = []

    def fake_solve_table(sr, _objective, **_threads):  # type: ignore[no-untyped-def]
        calls.append(sr)
        return np.zeros((sr.n_states, 1)), 7

    monkeypatch.setattr(table_module, "solve_table", fake_solve_table)
    strategy = solve(ruleset, folder=tmp_path)
    assert calls and not strategy.loaded and strategy.states == 7
    assert solve(ruleset, folder=tmp_path).loaded  # the bad file was replaced


@pytest.mark.parametrize(
    "preset, options, words",
    [
        ("yams-fr", {}, "4 columns"),
        ("yams-fr", {"columns": 3}, "3 columns"),
        ("yamb", {}, "columns"),
        ("yammen", {}, "columns"),
    ],
)
def test_unsupported_rulesets_say_why(preset: str, options: dict, words: str, tmp_path: Path) -> None:
    with pytest.raises(UnsupportedRuleset, match=words):
        solve(preset, options, folder=tmp_path)
    assert not list(tmp_path.iterdir())


def test_unknown_preset_is_a_ruleset_error(tmp_path: Path) -> None:
    with pytest.raises(RulesetError):
        solve("nope", folder=tmp_path)


def test_a_custom_id_cannot_leave_the_cache_folder(tmp_path) -> None:
    from yambak.rules import load_ruleset

    data = {"id": "../../" + "x" * 500, "rows": [{"id": "c", "kind": "sum"}], "columns": [{"id": "free"}]}
    solve(load_ruleset(data), folder=tmp_path / "cache")
    (table,) = (tmp_path / "cache").iterdir()
    assert table.name.startswith("______x") and len(table.name) < 100
