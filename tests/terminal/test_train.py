"""`yambak train`: the full-screen trainer under Textual's harness, the line mode, and the device's rating
file (readable by its owner only, moved by OpenSkill as the library rates)."""

from __future__ import annotations

import asyncio
import io
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from yambak.terminal.commands import train_plain
from yambak.terminal.train_app import TrainApp
from yambak.terminal.trainer import DeviceRatings, Standing, TrainerSession
from yambak.trainer import POOL_SEED, PoolSpec, Puzzle, TrainerError, generate_pool, grade

SIZE = 3  # the first three positions of the server's yams pool: cheap
MAIN = "import sys, yambak.cli; sys.exit(yambak.cli.main())"


@pytest.fixture(scope="module")
def pool() -> tuple[Puzzle, ...]:
    return generate_pool(PoolSpec("yams", size=SIZE, seed=POOL_SEED))


def _private(path: Path) -> None:
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def _library(results: list[bool]) -> tuple[float, float]:
    """The player's (mu, sigma) after these answers, each a game against a new position, by the library."""
    model = PlackettLuce()
    me = model.rating()
    for solved in results:
        [[me], _] = model.rate([[me], [model.rating()]], ranks=[1, 2] if solved else [2, 1])
    return me.mu, me.sigma


def test_two_positions_answered_full_screen(tmp_path: Path, pool: tuple[Puzzle, ...]) -> None:
    folder = tmp_path / "state" / "yambak"
    app = TrainApp("yams", positions=SIZE, seed=7, ratings=DeviceRatings(folder))
    solved: list[str] = []

    async def main() -> None:
        async with app.run_test(size=(100, 50)) as pilot:
            for _ in range(600):  # the pool is generated in a thread, with a progress bar
                if app.session is not None:
                    break
                await pilot.pause(0.05)
            session = app.session
            assert session is not None and {p.id for p in session.pool} == {p.id for p in pool}
            # the first: the best choice, typed as dice where it is a keep, else chosen from the list
            first = session.puzzle
            best = first.best.choice
            if best.kind == "keep" and best.keep:
                for d in best.keep:
                    await pilot.press(str(d))
            else:
                app.query_one("#choices").highlighted = [o.choice for o in session.choices()].index(best)
            await pilot.press("enter")
            await pilot.pause()
            verdict = str(app.query_one("#verdict").render())
            assert verdict.startswith("Solved") and "The best choices" in verdict
            assert session.standing.streak == 1
            solved.append(first.id)
            # the second: the obvious (greedy) choice, which loses
            await pilot.press("n")
            await pilot.pause()
            second = session.puzzle
            assert second.id != first.id
            app.query_one("#choices").highlighted = [o.choice for o in session.choices()].index(second.obvious)
            await pilot.press("enter")
            await pilot.pause()
            verdict = str(app.query_one("#verdict").render())
            loss = grade(second, second.obvious).loss
            assert verdict.startswith(f"This choice loses {loss:.2f} points.")
            prompts = [str(o.prompt) for o in app.query_one("#choices").options]
            assert sum(p.startswith("◆ ") for p in prompts) == 1 and sum(p.endswith(" ←") for p in prompts) == 1
            assert session.standing.streak == 0 and "Streak: 0" in str(app.query_one("#status").render())
            await pilot.press("question_mark")
            await pilot.pause()
            assert "N: the next position" in str(app.screen.query_one("#help").render())

    asyncio.run(main())
    saved = json.loads((folder / "trainer.json").read_text())["presets"]["yams"]
    assert (saved["mu"], saved["sigma"]) == pytest.approx(_library([True, False]))
    assert saved["answers"] == 2 and saved["solved"] == 1 and saved["best_streak"] == 1
    assert saved["solved_ids"] == solved  # not offered again on this device
    _private(folder / "trainer.json")


def _answers(pool: tuple[Puzzle, ...], seed: int) -> tuple[Puzzle, Puzzle]:
    session = TrainerSession("yams", pool, DeviceRatings(Path("/nonexistent")), seed)
    first = session.next()
    return first, session.next()


def test_the_line_mode_answers_and_keeps_the_rating(
    tmp_path: Path, pool: tuple[Puzzle, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _answers(pool, seed=2)
    lines = ["#0", "strike nosuchbox", "k 7", _typed(first.obvious.to_dict()), "n"]
    lines += [_typed(second.best.choice.to_dict()), "q"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    assert train_plain("yams", SIZE, 2, False, folder=tmp_path) == 0
    out = capsys.readouterr().out
    assert f"This choice loses {grade(first, first.obvious).loss:.2f} points." in out
    assert "\nSolved\n" in out
    assert "choose #1 to #" in out and "not a choice in this position" in out and "Traceback" not in out
    saved = json.loads((tmp_path / "trainer.json").read_text())["presets"]["yams"]
    assert (saved["mu"], saved["sigma"]) == pytest.approx(_library([False, True]))
    _private(tmp_path / "trainer.json")


def _typed(choice: dict) -> str:
    """A choice as a player types it in the line mode."""
    if choice["kind"] == "keep":
        return "k " + "".join(map(str, choice["keep"])) if choice["keep"] else "r"
    if choice["kind"] == "announce":
        return f"announce {choice['box']}"
    return f"{'strike' if choice.get('strike') else 'score'} {choice['box']}"


def test_a_keeps_verdict_shows_the_odds(tmp_path: Path, pool: tuple[Puzzle, ...]) -> None:
    from yambak.terminal.trainer import verdict_lines
    from yambak.terminal.words import Words

    puzzle = next(p for p in pool if any(o.choice.kind == "keep" for o in p.options[:3]))
    session = TrainerSession("yams", pool, DeviceRatings(tmp_path), None)
    session.show(puzzle)
    keep = next(o for o in puzzle.options[:3] if o.choice.kind == "keep")
    answered = session.answer(keep.choice)
    text = "\n".join(verdict_lines(answered, Words("en", "yams"), 1))
    odds = answered.grade.odds[keep.label]
    top = max(r["chance"] for r in odds["rows"] if "chance" in r)
    assert "The odds" in text and f"{100 * top:.1f}%" in text
    again = session.answer(keep.choice)  # a second try in the sitting: graded, not rated again
    assert again.after == answered.after and session.standing.answers == 1


def test_choices_typed_wrong_are_refused(tmp_path: Path, pool: tuple[Puzzle, ...]) -> None:
    session = TrainerSession("yams", pool, DeviceRatings(tmp_path), 1)
    session.next()
    for text in ("", "#", "#999", "k 0", "7", "k abc", "announce", "score nosuch", "66666666"):
        with pytest.raises(TrainerError):
            session.parse(text)
    assert not (tmp_path / "trainer.json").exists()  # nothing answered, nothing written


def test_a_pipe_gets_the_line_mode(tmp_path: Path) -> None:
    env = {
        **os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src"),
        "XDG_STATE_HOME": str(tmp_path),
    }  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-c", MAIN, "train", "yams", "--positions", "1", "--daily"],
        input="#1\nq\n", capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "#1 " in run.stdout and ("Solved" in run.stdout or "This choice loses" in run.stdout)
    _private(tmp_path / "yambak" / "trainer.json")
    bad = subprocess.run([sys.executable, "-c", MAIN, "train", "nosuch"], capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and bad.stderr.startswith("yambak: the trainer has positions for the presets")


def test_two_sessions_saves_keep_each_others_presets(tmp_path) -> None:
    """Two `yambak train` sessions of one device, each reading the file before the other saved: both presets
    stay, the file is its owner's only, and no temp file is left behind."""
    one, two = DeviceRatings(tmp_path), DeviceRatings(tmp_path)
    one.save("yams", Standing(streak=3, answers=4))
    two.save("yamb", Standing(streak=1, answers=1))
    one.save("yams", Standing(streak=4, answers=5))
    again = DeviceRatings(tmp_path)
    assert again.standing("yams").streak == 4 and again.standing("yams").answers == 5
    assert again.standing("yamb").streak == 1
    assert (tmp_path / "trainer.json").stat().st_mode & 0o777 == 0o600
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.usefixtures("pool")  # the pool generated once for the module
def test_the_line_modes_refusals_in_dutch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`yambak train --plain --lang nl`: an answer that is none of the choices is refused in the catalog's
    Dutch, with its number filled in; nothing is answered."""
    from yambak.web.i18n import translations

    dutch = translations("nl").gettext
    monkeypatch.setattr(sys, "stdin", io.StringIO("#0\nk 7\nstrike nosuchbox\nq\n"))
    assert train_plain("yams", SIZE, 2, False, lang="nl", folder=tmp_path) == 0
    out = capsys.readouterr().out.splitlines()
    listed = sum(1 for line in out if line.startswith("  #"))
    assert dutch("choose #1 to #{n}").replace("{n}", str(listed)) in out
    assert dutch("a keep is the dice values to hold, such as 66 or k 6 6") in out
    assert dutch("That is not a choice in this position.") in out
    assert "choose #1 to #" not in "\n".join(out) and not (tmp_path / "trainer.json").exists()
