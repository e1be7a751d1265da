"""The solve and hint subcommands (and simulate's optimal path), through `yambak.cli.main`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yambak.cli import main


def run(argv: list[str]) -> int:
    return main(argv)


@pytest.mark.usefixtures("yams")
def test_solve_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["solve", "yams", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"preset", "options", "expected_score", "states", "seconds"}
    assert out["expected_score"] == pytest.approx(254.5877, abs=1e-4)
    assert out["states"] == 536_448


@pytest.mark.usefixtures("yatzy")
def test_solve_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["solve", "yatzy"]) == 0
    assert "248.4399894" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "yams-fr"],
        ["solve", "nope"],
        ["solve", "yams-fr", "--option", "columns=2"],
        ["hint", "--rules", "yams", "--dice", "1", "2", "3", "4", "5", "--filled", "ones=7"],
        ["hint", "--rules", "yams", "--dice", "1", "2", "3", "4", "5", "--filled", "ones=3", "--upper", "5"],
        ["hint", "--dice", "1", "2", "3", "4", "5"],
        ["simulate", "--rules", "yamb", "--games", "10"],
    ],
)
@pytest.mark.usefixtures("yams")
def test_user_errors_are_one_line_and_status_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("yambak: ")


@pytest.mark.usefixtures("yams")
def test_hint_typed_position(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "hint",
        "--rules",
        "yams",
        "--dice",
        "6",
        "6",
        "6",
        "2",
        "3",
        "--roll",
        "1",
        "--filled",
        "ones=3,yam=50",
        "--upper",
        "3",
        "--json",
    ]
    assert run(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best"]["keep"] == [6, 6, 6]
    assert out["score"] == 53


@pytest.mark.usefixtures("yams")
def test_hint_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = {
        "format": "yambak-game/1",
        "rules": "yams",
        "players": ["Ann"],
        "seed": None,
        "turns": [{"rolls": [[6, 6, 2, 3, 6], [6, 6, 6, 6, 1]], "box": "sixes"}],
    }
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert run(["hint", "--record", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["score"] == 24 and out["best"] is None  # turn start: roll first


@pytest.mark.usefixtures("yams")
def test_simulate_json_stdout_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        run(
            ["simulate", "--rules", "yams", "--bot", "optimal", "--games", "500", "--seed", "1", "--json", "--progress"]
        )
        == 0
    )
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["preset"] == "yams" and out["bot"] == "optimal" and out["games"] == 500
    assert "500/500" in captured.err  # the progress bar went to stderr


def test_simulate_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "scores.png"
    assert run(["simulate", "--rules", "yatzy", "--bot", "greedy", "--games", "300", "--plot", str(target)]) == 0
    assert target.stat().st_size > 1000


@pytest.mark.usefixtures("yams_fr_max_min")
def test_solve_yams_fr_one_column_with_max_min(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["solve", "yams-fr", "--option", "columns=1"]) == 0
    out = capsys.readouterr().out
    assert "273.0740486" in out and "20,027,392 states" in out
