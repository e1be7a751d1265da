"""The terminal score-keeper, driven line by line as a player would type."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from yambak.engine import replay
from yambak.rules import load_ruleset, load_ruleset_arg
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
    assert out[1].startswith("  Ann: Down · Ones, 2")
    assert "Bram: En deux · Straight, 30" in out[4]
    assert "Cas: Announce · Sixes, 18" in out[6]
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
    out = s.handle("undo 2")  # the last things done: the correction, then Bram's second entry
    assert out.endswith("\n  Undone: Ann's correction of turn 1\n  Undone: Bram's turn 2")
    assert s.state.totals() == [8, 4] and s.state.current == 1
    assert "  1. Ann" in s.handle("history")
    resumed = KeeperSession.resume(tmp_path / "game.json")
    assert resumed.state.totals() == [8, 4]


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
    assert "Ann: Large straight, 40" in out.stdout and "Grand total" in out.stdout
    assert replay(json.loads(path.read_text())).total(0) == 90


def test_box_names_in_any_case_and_short_forms(tmp_path: Path) -> None:
    s = session(tmp_path)
    assert s.handle("11234").startswith("  dice")
    out = s.handle("s")  # sixes or straight, in four columns: the candidates are listed
    assert out.startswith("Refused:") and "type more of it" in out
    assert s.handle("D.1").startswith("  Ann: Down · Ones, 2")  # Down, Ones: any case, the face number
    s.handle("22345")
    assert s.handle("EnDeux.Straight").startswith("Refused:")  # en deux after roll 1 only: the rules refuse
    assert s.handle("fr.tw").startswith("  Bram: Free · Twos, 4")
    s.handle("66612")
    out = s.handle("sixes")  # free, poot and annonce can all take it
    assert "could be" in out and "Free · Sixes" in out and "Poot · Sixes" in out
    assert s.handle("annonce.si").startswith("  Cas: Announce · Sixes, 18")
    assert s.complete("fr") == [b for b in s.complete("free.") if b.startswith("free.")]
    assert "free.full_house" in s.complete("free.f") and "undo" in s.complete("un")
    yams = KeeperSession.start(load_ruleset("yams"), ["Ann"])
    yams.handle("66612")
    assert yams.handle("SIX").startswith("  Ann: Sixes, 18")  # one column: a bare row, any prefix


def test_undo_takes_a_number_and_nothing_raises(tmp_path: Path) -> None:
    s = session(tmp_path, players=("Ann", "Bram"))
    s.handle("11234")
    s.handle("down.ones")
    for line in ("undo x", "undo 0", "undo -1", "undo 1 2", "undo 5"):
        assert "undo" in s.handle(line) or "entr" in s.handle(line), line
    assert len(s.state.history) == 1
    assert s.handle("undo 1").endswith("\n  Undone: Ann's turn 1")
    import random

    rng = random.Random(7)
    pieces = ["fix", "undo", "1", "0", "66666", "free.", "x", "announce", "strike", "withdraw", "ß", "\x00", "é"]
    pieces += ["sheet", "history", "-1", "f.6", "s", "yam", ".", "..", "free.yam.yam", "🎲", "    ", "help"]
    for _ in range(400):
        line = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 4)))
        out = s.handle(line)
        assert isinstance(out, str) and "Traceback" not in out, line


# Two columns of two boxes, one announced, column points rolled off when tied: a whole game in a few lines.
TINY = """
id = "tiny"
name = "Tiny"
description = "Two columns of two boxes; column points, ties rolled off."
[match]
kind = "column_points"
total_points = 5
ties = "rolloff"
[[rows]]
id = "chance"
kind = "sum"
[[rows]]
id = "yam"
kind = "yam"
points = 50
[[columns]]
id = "free"
order = "free"
points = 3
[[columns]]
id = "annonce"
order = "free"
announce = true
points = 3
"""


def tiny(tmp_path: Path) -> KeeperSession:
    (tmp_path / "tiny.toml").write_text(TINY)
    return KeeperSession.start(load_ruleset_arg(str(tmp_path / "tiny.toml")), ["Ann", "Bram"], tmp_path / "g.json")


def test_a_correction_keeps_the_announcement_and_the_history_marks_it(tmp_path: Path) -> None:
    s = tiny(tmp_path)
    type_lines(s, "11112", "announce annonce.yam", "11111", "annonce.yam")
    assert "entry 1 corrected" in s.handle("fix 1 11122 11111 annonce.yam")  # two rolls: announced, as before
    assert s.state.history[0].announce == "annonce.yam" and s.state.history[0].rolls[0] == (1, 1, 1, 2, 2)
    assert s.handle("history").splitlines()[0].startswith("  1. Ann: Announce · Yam, 50 (announced)   ")
    assert "entry 1 corrected" in s.handle("fix 1 11111 free.yam")
    assert s.state.history[0].announce is None and "(announced)" not in s.handle("history")


def test_a_tied_game_is_rolled_off_on_the_sheet(tmp_path: Path) -> None:
    s = tiny(tmp_path)
    out = type_lines(s, *["12345", "free.chance", "12345", "free.chance", "11111", "free.yam", "11111", "free.yam"])
    out = type_lines(
        s, "12345", "annonce.chance", "12345", "annonce.chance", "11111", "annonce.yam", "11111", "annonce.yam"
    )
    assert "Ann, Bram are tied on Free: a roll-off, 5 dice each" in out[-1] and "Game over" not in out[-1]
    assert s.prompt() == "Roll-off for Free: Ann, 5 dice> "  # the column by its name, not its id
    assert s.handle("1111").startswith("  a roll-off is 5 dice") and s.prompt().endswith("Ann, 5 dice> ")
    assert "  Ann            130   5.5 match points" in s.handle("standings")  # level everywhere: the 11 points split
    out = type_lines(s, "66666", "11111")
    assert "Roll-off for Free: Ann 30, Bram 5" in out[1] and "tied on Announce" in out[1]
    out = type_lines(s, "33333", "33333")  # tied again: roll again
    assert "tied on Announce" in out[1] and s.prompt() == "Roll-off for Announce: Ann, 5 dice> "
    assert "\n  Undone: the roll-off for " in s.handle("undo") and len(s.state.rolloffs) == 1  # that round goes
    out = type_lines(s, "11111", "66666", "22222", "33333")
    assert s.state.match_points() == [3, 8]  # the annonce column's 3 points and the total's 5 by roll-offs
    said = "Game over. Bram wins. On match points, after a roll-off: 8 to 3."  # as the keeper's page says it
    assert out[-1].endswith(said) and s.prompt() == "game over> "
    assert "Roll-off for Total: Ann 22222, Bram 33333" in s.handle("history")  # as the app's panel says it
    resumed = KeeperSession.resume(tmp_path / "g.json")  # every round saved
    assert resumed.state.winners() == [1] and resumed.state.rolloffs == s.state.rolloffs
    assert "bonus" not in s.handle("sheet").lower()  # no upper bonus in these rules: no bonus line


def test_names_follow_the_web_rules() -> None:
    exe = Path(sys.executable).with_name("yambak")

    def keep(*players: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(exe), "keep", "--players", *players], input="quit\n", capture_output=True, text=True, timeout=60
        )

    refused = {
        ("Ann", "ann"): "two players are called ann",
        tuple(f"P{i}" for i in range(17)): "1 to 16 players",
        ("A" * 25,): "at most 24 characters",
        ("\u202e",): "must not be empty",
    }
    for players, why in refused.items():
        out = keep(*players)
        assert out.returncode == 2 and why in out.stderr and out.stderr.count("\n") == 1, (players, out.stderr)
    assert keep(*(f"P{i}" for i in range(16))).returncode == 0


def test_the_keeper_takes_the_names_players_say() -> None:
    """A box by its label (words and all), an alias from the ruleset, or its Croatian label with --lang hr."""
    s = KeeperSession.start(load_ruleset("yams"), ["Ann"])
    assert s.handle("66655").strip().startswith("dice 6 6 6 5 5")
    assert s.handle("Full House").startswith("  Ann: Full house, 25")
    s.handle("66665")
    assert s.handle("poker").startswith("  Ann: Four of a kind, ")  # an alias
    s.handle("12345")
    assert s.handle("petite suite").startswith("  Ann: Small straight, ")  # French, said in any language
    hr = KeeperSession.start(load_ruleset("yams"), ["Ana"], lang="hr")
    hr.handle("66666")
    assert hr.handle("šestice").startswith("  Ana: Šestice, 30")  # its Croatian label, any case


def test_the_keepers_line_mode_speaks_dutch() -> None:
    """--lang nl: the keeper's prompts, the dice typed, the options and a refusal in Dutch (the catalogs'
    sentences and the sheet's Dutch names), the total written the sum of the dice (Kans)."""
    s = KeeperSession.start(load_ruleset("yams"), ["Ann", "Bram"], None, lang="nl")
    assert s.prompt() == "Ann, stenen van worp 1> "
    out = s.handle("66623").splitlines()
    assert out[0] == "  stenen 6 6 6 2 3" and "Kans 23" in out[1] and "chance" not in out[1]
    assert s.prompt() == "Ann, stenen van worp 2 of een vak> "
    assert s.handle("strike kans") == "Geweigerd: Je kunt hier geen vak schrappen voor 0."  # yams strikes nothing
    assert s.handle("kans").splitlines()[0] == f"  Ann: Kans, {6 + 6 + 6 + 2 + 3}"
    assert s.prompt() == "Bram, stenen van worp 1> "
    announcing = KeeperSession.start(load_ruleset("yammen"), ["Ann", "Bram"], None, lang="nl")
    announcing.handle("66623")
    assert announcing.handle("announce annonce yam") == "  aangekondigd: Annonce · Yam"
    assert announcing.prompt() == "Ann (Annonce · Yam aangekondigd), stenen van worp 2 of een vak> "


def test_undo_takes_back_the_last_thing_done_and_names_it(tmp_path: Path) -> None:
    """A correction after later entries is the last thing done: undo takes it back (not the last entry),
    says so, and the history keeps the note (issue 34)."""
    s = session(tmp_path, players=("Ann", "Bram"))
    type_lines(s, "11234", "down.ones", "22345", "free.twos", "22256", "down.twos")
    assert s.undo_label() == "Undo Ann's turn 2"
    s.handle("fix 2 22245 free.twos")
    assert s.undo_label() == "Undo Bram's correction of turn 1" and s.state.totals() == [8, 6]
    out = s.handle("undo")
    assert out.endswith("\n  Undone: Bram's correction of turn 1") and s.state.totals() == [8, 4]
    assert len(s.state.history) == 3 and s.undo_label() == "Undo Ann's turn 2"
    assert s.handle("history").splitlines()[-1].strip() == "Undone: Bram's correction of turn 1"
    resumed = KeeperSession.resume(tmp_path / "game.json")  # the record keeps what was undone
    assert resumed.undo_label() == "Undo Ann's turn 2" and "Undone: Bram's" in resumed.handle("history")
    nl = KeeperSession(s.state, None, "nl")
    assert nl.undo_label() != "Undo Ann's turn 2" and "Ann" in (nl.undo_label() or "")


def test_the_keepers_help_and_answers_in_dutch() -> None:
    """`help` in `yambak keep --plain --lang nl`: the catalog's Dutch for every line (the commands stay as
    typed, DICE and BOX said in Dutch), and what it answers to a bad roll or undo in Dutch too."""
    from yambak.terminal.words import KEEPER_HELP
    from yambak.web.i18n import translations

    dutch = translations("nl").gettext
    s = KeeperSession.start(load_ruleset("yams"), ["Ann", "Bram"], None, lang="nl")
    flat = " ".join(s.handle("help").split())
    for _, text in KEEPER_HELP:
        assert dutch(text) != text and " ".join(dutch(text).split()) in flat, text
    assert "fix N STENEN.. VAK" in flat and "announce VAK" in flat and "DICE" not in flat
    assert s.handle("6662") == "Niet begrepen: een worp is alle 5 stenen, elk 1 tot 6, bv. 66231."
    assert s.handle("undo x") == "  undo neemt een aantal invullingen terug, bv. undo of undo 2"
    assert s.handle("history") == "  nog niets ingevuld"
