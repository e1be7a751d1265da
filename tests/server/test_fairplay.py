"""The fair-play review's lines (server/ranked/fairplay.py) and the operator's command (`yambak fairplay
list|clear`, server/ranked/commands.py, on SQLite and PostgreSQL). The review of graded ranked games at a
table: tests/server/test_ranked.py; the store's part: tests/store/test_fairplay_store.py."""

from __future__ import annotations

import json
import secrets
import statistics
from datetime import datetime
from pathlib import Path

import pytest

from yambak.bots import play_game
from yambak.cli import main as cli_main
from yambak.engine import GameState, Roll, Score, new_game, state_to_record
from yambak.rules import load_ruleset, preset_ids
from yambak.server.profiles.results import grade
from yambak.server.ranked.fairplay import ASSISTED_GAMES, thresholds, thrown
from yambak.store import ResultRow, Store

from ..store.fairplay_helpers import T0, graded_game

DOC = Path(__file__).resolve().parents[2] / "docs/ranked.md"
DATA = Path(__file__).resolve().parents[2] / "src/yambak/server/ranked/fairplay.json"


def test_every_preset_has_a_line_measured_over_a_thousand_easy_games_above_the_medium_bots_worst() -> None:
    data = json.loads(DATA.read_text())
    assert sorted(data) == sorted(preset_ids()) == sorted(thresholds())
    doc = DOC.read_text()
    for preset, row in data.items():
        assert row["easy_games"] >= 1000 and row["medium_games"] >= 100
        assert row["medium_worst"] < row["easy_p10"] <= row["easy_median"] == thresholds()[preset]
        assert f"| {preset} | {row['easy_games']} | {row['easy_median']:.2f} |" in doc  # the figures, as measured


def _last_box(preset: str, seed: str) -> GameState:
    """A thrown game: one roll a turn, the last box offered."""
    state = new_game(load_ruleset(preset), ["thrower"], seed=seed)
    while not state.finished:
        if not state.turns[0].rolls:
            state, _ = state.apply(Roll(0))
        else:
            state, _ = state.apply([a for a in state.legal_actions(0) if isinstance(a, Score) and not a.strike][-1])
    return state


def test_the_line_throws_last_box_games_and_about_half_the_easy_bots_and_no_medium_bot_game() -> None:
    """Seeded games graded as the server grades them: the last box every turn is thrown every time, the
    medium bot's games never, and the easy bot's (whose median is the line) about half of the time."""
    preset = "yams"

    def accuracy(state: GameState) -> float:
        a = grade(state_to_record(state).to_dict(), 0).accuracy
        assert a is not None
        return a

    assert all(thrown(preset, accuracy(_last_box(preset, f"last/{i}"))) for i in range(4))
    assert not any(thrown(preset, accuracy(play_game(load_ruleset(preset), ["greedy"], f"t/{i}"))) for i in range(4))
    easy = [accuracy(play_game(load_ruleset(preset), ["random"], f"t/{i}")) for i in range(16)]
    assert 0.2 <= sum(thrown(preset, a) for a in easy) / len(easy) <= 0.8
    assert thrown(preset, statistics.median(easy) + 2) and not thrown(preset, statistics.median(easy) - 2)
    assert not thrown("custom", 100.0) and not thrown(preset, None)  # no line, or no decision: nothing thrown


def _graded_games(store: Store, pid: str, games: int, loss: float, at: datetime) -> None:
    """`games` graded ranked games of yams, each of 13 decisions of which the first lost `loss`."""
    for n in range(games):
        graded_game(store, pid, n, loss, at=at)


def test_the_operator_lists_profiles_at_the_solvers_accuracy_and_clears_them(both_stores, capsys) -> None:
    url = both_stores.database_url
    store = Store(url)
    try:
        ace, fair = secrets.token_urlsafe(9), secrets.token_urlsafe(9)
        store.create_profile(ace, "Ace", secrets.token_hex(32), T0)
        store.create_profile(fair, "Fair", secrets.token_hex(32), T0)
        assert cli_main(["fairplay", "list", "--db", url]) == 0
        assert "no profile has" in capsys.readouterr().out
        _graded_games(store, ace, ASSISTED_GAMES, 0.0, T0)  # the solver's own play
        _graded_games(store, fair, ASSISTED_GAMES, 13.0, T0)  # a point lost a decision
        assert cli_main(["fairplay", "list", "--db", url]) == 0
        out = capsys.readouterr().out.splitlines()
        assert len(out) == 2 and out[1].split()[:5] == [ace, "Ace", "yams", str(ASSISTED_GAMES), "0.000"]
        assert cli_main(["fairplay", "clear", f"--profile={ace}", "--db", url]) == 0  # an id may begin with "-"
        assert f"cleared {ace}" in capsys.readouterr().out
        assert cli_main(["fairplay", "list", "--db", url]) == 0
        assert "no profile has" in capsys.readouterr().out  # cleared: its games before that no longer count
        # bad input: a clear error, nothing changed
        assert cli_main(["fairplay", "clear", "nobody", "--db", url]) == 2
        assert cli_main(["fairplay", "clear", "--db", url]) == 2
        assert cli_main(["fairplay", "list", ace, "--db", url]) == 2
        assert cli_main(["fairplay", "list", "--db", "nosuchdb://x/y"]) == 2
        err = capsys.readouterr().err
        assert "no profile 'nobody'" in err and "name the profile" in err and "takes no profile" in err
        assert "Traceback" not in err
        assert store.assisted(ASSISTED_GAMES, 0.05) == []
    finally:
        store.close()


def test_the_operators_line_is_in_each_presets_own_unit(both_stores, capsys) -> None:
    """Where the coach counts points the line is `ASSISTED_LOSS`; Balut's grades are in category points, and its
    line is the same share of its medium bot's median loss as `ASSISTED_LOSS` is of the points presets' median
    one (worked out here from the measured figures): a Balut player losing 0.01 category points a decision
    (a fourteenth of the medium bot) is not listed, the solver's own play is."""
    from yambak.server.ranked.fairplay import ASSISTED_LOSS, assisted_lines

    data = json.loads(DATA.read_text())
    points = statistics.median(row["medium_median"] for p, row in data.items() if p != "balut")
    lines = assisted_lines()
    assert lines["balut"] == pytest.approx(ASSISTED_LOSS * data["balut"]["medium_median"] / points)
    assert 0 < lines["balut"] < 0.01 and {v for p, v in lines.items() if p != "balut"} == {ASSISTED_LOSS}
    url = both_stores.database_url
    store = Store(url)
    try:
        close, ace = secrets.token_urlsafe(9), secrets.token_urlsafe(9)
        store.create_profile(close, "Close", secrets.token_hex(32), T0)
        store.create_profile(ace, "Ace", secrets.token_hex(32), T0)
        for n in range(ASSISTED_GAMES):
            graded_game(store, close, n, 0.13, at=T0, preset="balut", unit="category_points")  # 0.01 a decision
            graded_game(store, ace, n, 0.0, at=T0, preset="balut", unit="category_points")
        assert cli_main(["fairplay", "list", "--db", url]) == 0
        out = capsys.readouterr().out.splitlines()
        assert len(out) == 2 and out[1].split()[:3] == [ace, "Ace", "balut"]
    finally:
        store.close()


def test_the_grader_takes_ranked_games_first_and_tells_who_listens(tmp_path, monkeypatch) -> None:
    """Results waiting for the grader: a ranked game's go before the others (in the order each came), and
    every grade is published (`Graded`) to the features that review it."""
    import threading

    from yambak.server.common.events import Events, Graded
    from yambak.server.profiles import results

    graded: list[int] = []
    heard: list[tuple[int | None, float | None]] = []
    monkeypatch.setattr(results, "grade", lambda record, _seat: graded.append(record["n"]) or results.Grade(1.5, 13))
    events = Events()
    events.on(Graded, lambda g: heard.append((g.result.id, g.accuracy)))
    store = Store(f"sqlite:///{tmp_path}/grades.db")
    grader = results.Grader(store, lambda r: {"n": r.id}, processes=False, events=events)
    try:
        held = threading.Event()
        grader.pool.submit(held.wait)  # the grader busy: what comes meanwhile waits in its queue

        def result(n: int) -> ResultRow:
            return ResultRow(
                id=n, profile_id=None, kind="table", ref=f"t{n}", seat=0, preset="yams", rules_id="yams",
                finished_at=T0, score=200, won=True, players=2, counted=True,
            )  # fmt: skip

        grader.submit([result(1), result(2)])
        grader.submit([result(3)], first=True)  # a ranked game's
        grader.submit([result(4)])
        grader.submit([result(5), result(6)], first=True)
        held.set()
        assert grader.wait(30)
        assert graded == [3, 5, 6, 1, 2, 4]
        assert heard == [(n, 1.5) for n in graded]
    finally:
        grader.close()
        store.close()
