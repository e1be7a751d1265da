"""`yambak strategy` through `yambak.cli.main`: the shipped data, its JSON, one opening against `hint`."""

from __future__ import annotations

import json

import pytest

from yambak.cli import main


def test_strategy_json_from_the_shipped_yams(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategy", "yams", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("preset", "options", "expected_score", "exact", "odds", "bonus_chance", "openings"):
        assert key in out
    assert out["preset"] == "yams" and out["exact"] is True and out["options"] == {"joker": "forced"}
    assert out["expected_score"] == pytest.approx(254.5877, abs=1e-4)
    assert out["odds"]["yam"][2] == pytest.approx(2_783_176 / 60_466_176)
    assert len(out["openings"]) == 252 and 0.6 < out["bonus_chance"]["free"] < 0.75
    # One first roll through the other command: `hint` (the advisor) says the same best choice.
    opening = next(o for o in out["openings"] if o["roll"] == [1, 2, 3, 3, 4])
    assert main(["hint", "--rules", "yams", "--dice", "1", "2", "3", "3", "4", "--json"]) == 0
    hint = json.loads(capsys.readouterr().out)
    assert opening["best"] == hint["best"] and opening["loss"] > 0


def test_strategy_text_and_odds_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategy", "yams"]) == 0
    text = capsys.readouterr().out
    assert "expected score 254.5877" in text and "4.60%" in text and "6 6 6 6 6: score yam (50)" in text
    assert main(["strategy", "yams-fr", "--odds-only", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["odds"]["dry.yam"]) == 1 and len(out["odds"]["down.yam"]) == 3


def test_the_calculator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["strategy", "yams", "--keep", "6", "6", "6", "6", "--rolls-left", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["chances"]["yam"] == pytest.approx(11 / 36) and out["chances"]["four_kind"] == 1.0
    assert main(["strategy", "yams-fr", "--keep", "--rolls-left", "1", "--column", "dry"]) == 0
    assert "yam" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, error",
    [
        (["strategy", "nope"], "unknown preset"),
        (["strategy", "yams", "-o", "foo=1"], "unknown option"),
        (["strategy", "yams", "--games", "-1"], "--games"),
        (["strategy"], "RULESET"),
        (["strategy", "yams", "--keep", "6"], "--rolls-left"),
        (["strategy", "yams", "--keep", "6", "--rolls-left", "3"], "nothing is held"),
        (["strategy", "yams", "--keep", "7", "--rolls-left", "1"], "--keep"),
        (["strategy", "yams-fr", "--keep", "--rolls-left", "2", "--column", "dry"], "rolls left"),
        (["strategy", "yams-fr", "--keep", "--rolls-left", "1", "--column", "nope"], "no column"),
    ],
)
def test_errors_are_one_line(argv: list[str], error: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("yambak: ") and error in err and err.count("\n") == 1


SMALL = """id = "small"
name = "Small"
[[rows]]
id = "sixes"
kind = "upper"
face = 6
[[rows]]
id = "yam"
kind = "yam"
points = 50
[[rows]]
id = "chance"
kind = "sum"
[[columns]]
id = "free"
"""


def test_a_ruleset_files_figures_are_computed_once_then_read_where_kept(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    assert main(["strategy", str(path), "--json", "--no-progress"]) == 0
    first = capsys.readouterr()
    assert "figures kept in" in first.err
    assert main(["strategy", str(path), "--json", "--no-progress"]) == 0
    again = capsys.readouterr()
    assert "figures kept in" not in again.err and json.loads(again.out) == json.loads(first.out)
    assert json.loads(first.out)["games"] == 100_000 and json.loads(first.out)["exact"] is True
    # other games or another seed are a question of their own: computed, never kept
    assert main(["strategy", str(path), "--json", "--no-progress", "--games", "50"]) == 0
    assert "figures kept in" not in capsys.readouterr().err
