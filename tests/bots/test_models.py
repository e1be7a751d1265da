"""The value model is found by the ruleset's fingerprint (options included), never by preset name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from yambak.bots import models
from yambak.bots.evaluate import build_model, fingerprint
from yambak.bots.models import load_params, model_for, model_to_json, params_from_json, save_model
from yambak.engine import new_game
from yambak.rules import load_ruleset, preset_ids

# Presets added after the last batch of fits (their bots play the prior, and say so), with the command that
# fits and ships one (docs/bots.md); an entry here whose fit has landed fails, so the list cannot go stale.
NOT_FITTED_YET: dict[str, str] = {}


def test_every_preset_ships_a_fit() -> None:
    for preset in preset_ids():
        source = model_for(load_ruleset(preset)).source
        assert source == ("prior" if preset in NOT_FITTED_YET else "fitted"), preset


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("yams-fr", {"columns": 1}),
        ("yams-fr", {"max_min": False}),
        ("yams-de", {"flat_bonus": True}),
        ("yams-de", {"strict": True}),
        ("yamb", {"extra": ["hand"]}),
    ],
)
def test_an_option_changes_the_model(preset: str, options: dict[str, object]) -> None:
    """An option variant never borrows the default sheet's fit: its own fit or the prior."""
    default, variant = load_ruleset(preset), load_ruleset(preset, options)
    assert fingerprint(default) != fingerprint(variant)
    model = model_for(variant, background=False)
    assert model.fingerprint == fingerprint(variant)
    assert model.dist.shape == (len(variant.columns), variant.n_rows, model.dist.shape[-1])
    assert np.allclose(model.dist.sum(axis=-1), 1.0)
    if load_params(variant) is None:
        assert model.source == "prior"


def test_the_hand_column_has_a_model() -> None:
    rules = load_ruleset("yamb", {"extra": ["hand"]})
    model = model_for(rules, background=False)
    hand = rules.column_index["hand"]
    # a hand box is filled right after roll 1: its yam is far rarer than the free column's
    yam = rules.row_index["yam"]
    free = rules.column_index["free"]
    assert model.mean[hand, yam] < model.mean[free, yam]


def test_same_rules_under_another_name_share_a_fingerprint() -> None:
    a = load_ruleset("yams-fr", {"columns": 1})
    spec = dict(a.spec) if isinstance(a.spec, dict) else {"preset": "yams-fr", "options": {"columns": 1}}
    b = load_ruleset(spec)
    assert fingerprint(a) == fingerprint(b)


def test_a_model_file_round_trips(tmp_path: Path) -> None:
    rules = load_ruleset("yams-fr", {"columns": 1})
    model = build_model(rules)
    n = rules.n_boxes
    model.b = np.linspace(-1, 1, n)
    model.C = np.zeros((n, n))
    model.C[0, 5] = model.C[5, 0] = 1.25
    path = save_model(model, tmp_path / "m.json")
    params = params_from_json(json.loads(path.read_text()), rules)
    again = build_model(rules, params)
    assert np.allclose(again.a, model.a, atol=1e-4) and np.allclose(again.b, model.b, atol=1e-4)
    assert np.allclose(again.C, model.C) and np.allclose(again.dist, model.dist, atol=1e-5)
    sheet = new_game(rules, ["A"]).sheets[0]
    assert abs(again.value(sheet) - model.value(sheet)) < 0.05
    assert model_to_json(model)["fingerprint"] == fingerprint(rules)


def test_a_cached_fit_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))
    rules = load_ruleset("yams-fr", {"columns": 3, "max_min": False})  # no fit ships for it
    models._MEMO.clear()
    assert model_for(rules, background=False).source == "prior"
    fitted = build_model(rules, {"a": np.full(rules.n_boxes, 7.0)}, "fitted")
    save_model(fitted)
    models._MEMO.clear()
    found = model_for(rules, background=False)
    assert found.source == "fitted" and np.allclose(found.a, 7.0)
    models._MEMO.clear()


def test_no_background_fit_when_fits_are_off(monkeypatch: pytest.MonkeyPatch) -> None:
    assert os.environ["YAMBAK_MODEL_FIT"] == "off"  # tests/conftest.py: test runs never fit in the background
    assert models.request_fit(load_ruleset("yams-fr", {"columns": 3})) is None
    monkeypatch.setenv("YAMBAK_MODEL_FIT", "0")
    assert not models.fitting_enabled()
    monkeypatch.setenv("YAMBAK_MODEL_FIT", "on")
    assert models.fitting_enabled()


def test_par_of_the_prior_is_the_mean() -> None:
    """With no learned terms the gain of writing w is w minus the box's mean (the old model's rule)."""
    rules = load_ruleset("yatzy")
    model = build_model(rules)
    sheet = new_game(rules, ["A"]).sheets[0]
    chance = rules.row_index["chance"]
    gain = model.box_gain(sheet, chance)
    assert abs(gain[20] - (20 - model.mean[0, chance])) < 1e-9


def test_the_fit_loop_learns_from_self_play_and_is_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A few iterations of fitted value iteration on a small sheet: the Bellman targets move the learned
    part, the file lands in the cache, `model_for` then uses it; `yambak fit` does the same."""
    from yambak.bots.fit import fit_model
    from yambak.cli import main

    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))
    rules = load_ruleset(
        {
            "id": "tiny",
            "upper_bonus": {"threshold": 20, "points": 25},
            "rows": [
                {"id": "fives", "kind": "upper", "face": 5},
                {"id": "sixes", "kind": "upper", "face": 6},
                {"id": "full_house", "kind": "full_house", "points": 25},
                {"id": "chance", "kind": "sum"},
            ],
            "columns": [{"id": "down", "order": "down"}, {"id": "free"}],
        }
    )
    models._MEMO.clear()
    prior = model_for(rules, background=False)
    model = fit_model(rules, budget=6, max_iterations=3, samples=400)
    history = model.meta["history"]
    assert len(history) == 3 and all(h["played"] > 0 for h in history)
    assert not np.allclose(model.a, prior.a) and model.meta["parameters"] == 3 * 8 + 4 + 16 + 2  # 4 upper boxes
    assert len(model.calibration) == rules.n_boxes + 1  # calibrated on its own games, then checked on others
    check = model.meta["agreement"]
    assert check["games"] >= 20 and check["calibration_games"] >= 20 and check["within"] == (check["worst_gap"] <= 0.01)
    start = new_game(rules, ["A"]).sheets[0]
    assert model.value(start) == pytest.approx(model.estimate(start) + model.calibration[rules.n_boxes])
    save_model(model)
    models._MEMO.clear()
    assert model_for(rules, background=False).source == "fitted"
    path = tmp_path / "tiny.toml"
    path.write_text(
        'id = "tiny2"\n[[rows]]\nid = "chance"\nkind = "sum"\n[[rows]]\nid = "sixes"\nkind = "upper"\nface = 6\n'
        '[[columns]]\nid = "free"\n'
    )
    assert main(["fit", "--rules", str(path), "--budget", "10", "--json", "--progress"]) == 0
    bar = capsys.readouterr().err
    assert "/10 CPU s" in bar and "game" not in bar  # the bar counts CPU seconds, and says so
    models._MEMO.clear()


TINY = {
    "id": "tiny2",
    "rows": [{"id": "chance", "kind": "sum"}, {"id": "sixes", "kind": "upper", "face": 6}],
    "columns": [{"id": "down", "order": "down"}, {"id": "free"}],  # two columns: no exact table
}


def test_the_fit_lock_is_taken_before_the_spawn(tmp_path: Path) -> None:
    """Six tables asking at the same moment (threads released together) start one process; another
    process sees the lock too; it goes with the child, however the child ends."""
    gate = threading.Barrier(6)
    started: list[subprocess.Popen[bytes] | None] = []

    def ask() -> None:
        gate.wait()
        started.append(models.spawn_locked([sys.executable, "-c", "import time; time.sleep(60)"], tmp_path))

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    children = [p for p in started if p is not None]
    assert len(started) == 6 and len(children) == 1
    probe = "import sys; from pathlib import Path; from yambak.bots.models import fit_lock; "
    probe += "sys.exit(3 if fit_lock(Path(sys.argv[1])) is None else 0)"
    assert subprocess.run([sys.executable, "-c", probe, str(tmp_path)]).returncode == 3  # held machine-wide
    children[0].kill()  # no goodbye: the kernel lets go of the lock with the process
    children[0].wait()
    fd = models.fit_lock(tmp_path)
    assert fd is not None
    os.close(fd)


def test_a_background_fit_is_limited_and_lands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside tests, the first lookup answers with the prior and starts one fit process with the ruleset's
    spec: niced, at most 1.5 GiB of address space, a budget of CPU seconds; a second lookup while it runs
    starts none; the model lands in the cache and the next lookup uses it."""
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("YAMBAK_MODEL_FIT", "on")
    monkeypatch.setattr(models, "FIT_BUDGET", 2.0)  # CPU seconds: the value iterations, then the check
    spawned = []
    real = models.request_fit
    monkeypatch.setattr(models, "request_fit", lambda rules, **_budget: spawned.append(real(rules)) or spawned[-1])
    rules = load_ruleset(TINY)
    models._MEMO.clear()
    assert model_for(rules).source == "prior"
    proc = spawned[0]
    assert proc is not None
    assert real(rules) is None  # one at a time
    limited = niced = False
    while proc.poll() is None and not (limited and niced):  # the child sets its own limits as it starts
        try:
            limits = Path(f"/proc/{proc.pid}/limits").read_text().splitlines()
            stat = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            break
        limited = any(line.startswith("Max address space") and str(models.FIT_MEMORY) in line for line in limits)
        niced = int(stat[16]) == 19
        time.sleep(0.02)
    assert limited and niced
    assert proc.wait(timeout=120) == 0
    models._MEMO.clear()
    model = model_for(rules)
    assert model.source == "fitted" and model.meta["budget_seconds"] == 2.0
    assert model.meta["seconds"] < 2.0 + 5.0  # CPU seconds: the iterations, then a check of at least 5 s
    fd = models.fit_lock(tmp_path / "models")
    assert fd is not None  # released when the fit ended
    os.close(fd)
    models._MEMO.clear()


def test_players_are_told_what_a_bot_plays_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The prior and a fit that missed its check are told; the exact table, a checked fit and bots that use
    no model are not."""
    from yambak.bots import model_note, model_status

    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))
    models._MEMO.clear()
    rules = load_ruleset(TINY)
    assert model_status(rules, "hard") == "prior" and model_status(rules, "heuristic") == "prior"
    assert model_status(rules, "medium") is None and model_status(rules, "random") is None
    assert "first estimate" in (model_note(rules, "hard") or "")
    assert model_status(load_ruleset("yams"), "hard") is None  # the exact table
    assert model_status(load_ruleset("yammen"), "hard") is None  # a shipped fit within its check
    missed = build_model(rules, {"a": np.full(rules.n_boxes, 7.0)}, "fitted")
    missed.meta = {"agreement": {"within": False, "worst_gap": 0.03}}
    save_model(missed)
    models._MEMO.clear()
    assert model_status(rules, "hard") == "unchecked" and "missed its check" in (model_note(rules, "hard") or "")
    missed.meta = {"agreement": {"within": True, "worst_gap": 0.003}}
    save_model(missed)
    models._MEMO.clear()
    assert model_status(rules, "hard") is None
    models._MEMO.clear()


def test_the_command_line_tells_when_a_bot_plays_on_the_prior(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from yambak.cli import main

    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))
    models._MEMO.clear()
    path = tmp_path / "tiny.toml"
    path.write_text('id = "tiny2"\n[[rows]]\nid = "chance"\nkind = "sum"\n[[rows]]\nid = "sixes"\nkind = "upper"\n'
                    'face = 6\n[[columns]]\nid = "down"\norder = "down"\n[[columns]]\nid = "free"\n')  # fmt: skip
    args = ["--rules", str(path), "--games", "2", "--fit-budget", "0", "--no-progress"]
    assert main(["simulate", *args, "--bot", "hard"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("yambak: note: the hard bot plays on a first estimate")
    assert main(["duel", *args, "--bots", "hard", "medium"]) == 0
    assert "the hard bot plays on a first estimate" in capsys.readouterr().err
    assert main(["simulate", *args, "--bot", "medium"]) == 0
    assert capsys.readouterr().err == ""
    models._MEMO.clear()


@pytest.mark.parametrize(("preset", "options"), [("yams", {}), ("yams-fr", {"columns": 1}), ("yamb", {})])
def test_box_gain_is_the_change_of_the_estimate(preset: str, options: dict[str, object]) -> None:
    """What the plan adds for writing w in a box is exactly value(sheet after) - value(sheet before), with
    every learned term on (pars, time, T^2, upper gaps, pairs, joker, bonus scale) and the relations."""
    import random

    from yambak.bots import choose_action
    from yambak.engine import Sheet

    rules = load_ruleset(preset, options)
    rng = np.random.default_rng(1)
    n = rules.n_boxes
    C = rng.normal(0, 1, (n, n))
    C = (C + C.T) / 2
    np.fill_diagonal(C, 0)
    params = {
        "a": rng.normal(10, 3, n), "b": rng.normal(0, 3, n), "C": C, "d": rng.normal(0, 3, n),
        "e": rng.normal(0, 3, n), "joker": 7.0, "bonus_scale": 0.3,
    }  # fmt: skip
    model = build_model(rules, params, "fitted")
    state = new_game(rules, ["A"], seed=4)
    pick = random.Random(2)
    for step in range(60):
        if state.finished:
            break
        if not state.turns[0].rolls and step % 7 == 3:
            sheet = state.sheets[0]
            open_boxes = [b for b, v in enumerate(sheet.written) if v is None]
            for box in pick.sample(open_boxes, min(3, len(open_boxes))):
                gain = model.box_gain(sheet, box)
                for w in (0, 3, 12, 25):
                    written = sheet.written[:box] + (w,) + sheet.written[box + 1 :]
                    after = Sheet(written, sheet.voided, sheet.extra_bonus, sheet.turns + 1)
                    assert gain[w] == pytest.approx(model.value(after) - model.value(sheet), abs=1e-6), (box, w)
        state, _ = state.apply(choose_action(state, 0, "greedy", pick))


def test_the_calibration_is_the_mean_gap_per_number_of_open_boxes() -> None:
    from yambak.bots.fit import agreement, calibration_of

    games = [([(3, 10.0), (2, 20.0), (1, 28.0)], 30), ([(3, 12.0), (2, 24.0), (1, 33.0)], 36)]
    calibration = calibration_of(games, 3)
    assert calibration.tolist() == [0.0, 2.5, 11.0, 22.0]  # k=1: (2 + 3) / 2; k=2: (10 + 12) / 2; k=3: (20 + 24) / 2
    check = agreement(games, calibration)
    assert check["played"] == 33 and check["predicted"] == 33 and check["worst_gap"] == 0
    off = agreement(games, calibration + np.array([0, 0, 0, 3.3]))  # 10% too high at the start only
    assert off["start_gap"] == pytest.approx(0.1) and off["worst_gap"] == pytest.approx(0.1)


def test_the_calibration_moves_no_decision() -> None:
    """Every choice of a turn ends with one box fewer open: the same term is added to every option."""
    import random

    from yambak.bots.expectimax import heuristic

    rules = load_ruleset("yams-de")
    params = load_params(rules)
    assert params is not None
    plain = build_model(rules, {**params, "calibration": []}, "fitted")
    skewed = build_model(rules, {**params, "calibration": np.linspace(0, 400, rules.n_boxes + 1) ** 1.3}, "fitted")
    state = new_game(rules, ["A"], seed="calibration")
    rng_a, rng_b = random.Random(1), random.Random(1)
    for _ in range(40):
        a, b = heuristic(state, 0, rng_a, model=plain), heuristic(state, 0, rng_b, model=skewed)
        assert a == b
        state, _ = state.apply(a)
    sheet = state.sheets[0]
    assert skewed.value(sheet) - plain.value(sheet) == pytest.approx(skewed.offset(sheet.written.count(None)))
