"""Many games in bounded memory: lazy jobs, folded results, percentiles from the histogram (issue 9, item 5)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from yambak.bots import play
from yambak.bots.stats import ScoreHistogram
from yambak.cli import main
from yambak.rules import load_ruleset


def test_histogram_figures_equal_numpy_on_every_score() -> None:
    rng = np.random.default_rng(3)
    for size in (1, 2, 7, 1000):
        scores = rng.integers(-50, 400, size)
        h = ScoreHistogram()
        h.add_array(scores)
        expected = np.percentile(scores, [5, 25, 50, 75, 95])
        assert list(h.percentiles().values()) == [float(v) for v in expected]
        assert h.mean == pytest.approx(scores.mean())
        assert h.std == pytest.approx(scores.std(ddof=1) if size > 1 else 0.0)


def test_histogram_memory_is_bounded_by_bins_not_games() -> None:
    h = ScoreHistogram()
    h.MAX_BINS = 64
    for v in range(10_000):
        h.add(v * 7)
    assert len(h.counts) <= 64 and h.n == 10_000 and h.mean == 7 * 9999 / 2  # sums stay exact
    p50 = h.percentiles()["50"]
    assert abs(p50 - 7 * 9999 / 2) <= h.width


def test_jobs_are_made_lazily() -> None:
    """A trillion games: the first chunk comes back at once, nothing is listed up front."""
    rules = load_ruleset("yams")
    start = time.perf_counter()
    first = next(play.simulate_stream(rules, "random", 10**12, seed=1))
    assert len(first) == play.SOLITAIRE_CHUNK and time.perf_counter() - start < 5


def test_few_chunks_in_flight_with_workers() -> None:
    made = []

    def jobs():  # noqa: ANN202 - a generator that records how far it was drawn
        for i in range(1000):
            made.append(i)
            yield i

    stream = play._in_order(_square, jobs(), workers=2)
    assert next(stream) == [0]
    assert len(made) <= 5  # 2 x workers in flight, plus the one submitted after the first result
    assert [next(stream) for _ in range(3)] == [[1], [4], [9]]  # in order
    stream.close()


def _square(i: int) -> list[int]:
    return [i * i]


def test_simulate_greedy_is_the_bots_greedy(capsys: pytest.CaptureFixture[str]) -> None:
    """One name, one policy: `simulate --bot greedy` on a one-column ruleset plays the bots' greedy."""
    rules = load_ruleset("yatzy")
    totals = play.simulate_games(rules, "greedy", 40, seed=5)
    assert main(["simulate", "--rules", "yatzy", "--bot", "greedy", "--games", "40", "--seed", "5", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["mean"] == sum(totals) / 40
    assert summary["percentiles"]["50"] == float(np.percentile(totals, 50))
    assert main(["simulate", "--rules", "yatzy", "--bot", "medium", "--games", "40", "--seed", "5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["mean"] == summary["mean"]


def test_duel_takes_levels_and_workers(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["duel", "--rules", "yams-de", "--bots", "hard", "medium", "--games", "4", "--json"]
    assert main([*argv, "--workers", "1"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert main([*argv, "--workers", "2"]) == 0
    two = json.loads(capsys.readouterr().out)
    assert [b["bot"] for b in one["bots"]] == ["hard", "medium"] and one["win_rate"] == 1.0
    one.pop("seconds"), two.pop("seconds")
    assert one == two


def test_a_game_won_outright_counts_as_the_rulesets_win_points() -> None:
    """docs/rulesets.md: `simulate` counts a game won at once as its points and win_points, as `solve` does;
    the figures against numpy over the counted values, the sheet's points kept apart."""
    from yambak.bots.stats import SolitaireTally

    games = [(120, False), (50, True), (180, False), (0, True), (151, False)]
    tally = SolitaireTally()
    tally.add_arrays(
        np.array([s for s, _ in games[:3]]), np.zeros(3, bool), np.zeros(3, bool), np.array([w for _, w in games[:3]])
    )
    for score, won in games[3:]:
        tally.add(score, 0, 1, 0, 1, won)
    counted = np.array([s + (400 if w else 0) for s, w in games], dtype=float)
    out = tally.summary("generala", "optimal", 0.0, win_points=400)
    assert out["mean"] == pytest.approx(counted.mean()) and out["std"] == pytest.approx(counted.std(ddof=1))
    assert out["sheet_mean"] == pytest.approx(np.mean([s for s, _ in games])) and out["outright_rate"] == 2 / 5
    assert "outright_rate" not in tally.summary("generala", "optimal", 0.0)  # no win_points: the sheet's points


def test_simulate_and_duel_say_how_they_count_outright_wins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--rules", "generala", "--games", "300", "--seed", "5", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["win_points"] == load_ruleset("generala").win_points
    assert out["mean"] == pytest.approx(out["sheet_mean"] + 400 * out["outright_rate"])
    assert main(["simulate", "--rules", "generala", "--games", "300", "--seed", "5", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert f"mean {out['mean']:.3f}" in text and "counts such a win as 400 points" in text
    assert main(["duel", "--rules", "generala", "--bots", "greedy", "random", "--games", "4", "--no-progress"]) == 0
    assert "won outright (in the wins above" in capsys.readouterr().out
