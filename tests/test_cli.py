"""The `yambak` command: listing, showing and replaying, and clean errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from yambak.cli import main

GOLDEN = Path(__file__).parent / "golden" / "cases"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_lists_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == [
        "yamb",
        "yamb-6",
        "yammen",
        "yams",
        "yams-de",
        "yams-fr",
        "yatzy",
    ]


def test_rules_shows_a_layout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "yams-fr", "--option", "columns=3")
    assert (
        code == 0
        and "columns=3" in out
        and "\n  dry " not in out
        and "\n  up " in out
        and "max must be higher than min" in out
    )
    code, _, err = run(capsys, "rules", "yams-fr", "--option", "columns=5")
    assert code == 2 and err.strip() == "yambak: options.columns: 5 is not one of 1, 3, 4"


def test_replay_json_matches_golden(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    case = json.loads((GOLDEN / "yammen--full-game-two-players.json").read_text())
    path = tmp_path / "game.json"
    path.write_text(json.dumps(case["record"]))
    code, out, _ = run(capsys, "replay", str(path), "--json")
    assert code == 0 and json.loads(out) == case["expected"] and len(out.strip().splitlines()) == 1
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "match points" in out and "winner: Ann" in out


def test_replay_reports_the_first_illegal_turn(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    case = json.loads((GOLDEN / "yams--illegal-box-closed.json").read_text())
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(case["record"]))
    code, out, err = run(capsys, "replay", str(path), "--json")
    assert code == 2 and out == ""
    assert err.startswith(f"yambak: turn {case['error']['turn']}: ") and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("content", ["not json", "[]", "{}", '{"format": "yambak-game/1"}', "\u0000"])
def test_replay_never_tracebacks(capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(content)
    code, _, err = run(capsys, "replay", str(path))
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1


def test_console_script_exit_codes(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("yambak")
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("yambak ")
    out = subprocess.run([str(exe), "replay", str(tmp_path / "missing.json")], capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.startswith("yambak: cannot read")


def test_simulate_any_bot_on_any_preset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "simulate", "--rules", "yammen", "--bot", "hard", "--games", "4", "--seed", "3", "--json"
    )
    result = json.loads(out)
    assert code == 0 and result["games"] == 4 and result["bot"] == "hard"
    assert 0 <= result["upper_bonus_rate"] <= 1 and 0 <= result["yam_rate"] <= 1
    assert set(result["percentiles"]) == {"5", "25", "50", "75", "95"}
    code, again, err = run(
        capsys, "simulate", "--rules", "yammen", "--bot", "hard", "--games", "4", "--seed", "3", "--json", "--progress"
    )
    assert code == 0 and "4/4" in err  # the progress bar goes to stderr, the JSON stays clean
    assert json.loads(again)["mean"] == result["mean"]  # the same seed, the same games
    code, _, err = run(capsys, "simulate", "--rules", "yammen", "--bot", "optimal", "--games", "4")
    assert code == 2 and "no exact optimal strategy" in err
    code, _, err = run(capsys, "simulate", "--rules", "yams", "--bot", "genius", "--games", "4")
    assert code == 2 and err.startswith("yambak: unknown bot")
