"""The `yambak` command: listing, showing and replaying, and clean errors."""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from yambak.cli import COMMANDS, main
from yambak.rules import preset_ids

GOLDEN = Path(__file__).parent / "golden" / "cases"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_lists_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == preset_ids()


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


HEAVY = ("numpy", "numba", "textual", "yambak.solver", "yambak.server")


def _modules_loaded(argv: list[str], heavy: tuple[str, ...]) -> list[str]:
    """The `heavy` modules (and their submodules) a fresh interpreter holds after building the parser
    and parsing `argv`."""
    probe = f"""
import contextlib, io, json, sys
import yambak.cli
parser = yambak.cli.build_parser()
with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
    parser.parse_args({argv!r})
print(json.dumps(sorted(m for m in sys.modules if m in {heavy!r} or m.startswith(tuple(h + "." for h in {heavy!r})))))
"""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    loaded: list[str] = json.loads(out.stdout)
    return loaded


@pytest.mark.parametrize("argv", [[], ["--help"], ["play", "--help"], ["rules", "--help"]])
def test_the_command_line_starts_without_the_heavy_layers(argv: list[str]) -> None:
    """`yambak --help` (and the parser behind every command) imports no solver, server, numpy or Textual:
    each command's layer loads when that command is chosen."""
    assert _modules_loaded(argv, HEAVY) == []


@pytest.mark.parametrize("command", ["solve", "hint", "review", "simulate", "strategy"])
def test_a_solver_command_help_loads_no_numpy(command: str) -> None:
    """The solver's and the coach's commands live in their packages, which load for their `--help`; numpy,
    numba (and the rest of the solver) only when the command runs."""
    heavy = ("numpy", "numba", "textual", "yambak.server", "yambak.solver.table", "yambak.solver.advisor")
    assert _modules_loaded([command, "--help"], heavy) == []


@pytest.mark.parametrize("command", ["simulate", "duel", "fit"])
def test_a_bot_command_help_loads_no_rules(command: str) -> None:
    """The bots' commands name a ruleset only in a type hint: their `--help` loads neither the rules'
    loader nor the engine (they once put `yambak simulate --help` at 0.5 s on a loaded machine)."""
    assert _modules_loaded([command, "--help"], (*HEAVY, "yambak.rules.loader", "yambak.engine")) == []


def test_the_command_table_matches_what_the_layers_register() -> None:
    """Every command `yambak --help` lists is registered by the module the table names, with the same help."""
    for module in dict.fromkeys(where for where, _ in COMMANDS.values()):
        sub = argparse.ArgumentParser(prog="yambak").add_subparsers()
        importlib.import_module(module).register(sub)
        registered = {action.dest: action.help for action in sub._choices_actions}
        assert registered == {name: help_line for name, (where, help_line) in COMMANDS.items() if where == module}


def test_every_command_help_is_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    """`yambak COMMAND --help` shows the command's real options, not the table's stand-in."""
    for name in COMMANDS:
        code = main([name, "--help"])
        out = capsys.readouterr().out
        assert code == 0 and out.startswith(f"usage: yambak {name} [-h]"), (name, out[:80])


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


# --- every user error: one line `yambak: ...`, status 2, no traceback (issue 9, item 5) ----------------

HUGE_POINTS = """
id = "huge"
[[rows]]
id = "chance"
kind = "sum"
[[rows]]
id = "yam"
kind = "yam"
points = 100000000000000000000000000
[[columns]]
id = "free"
"""

CUSTOM = """
id = "custom3"
[[rows]]
id = "threes"
kind = "upper"
face = 3
[[rows]]
id = "chance"
kind = "sum"
[[rows]]
id = "yam"
kind = "yam"
points = 50
[[columns]]
id = "free"
[options.bigyam]
default = false
values.true = { set = { "rows.yam.points" = 100 } }
values.false = { set = {} }
"""


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder of hostile and friendly inputs, made the working directory; stdin is empty."""
    (tmp_path / "binary.dat").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "binary.toml").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp_path / "deep-object.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    (tmp_path / "deep.toml").write_text("a = " + "[" * 100_000 + "]" * 100_000)
    (tmp_path / "big.toml").write_text("#" * (2 << 20))
    (tmp_path / "bigint.toml").write_text('id = "n"\n[[rows]]\nid = "chance"\nkind = "sum"\npoints = ' + "9" * 5000)
    (tmp_path / "bigint.json").write_text('{"rules": "yams", "players": ["A"], "seed": ' + "9" * 5000 + "}")
    (tmp_path / "latin1.toml").write_bytes('id = "caf\xe9"\n'.encode("latin-1"))
    (tmp_path / "huge.toml").write_text(HUGE_POINTS)
    (tmp_path / "custom.toml").write_text(CUSTOM)
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "folder.toml").mkdir()
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


HOSTILE: list[tuple[str, str]] = [
    # the six inputs of the issue, and serve's port
    ("keep binary.dat --players A", "binary.dat: not a text file"),
    ("keep binary.toml --players A", "binary.toml: not a text file"),
    ("hint --record deep.json", "nested too deeply"),
    ("simulate --rules yams --plot x.txt --games 5", "--plot x.txt: name a file ending in one of"),
    ("keep --resume missing.json", "cannot read missing.json"),
    ("keep --save no/such/dir/g.json --players A", "cannot write no/such/dir/g.json"),
    ("play huge.toml --bots hard", "points: must be between"),
    ("serve --port 99999", "--port: 99999 is not between 1 and 65,535"),
    # ruleset arguments
    ("rules nope", "unknown preset 'nope'"),
    ("rules yams -o columns=3", "options.columns: unknown option"),
    ("rules custom.toml -o nope=1", "options.nope: unknown option"),
    ("rules custom.toml -o bigyam=maybe", "options.bigyam"),
    ("rules -o columns=3", "name the ruleset"),
    ("rules deep.toml", "nested too deeply"),
    ("rules big.toml", "larger than"),
    ("rules bigint.toml", "bigint.toml: a number too large"),
    ("solve bigint.toml", "bigint.toml: a number too large"),
    ("keep bigint.toml --players A", "bigint.toml: a number too large"),
    ("keep --resume bigint.json", "record: a number too large"),
    ("replay bigint.json", "record: a number too large"),
    ("rules latin1.toml", "not a text file"),
    ("rules folder.toml", "Is a directory"),
    ("rules missing.toml", "cannot read"),
    ("solve yams-fr", "one-column rulesets only"),
    ("solve yams --six-dice", "modifiers (six_dice) are not solved exactly"),
    ("solve binary.dat", "not a text file"),
    ("solve", "required: RULESET"),
    # hint
    ("hint", "hint needs --rules"),
    ("hint --rules yams --dice 1 2 3 4 7", "--dice: 7 is not between 1 and 6"),
    ("hint --rules yams --dice 1 2 3 4", "give the 5 dice showing, not 4"),
    ("hint --rules yams --dice a b c d e", "'a' is not a whole number"),
    ("hint --rules yams --dice 1 2 3 4 5 --roll 9", "roll must be 1 to 3"),
    ("hint --rules yams --dice 1 2 3 4 5 --roll -1", "--roll: -1 is not between"),
    ("hint --rules yams --dice 1 2 3 4 5 --held 6", "held dice must be among the dice"),
    ("hint --rules yams --dice 1 2 3 4 5 --filled ones", "write ROW=VALUE"),
    ("hint --rules yams --dice 1 2 3 4 5 --filled ones=x", "'x' is not a whole number"),
    ("hint --rules yams --dice 1 2 3 4 5 --filled nope=3", "no box 'nope'"),
    ("hint --rules yams --dice 1 2 3 4 5 --filled ones=-3", "-3 is not a box value"),
    ("hint --rules yams --dice 1 2 3 4 5 --filled ones=999999999999999999999", "cannot be written there"),
    ("hint --rules yams --dice 1 2 3 4 5 --top -1", "--top: -1 is not between"),
    ("hint --rules yams --dice 1 2 3 4 5 --bonus -5", "--bonus: -5 is not between"),
    ("hint --rules yams --roll 1", "dice must be 5 values"),
    ("hint --rules yamb --dice 1 2 3 4 5 --filled down.ones=7", "no dice write 7 in down.ones"),
    ("hint --rules yamb --dice 1 2 3 4 5 --filled up.ones=3", "up.ones is not next"),
    ("hint --rules yamb --dice 1 2 3 4 5 --filled down.nope=3", 'no box "down.nope"'),
    ("hint --rules yamb --dice 1 2 3 4 5 --held 6", "--held 6: not among the dice"),
    ("hint --rules yamb --dice 1 2 3 4 5 --roll 4", "no rolls left"),
    ("hint --rules yamb --dice 1 2 3 4 5 --upper 3", "--upper and --bonus are for one-column sheets"),
    ("hint --record missing.json", "cannot read missing.json"),
    ("hint --record folder", "Is a directory"),
    ("hint --record binary.dat", "not a text file"),
    ("hint --record empty.json", "not valid JSON"),
    ("hint --record deep-object.json", "nested too deeply"),
    ("hint --record deep.json --dice 1 2 3 4 5", "--record gives the whole position"),
    # simulate and duel
    ("simulate", "required: --rules"),
    ("simulate --rules yams --games 0", "--games: 0 is not between"),
    ("simulate --rules yams --games -5", "--games: -5 is not between"),
    ("simulate --rules yams --games 1e3", "'1e3' is not a whole number"),
    ("simulate --rules yams --seed -1", "--seed: -1 is not between"),
    ("simulate --rules yams --workers 0", "--workers: 0 is not between 1 and 32"),
    ("simulate --rules yams --workers 1000", "--workers: 1000 is not between 1 and 32"),
    ("simulate --rules yams --bot genius", "unknown bot 'genius'"),
    ("simulate --rules yamb --bot optimal --games 2", "no exact optimal strategy"),
    ("simulate --rules yams --plot no/such/dir/x.png --games 5", "no folder no/such/dir"),
    ("simulate --rules yams --plot folder --games 5", "it is a directory"),
    ("simulate --rules yams --plot noext --games 5", "name a file ending in one of"),
    ("duel --rules yams --bots a b", "unknown bot 'a'"),
    ("duel --rules yams --bots hard", "expected 2 arguments"),
    ("duel --rules yams --games 0", "--games: 0 is not between"),
    ("duel --rules yams --workers 1000", "--workers: 1000 is not between"),
    ("duel --rules nope.toml", "nope.toml: cannot read"),
    # keep, play, replay, serve
    ("keep", "name the players"),
    ("keep --players ''", "player 1 name must not be empty"),
    ("keep nope --players A", "unknown preset 'nope'"),
    ("keep --resume folder", "Is a directory"),
    ("keep --resume deep.json", "nested too deeply"),
    ("keep --resume custom.toml --players A", "drop --players"),
    ("keep --save folder --players A", "it is a directory"),
    ("keep yams -o x=1 --players A", "options.x: unknown option"),
    ("play --bots nobody", "unknown bot 'nobody'"),
    ("play --seed -4", "--seed: -4 is not between"),
    ("play binary.dat", "not a text file"),
    ("replay", "required: file"),
    ("replay missing.json", "cannot read missing.json"),
    ("replay folder", "Is a directory"),
    ("replay binary.dat", "not a text file"),
    ("replay deep-object.json", "nested too deeply"),
    ("serve --port 0", "--port: 0 is not between"),
    ("serve --port abc", "'abc' is not a whole number"),
    ("serve --bot-delay nan", "--bot-delay: nan is not between"),
    ("serve --db nosuch://x", "not a database URL"),
    ("serve --db ''", "not a database URL"),
    ("serve --redis 'not a url'", "--redis: 'not a url' is not a Redis URL"),
    ("serve --redis redis://h:port/0", "is not a Redis URL"),
    ("serve --host 999.999.1.1", "--host '999.999.1.1': not an address"),
    ("serve --bot-delay 1e999", "--bot-delay: 1e999 is not between"),
    # the parser itself
    ("nosuchcommand", "invalid choice: 'nosuchcommand'"),
    ("--nosuchoption", "unrecognized arguments: --nosuchoption"),
    ("rules yams --nosuch", "unrecognized arguments: --nosuch"),
]


@pytest.mark.parametrize("line, message", HOSTILE, ids=[h[0] for h in HOSTILE])
@pytest.mark.usefixtures("files")
def test_hostile_input_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], line: str, message: str
) -> None:
    code, out, err = run(capsys, *shlex.split(line))
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("yambak: ") and "Traceback" not in err, err
    assert message in err
    assert out == ""  # refused before anything started


@pytest.mark.usefixtures("files")
def test_every_ruleset_command_takes_a_toml_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "custom.toml", "-o", "bigyam=true")
    assert code == 0 and "Options: bigyam=true" in out and "100" in out
    code, out, _ = run(capsys, "solve", "custom.toml", "--json")
    plain = json.loads(out)["expected_score"]
    code, out, _ = run(capsys, "solve", "custom.toml", "-o", "bigyam=true", "--json")
    assert code == 0 and json.loads(out)["expected_score"] > plain  # -o on a file is applied
    code, out, _ = run(capsys, "hint", "--rules", "custom.toml", "--dice", "3", "3", "3", "1", "2", "--roll", "1")
    assert code == 0 and "best: keep 3 3 3" in out
    for bot in ("optimal", "greedy"):
        code, out, _ = run(capsys, "simulate", "--rules", "custom.toml", "--bot", bot, "--games", "30", "--json")
        assert code == 0 and json.loads(out)["games"] == 30
    code, out, _ = run(capsys, "duel", "--rules", "custom.toml", "--bots", "hard", "easy", "--games", "2", "--json")
    assert code == 0 and json.loads(out)["games"] == 2
    code, out, _ = run(capsys, "keep", "custom.toml", "-o", "bigyam=true", "--players", "A", "--save", "g.json")
    assert code == 0 and "Keeping custom3" in out
    code, out, _ = run(capsys, "play", "custom.toml", "--players", "A", "--seed", "1")
    assert code == 0 and "custom3" in out


@pytest.mark.usefixtures("files")
def test_a_saved_file_game_resumes_with_its_options(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    sys.stdin = io.StringIO("66666\nyam\n")
    code, out, _ = run(capsys, "keep", "custom.toml", "-o", "bigyam=true", "--players", "A", "--save", "g.json")
    assert code == 0 and "A: Yam, 100" in out
    sys.stdin = io.StringIO("sheet\n")
    code, out, err = run(capsys, "keep", "--resume", "g.json")
    assert code == 0 and "100" in out, err


@pytest.mark.usefixtures("files")
def test_modifiers_are_options_of_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "yams", "--six-dice")
    assert code == 0 and "6 dice" in out
    code, out, _ = run(capsys, "keep", "yams", "--duplicate", "--six-dice", "--players", "A", "--save", "g.json")
    assert code == 0
    import sys

    sys.stdin = io.StringIO("666661\nyam\n")
    code, out, _ = run(capsys, "keep", "yams", "--six-dice", "--players", "A", "--save", "g.json")
    assert code == 0 and "A: Yams, 50" in out
    rules = json.loads(Path("g.json").read_text())["rules"]
    assert rules == {"preset": "yams", "options": {}, "modifiers": ["six_dice"]}
    argv = ["duel", "--rules", "yamb", "--six-dice", "--bots", "hard", "easy", "--games", "2", "--json"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and json.loads(out)["games"] == 2


@pytest.mark.usefixtures("files")
def test_a_point_value_below_the_limit_plays(capsys: pytest.CaptureFixture[str]) -> None:
    limit = "1000000"  # POINTS_LIMIT, in a yam row and an upper bonus no sheet can reach
    bonus = f'[[rows]]\nid = "sixes"\nkind = "upper"\nface = 6\n[upper_bonus]\nthreshold = {limit}\npoints = {limit}\n'
    Path("million.toml").write_text(HUGE_POINTS.replace("100000000000000000000000000", limit) + bonus)
    code, out, err = run(capsys, "simulate", "--rules", "million.toml", "--bot", "hard", "--games", "10", "--json")
    assert code == 0, err
    assert json.loads(out)["games"] == 10


def test_no_python_reprs_in_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "yamb", "-o", "extra=hand,updown")
    assert code == 0 and "extra=hand,updown" in out and "[" not in out.split("Columns:")[0]
    code, out, _ = run(capsys, "rules", "yams-fr", "-o", "max_min=false")
    assert code == 0 and "max_min=false" in out and "True" not in out and "False" not in out


def test_hint_answers_six_dice_and_rules_without_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    """`hint --dice` takes as many dice as the ruleset rolls; where the solver has no table (Maxi Yatzy's
    six dice and saved rolls) the strong bot's estimate answers, labelled, as the web coach does."""
    code, out, _ = run(capsys, "hint", "--rules", "maxi-yatzy", "--dice", "6", "6", "6", "2", "3", "1", "--roll", "1")
    assert code == 0 and "estimate" in out and "best: " in out and "keep 6 6 6" in out
    code, _, err = run(capsys, "hint", "--rules", "maxi-yatzy", "--dice", "6", "6", "6", "2", "3")
    assert code == 2 and "give the 6 dice showing, not 5" in err
    code, out, _ = run(capsys, "hint", "--rules", "generala", "--dice", "4", "4", "4", "4", "4", "--roll", "1")
    assert code == 0 and "best: score yam" in out  # served: the win
