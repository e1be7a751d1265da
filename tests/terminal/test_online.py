"""`yambak play --join` and `yambak profile --link` against a real server, with a browser player at the
same table: the terminal takes the open seat over the browser's own routes and socket, plays its turns
line by line on a pseudo-terminal, keeps its seat token (a second `--join` takes the same seat), comes
back after a dropped socket with `hello since`, checks the fair dice at the end, and a profile taken by
its move link gets the game in its history. The full-screen app on an online table is driven by Pilot.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pexpect
import pytest

from yambak.server import Settings
from yambak.terminal.online import OnlineTable, SavedState

from ..web.conftest import app_in_thread, chromium
from ..web.table_helpers import ready, roll, score_first_offered, wait_my_turn_or_end
from .test_pty import YAMBAK

TWO_ROWS = {
    "id": "two-rows",
    "name": "Two rows",
    "rows": [{"id": "chance", "kind": "sum"}, {"id": "sixes", "kind": "upper", "face": 6}],
    "columns": [{"id": "free"}],
}
BOX = re.compile(r"^  ([^,\r\n]+?) (\d+)(?:,|\r?$)", re.MULTILINE)  # the best box offered: its name, its points



@pytest.fixture(scope="module")
def browser() -> Any:
    """Chromium for this module alone: while Playwright's sync API is open it holds the thread's event loop,
    and the tests that follow on this worker run `asyncio.run`."""
    with chromium() as b:
        yield b

@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Any:
    db = tmp_path_factory.mktemp("online") / "o.db"
    settings = Settings(database_url=f"sqlite:///{db}", bot_delay=0.0, warm_strategies=False, coach_process=False)
    with app_in_thread(settings) as url:
        yield url


def join(base: str, table: str, state: Path, *more: str) -> pexpect.spawn:
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_STATE_HOME": str(state)}
    args = ["play", "--join", f"{base}/t/{table}", "--plain", *more]
    child = pexpect.spawn(YAMBAK, args, dimensions=(24, 100), encoding="utf-8", timeout=30, env=env)
    child.delaybeforesend = None
    return child


def test_a_terminal_takes_the_open_seat_beside_a_browser_player(base: str, browser: Any, tmp_path: Path) -> None:
    state = tmp_path / "state"
    # Tess has a profile in her browser; its move link takes it to her terminal
    tess_browser = browser.new_context()
    assert tess_browser.request.post(base + "/api/me", data={"name": "Tess"}).ok
    link = tess_browser.request.post(base + "/api/me/link", data={}).json()["url"]
    env = {**os.environ, "XDG_STATE_HOME": str(state)}
    taken = subprocess.run([YAMBAK, "profile", "--link", link], env=env, capture_output=True, text=True)
    assert taken.returncode == 0 and "plays as Tess" in taken.stdout, taken
    again = subprocess.run([YAMBAK, "profile", "--link", link], env=env, capture_output=True, text=True)
    assert again.returncode == 2 and again.stderr.startswith("yambak: the link was refused"), again  # once only
    assert tess_browser.request.get(base + "/api/me").ok  # moving it signed nothing else out

    # Ann opens a table in her browser with a seat for a friend
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    ctx.set_default_timeout(20000)
    page = ctx.new_page()
    body = {
        "name": "Ann and a friend",
        "rules": TWO_ROWS,
        "seats": [{"name": "Ann"}, {"kind": "open"}],
        "listed": False,
    }
    made = page.request.post(base + "/api/tables", data=body).json()
    page.goto(base + made["url"])
    ready(page)

    child = join(base, made["id"], state)  # no --name: the profile's
    child.expect_exact("you play Tess.")
    turns = 0
    while True:
        if not wait_my_turn_or_end(page):
            break
        roll(page)
        score_first_offered(page)
        child.expect(r"Tess, your turn: r to roll\.|Game over")
        if "Game over" in child.after:
            break
        child.sendline("r")
        child.expect(BOX)
        box = child.match.group(1)
        child.sendline(box)
        assert "free." not in box and box in ("Chance", "Sixes"), box  # the sheet's names, typed back
        child.expect_exact(f"Tess: {box}, ")
        turns += 1
    child.expect(r"Game over\. (Ann|Tess) wins\. On points: \d+ to \d+\.|Game over\. Ann, Tess share the win")
    child.expect(r"Fair dice verified: \d+ rolls")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and "Traceback" not in (child.before or "")
    assert turns == 2
    page.wait_for_function("() => document.body.classList.contains('finished')")
    # the game is in Tess's history (her browser sees it), and the browser saw her as any player
    games = tess_browser.request.get(base + "/api/me/games").json()["games"]
    assert [g["ref"] for g in games] == [made["id"]]
    assert page.locator("#chips").inner_text().count("Tess") == 1

    # --join again: the same seat (its token was kept), the game over
    child = join(base, made["id"], state)
    child.expect_exact("you play Tess.")
    child.expect_exact("Game over. ")
    child.expect(pexpect.EOF)
    saved = SavedState(state / "yambak")
    assert len(saved.seats(base, made["id"])) == 1
    assert oct((state / "yambak" / "online.json").stat().st_mode & 0o777) == "0o600"
    ctx.close()
    tess_browser.close()


def test_a_dropped_socket_comes_back_with_the_events_it_missed(base: str, tmp_path: Path) -> None:
    """The client's socket drops while the other player plays on: it reconnects by itself, its hello
    says the version it had, it is sent what it missed, and it still holds its seat."""
    import websockets

    body = {"name": "T", "rules": TWO_ROWS, "seats": [{"name": "Ann"}, {"kind": "open"}]}
    made = httpx.post(base + "/api/tables", json=body).json()
    ann_tokens = list(made["tokens"].values())
    socket = base.replace("http", "ws", 1) + f"/ws/{made['id']}"

    async def roll_as_ann() -> int:
        """Ann's roll, sent again on the version she last saw until the table takes it: its version."""
        async with websockets.connect(socket) as ann:
            await ann.send(json.dumps({"type": "hello", "tokens": ann_tokens}))
            while True:
                msg = json.loads(await ann.recv())
                if msg["type"] in ("state", "events") or (msg["type"] == "event" and msg["event"]["type"] != "rolled"):
                    await ann.send(json.dumps({"type": "roll", "seat": 0, "v": msg["v"]}))
                elif msg["type"] == "event":
                    return int(msg["v"])
                elif msg["type"] == "error":  # refused as stale: the table again, then the roll again
                    await ann.send(json.dumps({"type": "hello", "tokens": ann_tokens}))

    async def run() -> None:
        table = OnlineTable(f"{base}/t/{made['id']}", name="Tess", saved=SavedState(tmp_path))
        table.fetch()
        assert table.sit_down() == 1
        await table.start()
        assert table.seats == [1]
        for _ in range(200):  # its fair-dice nonce is in (an event of its own) before the network goes
            if any(n["seat"] == 1 for n in table.view["fairness"]["nonces"]):
                break
            await asyncio.sleep(0.05)
        before = table.version
        assert before is not None
        await table._ws.close()  # the network goes away under it
        rolled = await roll_as_ann()  # Ann rolls meanwhile
        assert rolled > before
        for _ in range(200):
            if (table.version or 0) >= rolled:
                break
            await asyncio.sleep(0.05)
        assert table.version == rolled and table.seats == [1]
        assert table.view["players"][0]["turn"]["rolls"] == 1
        await table.stop()

    in_a_thread(run)


def in_a_thread(main: Any) -> None:
    """asyncio.run(main()) in a thread of its own (Playwright's sync API holds this thread's loop)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        pool.submit(lambda: asyncio.run(main())).result(120)


def test_the_full_screen_app_plays_a_seat_at_an_online_table(base: str, tmp_path: Path) -> None:
    """The app draws the server's views: the terminal's seat rolls with R, holds with 1-6, scores with
    Enter, a server-side bot plays the other seat, and the end shows the verdict on the dice."""
    from yambak.terminal.app import OnlineFace, TableApp

    from .test_app import screen_text, until

    body = {"name": "T", "rules": TWO_ROWS, "seats": [{"kind": "open"}, {"kind": "bot", "bot": "easy"}]}
    made = httpx.post(base + "/api/tables", json=body).json()
    table = OnlineTable(f"{base}/t/{made['id']}", name="Tess", saved=SavedState(tmp_path))
    table.fetch()
    assert table.sit_down() == 0
    app = TableApp(OnlineFace(table), bot_pause=0.05)

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.actor() == 0)
            for _ in range(2):
                await until(pilot, lambda: app.actor() == 0 or table.view["finished"])
                v = table.version or 0
                await pilot.press("r")
                await until(pilot, lambda v=v: (table.version or 0) > v and bool(table.view["players"][0]["turn"]))
                v = table.version or 0
                await pilot.press("1")  # hold the first die: the server holds it
                await until(pilot, lambda v=v: (table.version or 0) > v)
                assert table.view["players"][0]["turn"]["held"] == [0]
                row, column = min(at for at, (_, action) in app.cells.items() if action is not None)
                app.query_one("#sheet").move_cursor(row=row, column=column)
                done = table.view["players"][0]["turns_done"]
                await pilot.press("enter")
                await until(pilot, lambda done=done: table.view["players"][0]["turns_done"] == done + 1)
            await until(pilot, lambda: table.view["finished"] and app.results is not None)
            await until(pilot, lambda: "Fair dice verified" in app._results_text(), timeout=30)
            assert "Game over" in screen_text(app)
        await table.stop()

    in_a_thread(main)


def test_a_join_into_seat_2_puts_the_cursor_in_that_seats_column(base: str, tmp_path: Path) -> None:
    """Behind a server-side bot in seat 1, the terminal's seat 2: when its turn comes the cursor is in
    its own column on its first open box, and again after a rejoin (a second app on the same seat)."""
    from yambak.terminal.app import OnlineFace, TableApp

    from .test_app import until

    body = {"name": "T", "rules": TWO_ROWS, "seats": [{"kind": "bot", "bot": "easy"}, {"kind": "open"}]}
    made = httpx.post(base + "/api/tables", json=body).json()
    saved = SavedState(tmp_path)
    for rejoin in (False, True):
        table = OnlineTable(f"{base}/t/{made['id']}", name="Tess", saved=saved)
        table.fetch()
        assert table.sit_down() == (None if rejoin else 1)  # the seat token kept: the same seat again
        app = TableApp(OnlineFace(table), bot_pause=0.05)

        async def main(app: TableApp = app, table: OnlineTable = table, rejoin: bool = rejoin) -> None:
            async with app.run_test(size=(80, 24)) as pilot:
                await until(pilot, lambda: app.actor() == 1)
                await pilot.pause(0.05)
                at = app.query_one("#sheet").cursor_coordinate
                assert at.column == 2 and app.layout_key[1][at.row][1] == "sixes"  # Tess's column, first box
                if not rejoin:
                    await pilot.press("r")
                    await until(pilot, lambda: bool(table.view["players"][1]["turn"]))
            await table.stop()

        in_a_thread(main)


def test_the_online_line_mode_speaks_the_players_language() -> None:
    """`yambak play --join --plain --lang nl`: whom the table waits for, our turn and our roll in Dutch,
    the boxes by the names the line mode gives them (no server needed: the status is a function of the view)."""
    from yambak.terminal.online import plain_status
    from yambak.terminal.words import Words

    nl = Words("nl", "yams")
    turn = {"rolls": 1, "rolls_left": 2, "dice": [6, 6, 2, 3, 1], "held": [0, 1], "announced": None}
    turn["boxes"] = {"free.sixes": {"legal": True, "written": 12, "gain": 3}, "free.yam": {"legal": False}}
    view: dict[str, Any] = {"finished": False, "to_act": [1, 2]}
    view["players"] = [{"name": "Ann", "turn": None}, {"name": "Bram", "turn": None}, {"name": "Cas", "turn": None}]
    assert plain_status(view, [0], words=nl) == "Wachten op Bram, Cas."
    assert plain_status(view, [0]) == "Waiting for Bram, Cas."  # English without words
    view["to_act"] = [0]
    assert plain_status(view, [0], words=nl) == "Ann, jouw beurt: r om te gooien."
    view["players"][0]["turn"] = turn
    shown = plain_status(view, [0], box_name=lambda box: nl.box(box, 1), words=nl)
    assert shown == "Ann  worp 1  (nog 2)   [6]  [6]   2    3    1 \n  Zessen 12"


def test_a_servers_refusal_is_said_in_the_terminals_language() -> None:
    """The server's refusal by its code, in the catalog's Dutch (the server wrote it in English); a code the
    catalogs do not know keeps the server's words; without a language, the server's words as they came."""
    from yambak.terminal.words import Words
    from yambak.web.i18n import translations

    table = OnlineTable("http://127.0.0.1:9/t/abc")
    said: list[str] = []
    table.on_said = said.append
    refusal = {"type": "error", "code": "illegal/not-your-turn", "message": "It is not your turn."}
    table._receive(refusal, asyncio.Event())
    table.words = Words("nl")
    table._receive(refusal, asyncio.Event())
    table._receive({"type": "error", "code": "odd/new", "message": "Something new."}, asyncio.Event())
    assert said == ["It is not your turn.", translations("nl").gettext("It is not your turn."), "Something new."]
    assert said[1] != said[0]
