"""The terminal score-keeper, driven line by line as a player would type."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from yambak.engine import replay
from yambak.rules import load_ruleset
from yambak.terminal.keeper import KeeperSession, parse_dice


def session(tmp_path: Path, preset: str = "yammen", players: tuple[str, ...] = ("Ann", "Bram", "Cas")) -> KeeperSession:
    return KeeperSession.start(load_ruleset(preset), list(players), tmp_path / "game.json")


def type_lines(s: KeeperSession, *lines: str) -> list[str]:
    return [s.handle(line) for line in lines]


def test_parse_dice() -> None:
    assert parse_dice("66231", 5) == (6, 6, 2, 3, 1)
    assert parse_dice("6 6 2 3 1", 5) == (6, 6, 2, 3, 1)
    assert parse_dice("66237", 5) is None and parse_dice("6623", 5) is None and parse_dice("free.ones", 5) is None


def test_a_round_is_kept_and_saved(tmp_path: Path) -> None:
    s = session(tmp_path)
    out = type_lines(s, "11234", "down.ones", "22345", "23456", "en_deux.straight", "66612", "annonce.sixes")
    assert out[1].startswith("  Ann: down.ones = 2")
    assert "Bram: en_deux.straight = 30" in out[4]
    assert "Cas: annonce.sixes = 18" in out[6]
    saved = json.loads((tmp_path / "game.json").read_text())
    assert [t["box"] for t in saved["turns"]] == ["down.ones", "en_deux.straight", "annonce.sixes"]
    assert replay(saved).totals() == [2, 30, 18]


def test_refusals_change_nothing(tmp_path: Path) -> None:
    s = session(tmp_path)
    out = type_lines(s, "free.ones", "1234", "77777", "11234", "down.twos", "poot.ones x", "announce free.ones", "foo")
    assert out[0].startswith("Refused: roll the dice")
    assert out[7].startswith("Not understood: 'foo' is neither dice nor a box")
    assert out[1].startswith("Not understood") and out[2].startswith("Not understood")
    assert out[4].startswith("Refused: down is filled down")
    assert out[5].startswith("Not understood")
    assert out[6].startswith("Refused:") and "not in an announce column" in out[6]
    assert s.state.totals() == [0, 0, 0] and len(s.state.turn.rolls) == 1


def test_undo_and_fix(tmp_path: Path) -> None:
    s = session(tmp_path, players=("Ann", "Bram"))
    type_lines(s, "11234", "down.ones", "22345", "free.twos", "22256", "down.twos", "33312", "free.threes")
    assert s.state.totals() == [8, 13]
    out = s.handle("fix 1 11134 down.ones")
    assert "entry 1 corrected" in out and s.state.totals() == [9, 13]
    out = s.handle("fix 1 11234 free.ones")  # would break Ann's down.twos (entry 3)
    assert "entry 3 is no longer legal" in out and s.state.totals() == [9, 13]
    assert "undid 2 entries" in s.handle("undo 2")
    assert s.state.totals() == [3, 4] and s.state.current == 0
    assert "  1. Ann" in s.handle("history")
    resumed = KeeperSession.resume(tmp_path / "game.json")
    assert resumed.state.totals() == [3, 4]


def test_command_line_keeper(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("yambak")
    path = tmp_path / "g.json"
    lines = "12345\nlarge_straight\n66666\nyam\nsheet\nquit\n"
    out = subprocess.run(
        [str(exe), "keep", "yams", "--players", "Ann", "--save", str(path)],
        input=lines,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "Ann: free.large_straight = 40" in out.stdout and "grand total" in out.stdout
    assert replay(json.loads(path.read_text())).total(0) == 90


def test_box_names_in_any_case_and_short_forms(tmp_path: Path) -> None:
    s = session(tmp_path)
    assert s.handle("11234").startswith("  dice")
    out = s.handle("s")  # sixes or straight, in four columns: the candidates are listed
    assert out.startswith("Refused:") and "type more of it" in out
    assert s.handle("D.1").startswith("  Ann: down.ones = 2")  # Down, Ones: any case, the face number
    s.handle("22345")
    assert s.handle("EnDeux.Straight").startswith("Refused:")  # en deux after roll 1 only: the rules refuse
    assert s.handle("fr.tw").startswith("  Bram: free.twos = 4")
    s.handle("66612")
    out = s.handle("sixes")  # free, poot and annonce can all take it
    assert "could be" in out and "free.sixes" in out and "poot.sixes" in out
    assert s.handle("annonce.si").startswith("  Cas: annonce.sixes = 18")
    assert s.complete("fr") == [b for b in s.complete("free.") if b.startswith("free.")]
    assert "free.full_house" in s.complete("free.f") and "undo" in s.complete("un")
    yams = KeeperSession.start(load_ruleset("yams"), ["Ann"])
    yams.handle("66612")
    assert yams.handle("SIX").startswith("  Ann: free.sixes = 18")  # one column: a bare row, any prefix


def test_undo_takes_a_number_and_nothing_raises(tmp_path: Path) -> None:
    s = session(tmp_path, players=("Ann", "Bram"))
    s.handle("11234")
    s.handle("down.ones")
    for line in ("undo x", "undo 0", "undo -1", "undo 1 2", "undo 5"):
        assert "undo" in s.handle(line) or "entr" in s.handle(line), line
    assert len(s.state.history) == 1
    assert s.handle("undo 1").startswith("  undid 1 entry")
    import random

    rng = random.Random(7)
    pieces = ["fix", "undo", "1", "0", "66666", "free.", "x", "announce", "strike", "withdraw", "ß", "\x00", "é"]
    pieces += ["sheet", "history", "-1", "f.6", "s", "yam", ".", "..", "free.yam.yam", "🎲", "    ", "help"]
    for _ in range(400):
        line = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
        out = s.handle(line)
        assert isinstance(out, str) and "Traceback" not in out, line
