"""The full-screen app under Textual's own harness (`App.run_test()` and its `Pilot`)."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from yambak.engine import Score, SeededDice
from yambak.rules import load_ruleset, load_ruleset_arg
from yambak.terminal.app import KeepFace, PlayFace, TableApp, dice_text
from yambak.terminal.game import GameSession
from yambak.terminal.keeper import KeeperSession

from .test_keeper import TINY

SNAPSHOTS = Path(__file__).with_name("snapshots")


def run(app: TableApp, script: Callable[[Any], Awaitable[None]], size: tuple[int, int] = (80, 24)) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await script(pilot)

    asyncio.run(main())


def play_app(preset: str, bots: dict[int, str], seed: int = 3, players: tuple[str, ...] = ("Ann", "Bot")) -> TableApp:
    session = GameSession(load_ruleset(preset), list(players), bots, dice=SeededDice(seed), seed=seed)
    return TableApp(PlayFace(session), bot_pause=0.05)


def screen_text(app: TableApp) -> str:
    """What the terminal shows, as text (the SVG screenshot's characters, line by line)."""
    svg = app.export_screenshot()
    lines = re.findall(r'<text class="[^"]*" x="[^"]*" y="([^"]*)"[^>]*>([^<]*)</text>', svg)
    rows: dict[float, str] = {}
    for y, text in lines:
        rows[float(y)] = rows.get(float(y), "") + text.replace("&#160;", " ")
    return "\n".join(rows[y] for y in sorted(rows))


async def until(pilot: Any, done: Callable[[], bool], timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if done():
            return
        await pilot.pause(0.02)
    raise AssertionError("timed out")


def test_a_whole_yams_game_against_a_bot() -> None:
    app = play_app("yams", {1: "greedy"})
    face: PlayFace = app.face  # type: ignore[assignment]

    async def script(pilot: Any) -> None:
        state = lambda: face.session.state  # noqa: E731
        await pilot.press("1")  # before a roll: nothing to hold, nothing happens
        assert not state().turns[0].rolls
        while not state().finished:
            await until(pilot, lambda: state().finished or (state().current == 0 and app.actor() == 0))
            if state().finished:
                break
            filled = state().sheets[0].turns
            await pilot.press("r")
            assert state().turns[0].rolls
            await pilot.press("1", "2")  # hold two, roll again
            assert state().turns[0].held == frozenset({0, 1})
            await pilot.press("2")
            assert state().turns[0].held == frozenset({0})
            await pilot.press("r")
            assert len(state().turns[0].rolls) == 2 and state().turns[0].dice[0] == state().turns[0].rolls[0][0]
            table = app.query_one("#sheet")
            row, column = min(at for at, (_, action) in app.cells.items() if action is not None)
            table.move_cursor(row=row, column=column)  # the first box that takes the dice
            await pilot.press("enter")
            assert state().sheets[0].turns == filled + 1
        await pilot.pause(0.1)
        assert app.results is not None and app.screen is app.results
        await until(pilot, lambda: bool(app.review_text), timeout=60)
        text = app._results_text()
        totals = [state().total(seat) for seat in (0, 1)]
        top = max(range(2), key=lambda seat: totals[seat])
        if totals[0] == totals[1]:
            said = f"Ann, Bot share the win\nLevel on points: {totals[0]} each."
        else:
            said = f"{state().players[top]} wins\nOn points: {totals[top]} to {totals[1 - top]}."
        assert text.startswith(f"Game over\n\n{said}\n")
        assert f"  {'Ann':<24} {state().total(0):>5}" in text
        assert "Review the game" in text
        assert re.search(r"Ann: \d+\.\d\d points lost per decision on average \(\d+ decisions", text)

    run(app, script)
    assert app.face.session.state.sheets[1].full  # type: ignore[attr-defined]


def test_yammen_with_an_announcement_and_hints() -> None:
    app = play_app("yammen", {1: "greedy"}, seed=11)
    face: PlayFace = app.face  # type: ignore[assignment]

    async def script(pilot: Any) -> None:
        state = lambda: face.session.state  # noqa: E731
        await pilot.press("r")
        await pilot.press("h")  # hints: the coach's keeps, announcements and boxes
        await until(pilot, lambda: app.hint_data is not None)
        labels = [str(o.prompt) for o in app.query_one("#hint-list").options]
        assert any(label.startswith("Keep ") or label.startswith("Reroll") for label in labels)
        assert any("less" in label or "best" in label for label in labels)
        chances = [label for label in labels if label.startswith("Chances:")]  # against the bot: win, tie, loss apart
        assert len(chances) == 1 and re.fullmatch(r"Chances: win [\d.]+%, tie [\d.]+%, lose [\d.]+%", chances[0])
        best = app.hint_data["best"]
        assert best["win"] + best["tie"] + best["lose"] == pytest.approx(1.0, abs=2e-4)
        table = app.query_one("#sheet")
        annonce = [c["id"] for c in app.current_view["rules"]["columns"]].index("annonce") + 1
        table.move_cursor(row=5, column=annonce)  # sixes, announce column: ⚑
        await pilot.press("a")
        assert state().turns[0].announced is not None
        assert state().rules.box_id(state().turns[0].announced) == "annonce.sixes"
        assert "Announced" in screen_text(app)
        await pilot.press("1", "2", "3", "4", "5")  # every die held: rolling is refused, in words
        await pilot.press("r")
        assert "release one to roll" in str(app.query_one("#said").render())
        await pilot.press("1", "2", "3", "4", "5", "r", "r")
        assert len(state().turns[0].rolls) == 3
        await pilot.press("up", "down", "enter")  # the announced box, where the cursor is
        assert state().turns[0].rolls == () and state().history[0].box == "annonce.sixes"
        assert state().history[0].announce == "annonce.sixes"

    run(app, script)


def test_a_kept_sheet_with_a_roll_off(tmp_path: Path) -> None:
    (tmp_path / "tiny.toml").write_text(TINY)
    session = KeeperSession.start(load_ruleset_arg(str(tmp_path / "tiny.toml")), ["Ann", "Bram"], tmp_path / "g.json")
    app = TableApp(KeepFace(session))
    boxes = {"free.chance": (0, 1), "free.yam": (1, 1), "annonce.chance": (0, 2), "annonce.yam": (1, 2)}

    async def script(pilot: Any) -> None:
        table = app.query_one("#sheet")
        for box, dice in [(b, d) for b in boxes for d in ("12345" if "chance" in b else "11111",) * 2]:
            await pilot.press(*dice)
            table.move_cursor(row=boxes[box][0], column=boxes[box][1])
            await pilot.press("enter")
        assert session.state.finished and app.results is None  # a roll-off first
        assert "Roll-off for Free: Ann rolls 5 dice" in screen_text(app)
        await pilot.press(*"66666")
        assert "Bram rolls 5 dice" in screen_text(app)
        await pilot.press("backspace")  # nothing typed yet: nothing happens
        await pilot.press(*"1111", "backspace", "2", "2")  # Bram: 11122
        await pilot.press(*"33333", *"33333")  # annonce tied again
        await pilot.press("u")  # the last round goes
        assert len(session.state.rolloffs) == 1
        await pilot.press(*"11111", *"66666", *"22222", *"33333")
        await pilot.pause(0.1)
        # both columns and the total were level: the roll-offs gave Bram the annonce column's 3 points
        # and the total's 5, Ann the free column's 3; the end says so, as the keeper's page says it
        text = app._results_text()
        assert app.results is not None and "Bram wins\nOn match points, after a roll-off: 8 to 3." in text
        assert "Roll-off for Total: Ann 10, Bram 15" in text
        await pilot.press("escape", "colon")
        await pilot.press(*"history", "enter")  # the history panel, every entry and roll-off in it
        assert app.history is not None
        panel = screen_text(app)
        assert "1. Ann: Free · Chance, 15   12345" in panel and "Roll-off for Total: Ann 22222, Bram 33333" in panel
        assert "Undone: the roll-off for" in session.handle("history")  # what was undone, after the entries

    run(app, script)
    assert KeeperSession.resume(tmp_path / "g.json").state.winners() == [1]


def test_resize_to_80_by_24_and_the_sheet_scrolls() -> None:
    app = play_app("yamb-6", {}, players=("Ann",))

    async def script(pilot: Any) -> None:
        await pilot.resize_terminal(140, 40)
        await pilot.press("r")
        wide = screen_text(app)
        assert "Four of a kind" in wide  # long row names where there is room
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.1)
        narrow = screen_text(app)
        assert "4 alike" in narrow and "Four of a kind" not in narrow
        assert all(len(line) <= 80 for line in narrow.splitlines())
        table = app.query_one("#sheet")
        assert table.virtual_size.height > table.size.height  # more rows than fit: it scrolls
        table.move_cursor(row=len(app.layout_key[1]) - 1, column=1)
        await pilot.pause(0.1)
        assert "Total" in screen_text(app)  # the last row scrolled into view, not cut off

    run(app, script)


def test_seven_columns_fit_80_by_24() -> None:
    """Yamb with all three extra columns: every column's header on an 80 x 24 screen, none cut."""
    rules = load_ruleset("yamb", {"extra": ["updown", "middle", "hand"]})
    app = TableApp(PlayFace(GameSession(rules, ["Ana"], {}, dice=SeededDice(2), seed=2)))

    async def script(pilot: Any) -> None:
        await pilot.press("r")
        await pilot.pause(0.1)
        text = screen_text(app)
        assert all(len(line) <= 80 for line in text.splitlines())
        header = next(line for line in text.splitlines() if app.words.column("down", short=True) in line)
        heads = [app.words.column(c.id, short=True) for c in rules.columns]
        assert all(h in header for h in heads), (heads, header)
        table = app.query_one("#sheet")
        assert table.virtual_size.width <= table.size.width  # no column beyond the right edge

    run(app, script)


@pytest.mark.parametrize(
    "name, make, keys",
    [
        ("yams-rolled", lambda: play_app("yams", {1: "greedy"}), ["r", "1", "3"]),
        ("yammen-hints", lambda: play_app("yammen", {1: "greedy"}, seed=11), ["r", "h"]),
        ("yams-written-best", lambda: play_app("yams", {}, players=("Ann",)), ["r", "enter", "r", "r", "r", "h"]),
    ],
)
def test_snapshots(name: str, make: Callable[[], TableApp], keys: list[str]) -> None:
    """The main screens against SVGs kept in tests/terminal/snapshots (YAMBAK_SNAPSHOTS=1 rewrites them)."""
    app = make()
    shot: list[str] = []

    async def script(pilot: Any) -> None:
        await pilot.press(*keys)
        if "h" in keys:
            await until(pilot, lambda: app.hint_data is not None)
        await pilot.pause(0.1)
        shot.append(app.export_screenshot(title="yambak"))

    run(app, script)
    path = SNAPSHOTS / f"{name}.svg"
    if os.environ.get("YAMBAK_SNAPSHOTS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(shot[0], encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with YAMBAK_SNAPSHOTS=1"
    assert shot[0] == path.read_text(encoding="utf-8"), f"{name} changed: look at it, then YAMBAK_SNAPSHOTS=1"


def test_languages_from_the_same_catalogs_and_help() -> None:
    session = GameSession(load_ruleset("yamb"), ["Ana"], {}, dice=SeededDice(1), seed=1)
    app = TableApp(PlayFace(session), lang="hr")

    async def script(pilot: Any) -> None:
        await pilot.press("r")
        text = screen_text(app)
        assert "Zadrži kockice i baci ponovno ili odaberi polje." in text and "Jamb" in text
        assert "Kenta" in text  # the straight, as Croatian players name it
        await pilot.press("question_mark")
        assert "R: baci" in str(app.screen.query_one("#help").render())
        await pilot.press("escape", "t")
        assert app.theme == "textual-light"

    run(app, script)


def _shown(app: TableApp, row: int, column: int) -> tuple[str, str]:
    """A sheet cell as the terminal draws it: its text and its style."""
    from textual.coordinate import Coordinate

    cell = app.query_one("#sheet").get_cell_at(Coordinate(row, column))
    return cell.plain, str(cell.style)


def test_a_written_box_no_longer_looks_like_its_preview() -> None:
    """The value written equals the preview just seen: the cell is repainted all the same, in the
    written style and without the preview's mark; Enter on it then says why nothing happens."""
    app = play_app("yams", {}, players=("Ann",))
    face: PlayFace = app.face  # type: ignore[assignment]

    async def script(pilot: Any) -> None:
        await pilot.press("r")
        row, column = min(at for at, (_, action) in app.cells.items() if action is not None)
        preview = _shown(app, row, column)
        app.query_one("#sheet").move_cursor(row=row, column=column)
        await pilot.press("enter")
        assert face.session.state.sheets[0].turns == 1
        written = _shown(app, row, column)
        state = face.session.state
        value = str(state.sheets[0].written[state.rules.box_index(*state.history[0].box.split("."))])
        assert preview[0].strip(" ·") == written[0].strip() == value  # the same number...
        assert preview[1] != written[1] and preview[0] != written[0]  # ...drawn as written, not as a preview
        app.query_one("#sheet").move_cursor(row=row, column=column)  # back from the next open box
        await pilot.press("enter")
        assert "already filled" in str(app.query_one("#said").render())
        assert face.session.state.sheets[0].turns == 1

    run(app, script)


def test_the_coachs_best_box_and_a_refused_box_show_without_colour() -> None:
    """Hints on: the best box is marked ◆ and reversed (a mark and a style, not a colour); in yamb's down
    column a box out of order is marked – and Enter on it says the engine's reason."""
    app = play_app("yamb", {}, players=("Ana",), seed=5)

    async def script(pilot: Any) -> None:
        await pilot.press("r", "r", "r", "h")  # no roll left: the coach's best is a box
        await until(pilot, lambda: app.hint_data is not None)
        await pilot.pause(0.05)
        best = app._best_box()
        assert best is not None
        (row, column), _ = next((at, c) for at, c in app.cells.items() if c[0] == best and isinstance(c[1], Score))
        text, style = _shown(app, row, column)
        assert text.endswith("◆") and "reverse" in style
        others = [_shown(app, *at) for at, c in app.cells.items() if isinstance(c[1], Score) and c[0] != best]
        assert others and all(t.endswith("·") and "reverse" not in s for t, s in others)
        await pilot.press("h")  # hints off: the best box is a preview like the others again
        text, style = _shown(app, row, column)
        assert text.endswith("·") and "reverse" not in style
        (row, column), (box, code) = next(
            (at, c) for at, c in app.cells.items() if c[0].startswith("down.") and isinstance(c[1], str)
        )
        assert _shown(app, row, column) == ("–", "dim")
        app.query_one("#sheet").move_cursor(row=row, column=column)
        await pilot.press("enter")
        assert "not next in its column" in str(app.query_one("#said").render())

    run(app, script)


@pytest.mark.parametrize("preset", ["yams", "yamb"])
def test_the_cursor_waits_in_the_seat_you_play(preset: str) -> None:
    """Seat 2 behind a bot: when the turn comes the cursor is on that seat's first open box (its column
    on a shared sheet), and after the roll on a box the dice may fill; after each turn, on the next one."""
    app = play_app(preset, {0: "greedy"}, players=("Bot", "Ann"))
    face: PlayFace = app.face  # type: ignore[assignment]
    table = lambda: app.query_one("#sheet")  # noqa: E731
    mine = 2 if preset == "yams" else 1  # a column per player, or Ann's own sheet of columns

    async def script(pilot: Any) -> None:
        for turn in range(2):
            await until(pilot, lambda: app.actor() == 1)
            await pilot.pause(0.05)
            at = table().cursor_coordinate
            assert at.column == mine and app.cells == {}  # before the roll: nothing offered yet...
            box = app.layout_key[1][at.row][1]
            column = app.layout_key[2][at.column - 1][1]
            assert face.session.state.sheets[1].written[face.session.state.rules.box_index(column, box)] is None
            await pilot.press("r")
            at = table().cursor_coordinate
            found = app.cells.get((at.row, at.column))
            assert found is not None and isinstance(found[1], Score) and found[1].player == 1  # ...then a box to fill
            await pilot.press("enter")
            assert face.session.state.sheets[1].turns == turn + 1

    run(app, script)


def test_a_struck_box_looks_struck_not_offered() -> None:
    """yams-fr strikes any box: in strike mode the boxes offered read `×·`; the box struck then reads
    `×` in the struck style, told apart by the mark as well as the style."""
    app = play_app("yams-fr", {}, players=("Ann",))
    face: PlayFace = app.face  # type: ignore[assignment]

    async def script(pilot: Any) -> None:
        await pilot.press("r", "s")
        strikes = [at for at, (_, action) in app.cells.items() if isinstance(action, Score) and action.strike]
        assert strikes
        row, column = min(strikes, key=lambda at: (at[1], at[0]))
        offered = _shown(app, row, column)
        assert offered[0] == "×·"
        app.query_one("#sheet").move_cursor(row=row, column=column)
        await pilot.press("enter")
        assert face.session.state.history[0].strike
        struck = _shown(app, row, column)
        assert struck[0] == "× " and "strike" in struck[1] and struck[1] != offered[1]

    run(app, script)


def test_the_keepers_cursor_follows_the_entry_due() -> None:
    """Keeping yams for Ann and Bram: after Ann's entry the cursor is in Bram's column, on his first
    open box, so the next dice and Enter file his entry."""
    session = KeeperSession.start(load_ruleset("yams"), ["Ann", "Bram"], None)
    app = TableApp(KeepFace(session))

    async def script(pilot: Any) -> None:
        table = app.query_one("#sheet")
        await pilot.press(*"66655", "enter")  # Ann's first open box: ones, for 0
        assert session.state.sheets[0].turns == 1
        assert (table.cursor_coordinate.row, table.cursor_coordinate.column) == (0, 2)
        await pilot.press(*"11111", "enter")
        assert session.state.sheets[1].turns == 1 and session.state.history[-1].box == "free.ones"
        assert (table.cursor_coordinate.row, table.cursor_coordinate.column) == (1, 1)  # Ann's twos

    run(app, script)


def test_the_keepers_undo_key_names_and_takes_back_the_last_thing_done() -> None:
    """A correction typed after later entries is the last thing done: the status names it for the U key,
    U takes it back (not the last entry) and says so, and the history keeps the note (issue 34)."""
    from textual.widgets import Input

    session = KeeperSession.start(load_ruleset("yams"), ["Ann", "Bram"], None)
    app = TableApp(KeepFace(session))

    def status() -> str:
        return str(app.query_one("#status").render())

    async def script(pilot: Any) -> None:
        await pilot.press(*"66655", "enter", *"11111", "enter")  # Ann's ones for 0, Bram's ones for 5
        assert "U: Undo Bram's turn 1" in status()
        await pilot.press("colon")
        app.query_one("#command", Input).value = "fix 1 11234 ones"  # Ann's ones: 2 after all
        await pilot.press("enter")
        await until(pilot, lambda: "U: Undo Ann's correction of turn 1" in status())
        assert session.state.totals() == [2, 5]
        await pilot.press("u")
        await until(pilot, lambda: session.state.totals() == [0, 5])
        assert len(session.state.history) == 2 and "Undone: Ann's correction of turn 1" in str(
            app.query_one("#said").render()
        )
        assert "U: Undo Bram's turn 1" in status()
        await pilot.press("colon")
        app.query_one("#command", Input).value = "history"
        await pilot.press("enter")
        assert "Undone: Ann's correction of turn 1" in str(app.query_one("#said").render())

    run(app, script)


def test_a_bots_entry_is_said_by_its_name() -> None:
    """The status line says what the bot wrote, as a player would: "Bot: Full house, 25"."""
    from .test_pty import YAMS_NAMES

    app = play_app("yams", {1: "greedy"})
    face: PlayFace = app.face  # type: ignore[assignment]

    async def script(pilot: Any) -> None:
        state = lambda: face.session.state  # noqa: E731
        await pilot.press("r")
        row, column = min(at for at, (_, action) in app.cells.items() if action is not None)
        app.query_one("#sheet").move_cursor(row=row, column=column)
        await pilot.press("enter")
        await until(pilot, lambda: len(state().history) == 2)
        await pilot.pause(0.05)
        entry = state().history[1]
        assert entry.player == 1
        said = f"Bot: {YAMS_NAMES[entry.box.partition('.')[2]]}, {state().total(1)}"  # one entry: its total
        assert said in screen_text(app), screen_text(app)

    run(app, script)


def test_sixteen_players_at_80x24_each_in_view_on_their_turn() -> None:
    """The players line is a window around the seat shown: at 80 columns every one of 16 players is on
    screen, marked, when their turn comes, and the counts say how many are cut off on either side."""
    names = tuple(f"Player{i:02d}" for i in range(16))
    app = play_app("yams", {}, players=names)
    face: PlayFace = app.face  # type: ignore[assignment]

    async def script(pilot: Any) -> None:
        state = lambda: face.session.state  # noqa: E731
        for seat in range(16):
            assert state().current == seat
            line = next(row for row in screen_text(app).splitlines() if "▶" in row)
            assert f"▶ {names[seat]} " in line, (seat, line)
            left, right = re.search(r"‹(\d+) ", line), re.search(r"(\d+)›", line)
            cut = (int(left.group(1)) if left else 0) + (int(right.group(1)) if right else 0)
            assert cut > 0 and cut + sum(name in line for name in names) == 16, line  # none missing silently
            await pilot.press("r")
            row, column = min(at for at, (_, action) in app.cells.items() if action is not None)
            app.query_one("#sheet").move_cursor(row=row, column=column)
            await pilot.press("enter")
            await until(pilot, lambda seat=seat: state().current == (seat + 1) % 16)

    run(app, script)


def test_the_keepers_dice_stay_the_history_scrolls_and_the_end_says_what_decided() -> None:
    """Yatzy kept for two at 80 x 24: the dice typed stay in the tray until their entry is filed; the
    history panel holds all 30 entries, the first and the last reachable; the end says the win was on
    points, 165 to 69 (Ann: 1 one, 30 sixes, 12 pair, 18 and 24 kinds, 30 chance, 50 yatzy; Bram 5 ones, 2 pair,
    3 and 4 kinds, 5 chance, 50 yatzy)."""
    session = KeeperSession.start(load_ruleset("yatzy"), ["Ann", "Bram"], None)
    app = TableApp(KeepFace(session))
    tray = lambda: str(app.query_one("#dice").render())  # noqa: E731

    async def script(pilot: Any) -> None:
        empty = tray()
        await pilot.press(*"6623")
        await pilot.press("1")  # the fifth die: the roll is filed as typed, and stays in view
        assert session.state.turns[0].rolls == ((6, 6, 2, 3, 1),)
        assert tray() == str(dice_text([6, 6, 2, 3, 1], set())) != empty
        await pilot.press("backspace", "enter")  # the entry filed: the tray is empty for the next player
        assert session.state.sheets[0].turns == 1 and tray() == empty
        face: KeepFace = app.face  # type: ignore[assignment]
        while not session.state.finished:  # the rest typed as lines (as `:` takes them), each its first open box
            seat = session.state.current
            face.line("11111" if seat else "66666")
            face.line(session.state.rules.box_id(session.state.sheets[seat].written.index(None)))
        await pilot.pause(0.1)
        assert app.results is not None
        assert "Ann wins\nOn points: 165 to 69." in app._results_text()
        assert session.state.totals() == [165, 69]
        await pilot.press("escape", "l")
        assert app.history is not None and len(app.history.lines) == 30
        panel = app.history.query_one("#history")
        assert panel.max_scroll_y > 0  # more entries than the screen holds: it scrolls
        await pilot.pause(0.1)
        assert "30. Bram: Yatzy, 50" in screen_text(app)  # opened on the newest
        await pilot.press("home")
        await pilot.pause(0.1)
        assert " 1. Ann: Ones, 1   66231" in screen_text(app)
        await pilot.press("escape")
        assert app.history is None

    run(app, script)


def test_a_bots_move_is_in_the_history_as_it_is_made() -> None:
    """The history panel, open while the bot plays, gains its move as a player says it."""
    session = GameSession(load_ruleset("yams"), ["Ann", "Bot"], {1: "greedy"}, dice=SeededDice(3), seed=3)
    face = PlayFace(session)
    app = TableApp(face, bot_pause=3600)  # the bot moves when the test says (`_tick`, the app's timer)

    async def script(pilot: Any) -> None:
        state = lambda: face.session.state  # noqa: E731
        await pilot.press("r", "enter", "l")
        assert app.history is not None and len(app.history.lines) == 1
        while len(state().history) < 2:
            app._tick()
        await pilot.pause(0.1)
        entry = state().history[1]
        written = state().sheets[1].written[state().rules.box_index(*entry.box.split("."))]
        line = f"2. Bot: {app.words.row(entry.box.partition('.')[2])}, {written}"
        assert line in screen_text(app)

    run(app, script)


def test_the_keepers_line_help_in_dutch_is_a_panel_that_fits_80_columns() -> None:
    """`:help` in the Dutch keeper at 80 x 24: the whole help in a panel opened at its top (not its last line
    in the status row), each command's line from the Dutch catalog, unbroken by the panel's edge."""
    from yambak.web.i18n import translations

    session = KeeperSession.start(load_ruleset("yams"), ["Ann", "Bram"], None, lang="nl")
    app = TableApp(KeepFace(session), lang="nl")
    dutch = translations("nl").gettext

    async def script(pilot: Any) -> None:
        await pilot.press("colon", *"help", "enter")
        await pilot.pause(0.1)
        shown = screen_text(app)
        assert (
            ":help" in shown
            and dutch("Type the dice after each roll as digits, e.g. 66231 (all dice, held ones too).")[:40] in shown
        )
        for keys, text in (
            ("announce VAK", "announce after roll 1 (announce columns)"),
            ("sheet", "every player's sheet"),
        ):
            line = next(row for row in shown.splitlines() if f"  {keys}  " in row)
            assert " ".join(line.split("│")[1].split()) == f"{keys} {dutch(text)}" != f"{keys} {text}"
        await pilot.press("escape")
        assert session.state.sheets[0].turns == 0  # help changed nothing

    run(app, script)


def test_balut_shows_each_players_points_as_they_stand() -> None:
    """A Balut game alone: the strip shows the points the engine counts (an empty sheet's total, 0, is worth
    -2 by Balut's table; no category is made yet)."""
    app = play_app("balut", {}, players=("Ann",))

    async def script(pilot: Any) -> None:
        await pilot.pause()
        assert "Ann 0 · -2 pts" in screen_text(app)
        view = app.current_view
        assert view["players"][0]["category_points"]["points"] == -2

    run(app, script)


def test_balut_hints_are_in_category_points() -> None:
    """Balut is decided by category points: the terminal's hints say their losses are in those."""
    app = play_app("balut", {}, players=("Ann",))

    async def script(pilot: Any) -> None:
        await pilot.press("r")
        await pilot.press("h")
        await until(pilot, lambda: app.hint_data is not None)
        assert app.hint_data["measure"] == "category_points"
        labels = [str(o.prompt) for o in app.query_one("#hint-list").options]
        assert any(label.endswith("(−: category points)") for label in labels), labels

    run(app, script)
