"""The value model is found by the ruleset's fingerprint (options included), never by preset name."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from yambak.bots import models
from yambak.bots.evaluate import build_model, fingerprint
from yambak.bots.models import load_params, model_for, model_to_json, params_from_json, save_model
from yambak.engine import new_game
from yambak.rules import load_ruleset, preset_ids


def test_every_preset_ships_a_fit() -> None:
    for preset in preset_ids():
        assert model_for(load_ruleset(preset)).source == "fitted", preset


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


def test_no_background_fit_under_tests() -> None:
    assert not models.request_fit(load_ruleset("yams-fr", {"columns": 3}))


def test_par_of_the_prior_is_the_mean() -> None:
    """With no learned terms the gain of writing w is w minus the box's mean (the old model's rule)."""
    rules = load_ruleset("yatzy")
    model = build_model(rules)
    sheet = new_game(rules, ["A"]).sheets[0]
    chance = rules.row_index["chance"]
    gain = model.box_gain(sheet, chance)
    assert abs(gain[20] - (20 - model.mean[0, chance])) < 1e-9


def test_the_fit_loop_learns_from_self_play_and_is_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
    model = fit_model(rules, budget=20, max_iterations=3, samples=400)
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
    assert main(["fit", "--rules", str(path), "--budget", "10", "--json", "--no-progress"]) == 0
    models._MEMO.clear()


def test_a_ruleset_without_a_fit_starts_one_background_fit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside tests, the first lookup answers with the prior and starts one niced fit process with the
    ruleset's spec; a second lookup while it runs starts none."""
    import subprocess

    started: list[list[str]] = []

    class FakeProcess:
        pid = 4242

        def __init__(self, args: list[str], **kwargs: object) -> None:
            started.append(args)

    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    monkeypatch.setenv("YAMBAK_MODEL_FIT", "on")
    monkeypatch.setattr(subprocess, "Popen", FakeProcess)
    monkeypatch.setattr(models, "_alive", lambda pid: pid == 4242)
    rules = load_ruleset("yams-de", {"strict": True, "flat_bonus": True})
    models._MEMO.clear()
    assert model_for(rules).source == "prior"
    assert len(started) == 1 and "--spec" in started[0] and "--budget" in started[0]
    spec = json.loads(started[0][started[0].index("--spec") + 1])
    assert fingerprint(load_ruleset(spec)) == fingerprint(rules)
    assert (tmp_path / "models" / ".fitting").read_text().split()[0] == "4242"
    assert not models.request_fit(rules)  # one at a time
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
