"""A first run is not a silent wait; a warm `hint` stays in numpy; tables are shared (issue 9, item 6)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yambak.cli import main
from yambak.rules import load_ruleset, load_ruleset_arg
from yambak.solver import Strategy, compiled, solve, table_states, warm
from yambak.solver._induction import keep_values
from yambak.solver.table import solve_estimate

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["yams", "yatzy", "yams_fr_max_min"])
def test_numpy_keep_values_equal_the_kernels(name: str, request: pytest.FixtureRequest) -> None:
    """The numpy path of one position gives the compiled kernels' values, bit for bit, on random states."""
    strategy: Strategy = request.getfixturevalue(name)
    sr = strategy.rules
    states = np.concatenate([sr.level_states(n) for n in range(sr.n_rows)])
    picked = np.random.default_rng(9).choice(states, 60, replace=False)
    numpy_values = keep_values(sr, strategy.table, picked, kernel=False)
    kernel_values = keep_values(sr, strategy.table, picked, kernel=True)
    assert np.array_equal(numpy_values, kernel_values)


@pytest.mark.usefixtures("yams")
def test_hint_on_a_cached_table_does_not_import_numba(cache_folder: Path) -> None:
    code = (
        "import sys; from yambak.cli import main; "
        "main(['hint', '--rules', 'yams', '--dice', '6', '6', '6', '2', '3', '--roll', '1', '--json']); "
        "print('numba' in sys.modules)"
    )
    env = {**os.environ, "YAMBAK_CACHE_DIR": str(cache_folder), "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    advice, numba_loaded = out.stdout.strip().splitlines()
    assert json.loads(advice)["best"]["keep"] == [6, 6, 6] and numba_loaded == "False"


def test_a_cold_compile_is_announced_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(compiled, "kernels_compiled", lambda _names=(): False)  # as on a new machine
    assert main(["hint", "--rules", "yatzy", "--dice", "1", "1", "1", "2", "3", "--roll", "2"]) == 0
    out, err = capsys.readouterr()
    solving, notice = err.splitlines()  # what the command will do, then, on its first need, the compiling
    assert notice == compiled.NOTICE
    assert solving.startswith("yambak: solving the exact table of yatzy once (2,097,152 turn-start states, about ")
    assert "the table solved in" in out.splitlines()[0]  # the whole time, solving included
    assert main(["hint", "--rules", "yatzy", "--dice", "1", "1", "1", "2", "3", "--roll", "2"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "solved" not in out  # the table is cached now; nothing compiles


def test_a_hint_on_a_new_ruleset_says_what_it_solves_and_for_how_long(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = tmp_path / "two.toml"
    rules.write_text(
        'id = "two"\nname = "Two rows"\ncolumns = [{ id = "free" }]\n'
        'rows = [{ id = "ones", kind = "upper", face = 1 }, { id = "chance", kind = "sum" }]\n'
    )
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path / "cache"))
    ruleset = load_ruleset_arg(str(rules))
    entries, _ = solve_estimate(ruleset) or (0, 0.0)
    assert entries == table_states(ruleset) > 0
    hint = ["hint", "--rules", str(rules), "--dice", "1", "1", "2", "3", "4", "--roll", "1", "--json"]
    assert main([*hint[:-3], "--roll", "4"]) == 2  # bad input: its one line, nothing solved
    assert capsys.readouterr().err == "yambak: roll must be 1 to 3 (0 before the first roll)\n"
    assert not (tmp_path / "cache").exists()
    assert main(hint) == 0
    err = capsys.readouterr().err
    assert f"yambak: solving the exact table of Two rows once ({entries:,} turn-start states, about 1 s)" in err
    assert solve_estimate(ruleset) is None  # cached now: the next hint says nothing
    assert main(hint) == 0
    assert capsys.readouterr().err == ""
    # a new ruleset's estimate goes at the pace of the table just solved, kept in its file
    (table,) = (tmp_path / "cache").glob("two-mean-*.npz")
    with np.load(table) as data:
        pace = float(data["seconds"]) / int(data["entries"])
    three = load_ruleset({**_TWO, "rows": [*_TWO["rows"], {"id": "twos", "kind": "upper", "face": 2}]})
    assert solve_estimate(three) == (table_states(three), pytest.approx(table_states(three) * pace))


_TWO: dict[str, Any] = {
    "id": "two",
    "columns": [{"id": "free"}],
    "rows": [{"id": "ones", "kind": "upper", "face": 1}, {"id": "chance", "kind": "sum"}],
}


def test_tables_are_readable_by_the_group(tmp_path: Path) -> None:
    old = os.umask(0o077)
    try:
        solve("yams", {}, folder=tmp_path)
    finally:
        os.umask(old)
    (table,) = tmp_path.glob("yams-*.npz")
    assert stat.S_IMODE(table.stat().st_mode) & 0o040


def test_warm_compiles_every_entry_point() -> None:
    warm.compile_kernels()
    assert compiled.kernels_compiled()
