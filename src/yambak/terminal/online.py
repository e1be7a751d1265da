"""`yambak play --join URL` and `yambak profile --link URL`: this terminal at an online table.

To the server the terminal is one more browser. It takes an open seat through the table's join route
(or watches), keeps what a browser keeps in its cookies (the seat's token, the profile's device token)
under `$XDG_STATE_HOME/yambak`, so that `--join` again takes the same seat and its games enter the
profile's history, and sends them as cookies with the site's Origin. It speaks the table's socket
protocol (`server/session/protocol.py`, `server/tables/schema.py`): `hello` with the last version seen
when the socket comes back, each action with its `ref`, its fair-dice nonce before the game's first roll
(docs/fairness.md), and at the end it checks every die against the table's commitment, as
`yambak verify` does. Nothing is scored here: the views come from the server's engine.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
import secrets
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..commandline import UserError
from ..engine import Action, Announce, Hold, IllegalAction, Release, Roll, Score, Undo, Withdraw
from ..engine.fairness import nonces_of
from ..viewtypes import CoachAdvice, JSONObject, JSONValue, TableView
from .wire import (
    ProtocolError,
    check_server_message,
    check_table_view,
    clean,
    clean_text,
    is_coach_advice,
    is_table_view,
)
from .words import fill

if TYPE_CHECKING:
    import httpx
    from websockets.asyncio.client import ClientConnection

__all__ = ["OnlineTable", "SavedState", "claim_profile", "state_dir", "table_address"]

PROTOCOL = 1  # the socket protocol this client speaks (the server's `welcome` says its own)
TOKEN_COOKIE, PROFILE_COOKIE = "yambak_tokens", "yambak_profile"  # the browser's cookies (server/deps.py)
USER_AGENT = "yambak-terminal"
RECONNECT_AT_MOST = 2.0  # seconds between reconnection attempts at most: a restarted server finds its players fast

_TABLE_PATH = re.compile(r"^/t/([A-Za-z0-9_-]{1,64})(?:/.*)?$")
_MOVE_PATH = re.compile(r"^/me/move/([A-Za-z0-9_-]{1,128})/?$")
log = logging.getLogger(__name__)


def jittered(delay: float) -> float:
    """A wait of between half `delay` and `delay`: the clients a restarting server dropped together do not
    all come back in the same instant."""
    return delay * random.uniform(0.5, 1.0)


def state_dir() -> Path:
    """Where the terminal keeps what a browser keeps in cookies (XDG base directories)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "yambak"


def _origin(url: str, what: str, path: re.Pattern[str]) -> tuple[str, str]:
    parts = urlsplit(url.strip())
    found = path.match(parts.path or "")
    if parts.scheme not in ("http", "https") or not parts.netloc or found is None:
        raise UserError(f"{url!r} is not {what}")
    return f"{parts.scheme}://{parts.netloc}", found.group(1)


def table_address(url: str) -> tuple[str, str]:
    """(the site's origin, the table's id) of a table's link, e.g. https://example.org/t/AbC123.

    >>> table_address("http://127.0.0.1:8000/t/AbC-12_x?x=1")
    ('http://127.0.0.1:8000', 'AbC-12_x')
    """
    return _origin(url, "a table's link (https://HOST/t/ID)", _TABLE_PATH)


class SavedState:
    """The seat tokens and profile device tokens this terminal holds, per site: a JSON file readable by
    its owner only, written whole on every change (a crash leaves the old file or the new one)."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or state_dir()) / "online.json"
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        self.data: dict[str, dict[str, object]] = {
            "profiles": dict(data.get("profiles") or {}),
            "seats": dict(data.get("seats") or {}),
        }

    def profile(self, origin: str) -> str | None:
        token = self.data["profiles"].get(origin)
        return token if isinstance(token, str) else None

    def seats(self, origin: str, table: str) -> list[str]:
        tokens = self.data["seats"].get(f"{origin} {table}")
        return [t for t in tokens if isinstance(t, str)] if isinstance(tokens, list) else []

    def set_profile(self, origin: str, token: str | None) -> None:
        if token:
            self.data["profiles"][origin] = token
        else:
            self.data["profiles"].pop(origin, None)
        self._save()

    def add_seat(self, origin: str, table: str, token: str) -> None:
        key = f"{origin} {table}"
        self.data["seats"][key] = [*[t for t in self.seats(origin, table) if t != token], token]
        self._save()

    def _save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temp = self.path.with_suffix(".tmp")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(self.data, f, indent=1)
        os.replace(temp, self.path)


def _refusal(response: httpx.Response) -> str:
    return clean_text(_refusal_text(response))


def _refusal_text(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return f"HTTP {response.status_code}"
    if not isinstance(data, dict):
        return f"HTTP {response.status_code}"
    return str(data.get("message") or data.get("detail") or data.get("code") or f"HTTP {response.status_code}")


def claim_profile(url: str, saved: SavedState | None = None) -> str:
    """Take the profile a move link (https://HOST/me/move/CODE) moves to this terminal; its name."""
    import httpx

    origin, code = _origin(url, "a profile's move link (https://HOST/me/move/CODE)", _MOVE_PATH)
    saved = saved or SavedState()
    cookies = {PROFILE_COOKIE: token} if (token := saved.profile(origin)) else {}
    try:
        r = httpx.post(f"{origin}/api/me/move/{code}", cookies=cookies, headers={"User-Agent": USER_AGENT}, timeout=15)
    except httpx.HTTPError as exc:
        raise UserError(f"cannot reach {origin}: {exc}") from None
    if r.status_code != 200:
        raise UserError(f"the link was refused: {_refusal(r)}")
    token = r.cookies.get(PROFILE_COOKIE)
    if not token:
        raise UserError("the server did not hand over the profile")
    saved.set_profile(origin, token)
    return str(r.json()["profile"]["name"])


def action_message(action: Action) -> JSONObject:
    """An engine action as the table's socket takes it (seat, but no version or ref yet)."""
    seat = action.player
    if isinstance(action, Roll):
        out: JSONObject = {"type": "roll", "seat": seat}
        if action.held is not None:
            out["held"] = [*sorted(action.held)]
        return out
    if isinstance(action, (Hold, Release)):
        return {"type": "hold" if isinstance(action, Hold) else "release", "seat": seat, "dice": [*sorted(action.dice)]}
    if isinstance(action, Announce):
        return {"type": "announce", "seat": seat, "box": action.box}
    if isinstance(action, Score):
        return {"type": "score", "seat": seat, "box": action.box, "strike": action.strike}
    if isinstance(action, Withdraw):
        return {"type": "withdraw", "seat": seat}
    if isinstance(action, Undo):
        return {"type": "undo", "seat": seat}
    raise IllegalAction("illegal/unknown", f"not an action a table takes: {type(action).__name__}")


class OnlineTable:
    """One online table as this terminal sees it: the last view and version, the seats it holds, and
    a socket that comes back after a drop. Runs on one asyncio loop (`start` on it); `on_change` and
    `on_said` are called on that loop."""

    def __init__(self, url: str, name: str | None = None, watch: bool = False, saved: SavedState | None = None) -> None:
        self.origin, self.table = table_address(url)
        self.name, self.watch = name, watch
        self.saved = saved or SavedState()
        self.view: TableView | None = None  # none until fetched or sent
        self.version: int | None = None
        self.seats: list[int] = []  # the seats this terminal holds (as the server's welcome says)
        self.verdict = ""  # the fair dice, checked at the end
        self.on_change: Callable[[], None] = lambda: None
        self.on_said: Callable[[str], None] = lambda _text: None
        self.box_name: Callable[[str], str] = lambda box: box  # a box as the face names it in its language
        self.words: Callable[..., str] = fill  # what this terminal says, in the face's language (a `Words`)
        self.news: list[str] = []  # every box written since this terminal sat down, as `_tell` said it
        self.closed: str | None = None  # why the table stopped talking to us for good
        self._ws: ClientConnection | None = None
        self._tasks: set[asyncio.Task[object]] = set()
        self._advice: dict[int, asyncio.Future[CoachAdvice | None]] = {}
        self._nonces: set[int] = set()
        self._sent_nonces: dict[int, set[str]] = {}  # every nonce this terminal gave, by seat: the record must hold one
        self._commitment: str | None = None  # the dice commitment first seen: the record must keep it
        self._loop: asyncio.AbstractEventLoop | None = None

    # --- HTTP, as a browser with its cookies -------------------------------------------------------

    @property
    def seen(self) -> TableView:
        """The table's view, once it has sent one (`fetch`, or the socket's first state)."""
        if self.view is None:
            raise UserError(f"{self.origin} sent no view of the table")
        return self.view

    def cookies(self) -> dict[str, str]:
        out = {}
        if profile := self.saved.profile(self.origin):
            out[PROFILE_COOKIE] = profile
        if seats := self.saved.seats(self.origin, self.table):
            out[TOKEN_COOKIE] = ".".join(seats)
        return out

    def _http(self) -> httpx.Client:
        import httpx

        headers = {"User-Agent": USER_AGENT}
        return httpx.Client(base_url=self.origin, cookies=self.cookies(), headers=headers, timeout=30)

    def fetch(self) -> TableView:
        """The table's view over HTTP (before the socket opens); UserError when there is no such table."""
        import httpx

        try:
            with self._http() as http:
                r = http.get(f"/api/tables/{self.table}")
        except httpx.HTTPError as exc:
            raise UserError(f"cannot reach {self.origin}: {exc}") from None
        if r.status_code != 200:
            raise UserError(f"no table here: {_refusal(r)}")
        try:
            self.view = check_table_view(r.json())
        except (ValueError, ProtocolError) as exc:
            raise UserError(f"{self.origin} answered with no table view the protocol allows ({exc})") from None
        self._note_commitment()
        self.version = None  # the socket's first answer brings the version it follows from
        return self.view

    def sit_down(self) -> int | None:
        """Take an open seat unless this terminal holds one already (or only watches): the seat taken."""
        import httpx

        if self.watch or self.saved.seats(self.origin, self.table) or not (self.view and self.view["open_seats"]):
            return None
        if not self.name:
            raise UserError("a name to play under: --name NAME (or take a profile first: yambak profile --link URL)")
        try:
            with self._http() as http:
                r = http.post(f"/api/tables/{self.table}/join", json={"name": self.name})
        except httpx.HTTPError as exc:
            raise UserError(f"cannot reach {self.origin}: {exc}") from None
        if r.status_code != 200:
            raise UserError(f"no seat: {_refusal(r)}")
        data = r.json()
        self.saved.add_seat(self.origin, self.table, str(data["token"]))
        if profile := r.cookies.get(PROFILE_COOKIE):  # a profile made for the name we sat down under
            self.saved.set_profile(self.origin, profile)
        return int(data["seat"])

    def profile_name(self) -> str | None:
        """The name of the profile this terminal holds on the site, if any."""
        import httpx

        if not self.saved.profile(self.origin):
            return None
        try:
            with self._http() as http:
                r = http.get("/api/me")
        except httpx.HTTPError:
            return None
        try:
            return clean_text(str(r.json()["profile"]["name"])) if r.status_code == 200 else None
        except (ValueError, KeyError, TypeError):
            return None

    def review(self) -> JSONObject | None:
        with self._http() as http:
            r = http.get(f"/api/tables/{self.table}/review")
        try:
            review = clean(r.json()) if r.status_code == 200 else None
        except ValueError:
            return None
        return review if isinstance(review, dict) else None

    def check_dice(self) -> str:
        """The finished game's record checked against the table's commitment: one line to show."""
        from ..engine import GameRecord, RecordError, replay, verify_record

        with self._http() as http:
            r = http.get(f"/api/tables/{self.table}/record")
        if r.status_code != 200:
            return self.words("The dice could not be checked: {reason}", reason=_refusal(r))
        try:
            record = GameRecord.loads(r.text)
            state = replay(record)
        except RecordError as exc:
            return clean_text(self.words("NOT VERIFIED: the record is not a legal game ({reason})", reason=exc))
        if record.fairness is None or record.fairness.get("seed") is None:
            return self.words("The dice cannot be checked yet: the table's seed is not revealed (a deal not closed).")
        if self._commitment is not None and record.fairness.get("commitment") != self._commitment:
            return self.words("NOT VERIFIED: the record's commitment is not the one the table showed at the start.")
        used = {(n.seat, n.value) for n in nonces_of(record.fairness)}
        for seat, ours in sorted(self._sent_nonces.items()):
            if not any((seat, nonce) in used for nonce in ours):  # a server that drops it could pick the dice
                return self.words(
                    "NOT VERIFIED: the record does not mix in this terminal's nonce for seat {n}.", n=seat + 1
                )
        problems, checked = verify_record(record, state.rules.rolled_dice, state.rules.rolloff_dice)
        if problems:
            return clean_text(self.words("NOT VERIFIED: {reason}", reason=problems[0]))
        said = "Fair dice verified: {n} rolls re-derived from the committed seed and the players' nonces."
        return self.words(said, n=checked)

    # --- the socket ------------------------------------------------------------------------------

    @property
    def ws_url(self) -> str:
        scheme = "wss:" if self.origin.startswith("https:") else "ws:"
        return scheme + self.origin.split(":", 1)[1] + f"/ws/{self.table}"

    async def start(self, timeout: float = 20) -> None:
        """Open the socket (and keep it open); returns once the server has welcomed us and sent the table."""
        self._loop = asyncio.get_running_loop()
        ready = asyncio.Event()
        self._spawn(self._run(ready))
        try:
            await asyncio.wait_for(ready.wait(), timeout)
        except TimeoutError:
            raise UserError(f"{self.origin} did not answer on the table's socket") from None
        if self.closed:
            why = self.closed
            await self.stop()
            raise UserError(why)

    async def stop(self) -> None:
        self.closed = self.closed or "closed"
        if self._ws is not None:
            await self._ws.close()
        for task in list(self._tasks):
            task.cancel()

    def _spawn(self, coro: Coroutine[object, object, object]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)  # a reference until it is done: a task nobody holds may vanish
        task.add_done_callback(self._tasks.discard)

    async def _run(self, ready: asyncio.Event) -> None:
        import websockets
        from websockets.exceptions import ConnectionClosed, InvalidHandshake

        delay = 0.5
        headers = {"Origin": self.origin, "User-Agent": USER_AGENT}
        while self.closed is None:
            cookie = "; ".join(f"{k}={v}" for k, v in self.cookies().items())
            try:
                async with websockets.connect(
                    self.ws_url, additional_headers={**headers, **({"Cookie": cookie} if cookie else {})}
                ) as ws:
                    self._ws = ws
                    await ws.send(json.dumps({"type": "hello", "since": self.version, "protocol": PROTOCOL}))
                    async for text in ws:
                        try:  # checked and cleaned before anything reads it; a bad one is skipped, not fatal
                            self._receive(check_server_message(text), ready)
                        except Exception as exc:  # noqa: BLE001 - a message valid in form but not in sense: skip it
                            log.warning("skipped a message from %s: %s", self.origin, clean_text(str(exc))[:200])
                            self.on_said(self.words("A message from the server was not understood (skipped)."))
                        delay = 0.5
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                if code in (4404, 4400):  # no such table, or a protocol we do not speak: nothing to retry
                    self.closed = "the table closed the connection" if code == 4400 else "no such table"
                    ready.set()
            except (OSError, InvalidHandshake, TimeoutError):
                pass
            self._ws = None
            for future in self._advice.values():
                if not future.done():
                    future.set_result(None)
            if self.closed is None:
                self.on_said(self.words("Connection lost, reconnecting…"))
                await asyncio.sleep(jittered(delay))
                delay = min(delay * 2, RECONNECT_AT_MOST)

    def _receive(self, msg: JSONObject, ready: asyncio.Event) -> None:
        kind = msg.get("type")
        if kind == "welcome":
            seats = msg.get("seats")
            self.seats = [s for s in seats if isinstance(s, int)] if isinstance(seats, list) else []
            self._nonces.clear()
        elif kind in ("state", "events", "event"):
            version, view = msg.get("v"), msg.get("view")  # `events` without a view: nothing was missed
            if isinstance(version, int):
                self.version = version
            if is_table_view(view):
                self.view = view
            self._note_commitment()
            ready.set()
            self._after_view()
            events = [msg] if kind == "event" else msg.get("events")
            for event in events if isinstance(events, list) else []:
                self._tell(event.get("event") if isinstance(event, dict) else None)
            self.on_change()
        elif kind == "advice":
            seat, advice = msg.get("seat"), msg.get("advice")
            future = self._advice.pop(seat, None) if isinstance(seat, int) else None
            if future is not None and not future.done():
                future.set_result(advice if is_coach_advice(advice) else None)
        elif kind == "error":
            code = str(msg.get("code", ""))
            if code == "advice/replaced":  # our newer request for advice took its place: its answer comes
                return
            if code == "deal/sealed" or code.startswith("table/"):
                self.closed = self._reason(code, msg)
                ready.set()
            if code.startswith("advice"):
                for future in self._advice.values():
                    if not future.done():
                        future.set_result(None)
            elif not code.startswith("fair/"):  # a nonce late or given already: nothing to tell a player
                self.on_said(self._reason(code, msg))
                if code.startswith("stale"):
                    self._send({"type": "hello", "since": self.version})
        elif kind == "rematch":
            self.on_said(self.words("A rematch: {address}", address=f"{self.origin}/t/{msg['table']}"))

    def _reason(self, code: str, msg: JSONObject) -> str:
        """A server's refusal in this terminal's language: the catalogs' text for its code, with the
        message's own values; the server's words where the catalogs have none (or in English)."""
        said = str(msg.get("message") or code)
        refusal = getattr(self.words, "refusal", None)  # a `Words`; the default speaks as the server does
        return str(refusal(code, said, msg)) if callable(refusal) else said

    def _tell(self, event: JSONValue) -> None:
        """One line for every box written (whoever wrote it), as the line mode of a local game says it."""
        if not isinstance(event, dict) or self.view is None:
            return
        seat = event.get("player")
        if event.get("type") == "scored" and isinstance(seat, int) and 0 <= seat < len(self.view["players"]):
            player = self.view["players"][seat]["name"]
            from .view import by_roll

            early = by_roll(self.view, seat, str(event.get("box")))
            line = f"{player}: {self.box_name(str(event.get('box')))}, {event.get('written')}{early}"
            self.news.append(line)
            self.on_said(line)

    def _after_view(self) -> None:
        """Fair dice: each seat we hold mixes its nonce in before the first roll, one at a time."""
        if self.view is None:
            return
        fair = self.view["fairness"]
        if fair and fair["open"]:
            given = {n["seat"] for n in fair["nonces"]}
            players = self.view["players"]
            waiting = [s for s in self.seats if s not in given and s < len(players) and players[s]["kind"] == "human"]
            if waiting and not (self._nonces - given):
                nonce = secrets.token_hex(16)
                self._nonces.add(waiting[0])
                if self._send({"type": "nonce", "seat": waiting[0], "v": self.version, "nonce": nonce}):
                    self._sent_nonces.setdefault(waiting[0], set()).add(nonce)
        if self.view["finished"] and not self.verdict:
            self.verdict = "…"
            self._spawn(self._check())

    def _note_commitment(self) -> None:
        fair = self.view["fairness"] if self.view is not None else None
        if self._commitment is None and fair is not None:
            self._commitment = fair["commitment"]

    async def _check(self) -> None:
        self.verdict = await asyncio.to_thread(self.check_dice)
        self.on_change()

    def _send(self, msg: JSONObject) -> bool:
        ws = self._ws
        if ws is None:
            return False
        self._spawn(ws.send(json.dumps(msg)))
        return True

    # --- acting ------------------------------------------------------------------------------------

    def act(self, action: Action) -> None:
        """Send an engine action (on the loop): refused at once when it is not ours or we are offline;
        the server's answer comes back as a view or a refusal through `on_said`."""
        if action.player not in self.seats:
            raise IllegalAction("illegal/not-your-seat", "this terminal does not hold that seat")
        if self.version is None or not self._send(
            {**action_message(action), "v": self.version, "ref": secrets.token_urlsafe(9)}
        ):
            raise IllegalAction("server/offline", "not connected: wait for the connection to come back")

    async def advise(self, seat: int, timeout: float = 60) -> CoachAdvice | None:
        """The server's coach on our seat's decision now (None where hints are off or it fails)."""
        future: asyncio.Future[CoachAdvice | None] = asyncio.get_running_loop().create_future()
        self._advice[seat] = future
        if not self._send({"type": "advise", "seat": seat, "v": self.version}):
            return None
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return None

    def advise_from_thread(self, seat: int) -> CoachAdvice | None:
        """`advise` for a worker thread (the app asks the coach off its event loop)."""
        if self._loop is None:
            return None
        return asyncio.run_coroutine_threadsafe(self.advise(seat), self._loop).result(90)


# --- the line mode at an online table ------------------------------------------------------------


def plain_status(
    view: TableView,
    seats: list[int],
    verdict: str = "",
    box_name: Callable[[str], str] = str,
    words: Callable[..., str] = fill,
) -> str:
    """What the line mode says of the table now: whose turn, our dice and every box they would write
    (named by `box_name`), or the end (totals, winners, the fair dice), in `words`' language."""
    players = view["players"]
    T = words
    if view["finished"]:
        lines = [
            f"  {p['name']}: {p['total']}" + (f"  ({p['match_points']:g} pts)" if p["match_points"] is not None else "")
            for p in players
        ]
        if end := view.get("end"):  # what decided it, as the table's pages and the local line modes word it
            from .words import Words, language

            lang = getattr(words, "lang", None) or language()
            lines.append(Words(lang, view["rules"]).end_line(end, len(view["rules"]["columns"])))
        else:  # a server from before the end was worded
            winners = ", ".join(players[w]["name"] for w in view.get("winners", []))
            lines.append(T("Game over. Winner: {names}.", names=winners))
        return "\n".join(lines + ([verdict] if verdict and verdict != "…" else []))
    ours = [s for s in view["to_act"] if s in seats]
    if not ours:
        waiting = [players[s]["name"] for s in view["to_act"]]
        return T("Waiting for {names}.", names=", ".join(waiting))
    seat = ours[0]
    name, turn = players[seat]["name"], players[seat]["turn"]
    if not turn or "dice" not in turn or not turn["rolls"]:  # (never hidden: a seat of ours)
        return T("{name}, your turn: r to roll.", name=name)
    dice = "  ".join(f"[{d}]" if i in turn["held"] else f" {d} " for i, d in enumerate(turn["dice"]))
    lines = [T("{name}  roll {n}  ({left} left)", name=name, n=turn["rolls"], left=turn["rolls_left"]) + f"   {dice}"]
    if announced := turn["announced"]:
        lines.append("  " + T("announced: {box}", box=box_name(announced)))
    legal = [(box, b.get("written"), b.get("gain") or 0) for box, b in turn["boxes"].items() if b["legal"]]
    legal.sort(key=lambda x: -x[2])
    if legal:
        lines.append("  " + ", ".join(f"{box_name(box)} {written}" for box, written, _ in legal))
    elif turn["must_announce"]:
        lines.append("  " + T("announce a box to go on (a BOX)"))
    return "\n".join(lines)


async def play_plain(table: OnlineTable, read: Callable[[], str] = input, lang: str | None = None) -> int:
    """The line mode at an online table: the table's state printed as it changes, typed commands sent
    (r, k 1 3, h 1, u 1, BOX, a BOX, s BOX, w), until the game ends and its dice are checked or the
    input ends. `lang`: --lang (else LANG)."""
    import threading
    from functools import partial
    from types import SimpleNamespace

    from ..keeper.entries import Refusal
    from .game import parse_action
    from .words import GAME_HELP, BoxNames, Words, help_text, language

    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()

    def reader() -> None:  # input() blocks: a thread of its own feeds the loop
        while True:
            try:
                line = read()
            except (EOFError, OSError):
                loop.call_soon_threadsafe(lines.put_nowait, None)
                return
            loop.call_soon_threadsafe(lines.put_nowait, line)

    last = ""

    def show() -> None:
        nonlocal last
        text = plain_status(table.seen, table.seats, table.verdict, table.box_name, table.words)
        if text != last:
            last = text
            print(text, flush=True)

    answered = asyncio.Event()  # the server answered our last action (a view, or a refusal)

    def changed() -> None:
        answered.set()
        show()

    def said(text: str) -> None:
        answered.set()
        print(text, flush=True)

    await table.start()
    # the boxes named in the language (--lang, LANG), and typed by those names or ids (the layout has no aliases)
    layout = table.seen["rules"]
    lang_words = Words(language(lang), layout)
    table.words = lang_words
    sheet = SimpleNamespace(
        rows=[SimpleNamespace(id=r["id"], aliases=(), is_upper=False, face=0) for r in layout["rows"]],
        columns=[SimpleNamespace(id=c["id"]) for c in layout["columns"]],
    )
    names = BoxNames(sheet, lang_words)
    table.box_name = lambda box: lang_words.box(box, len(layout["columns"]))

    def box_of(fits: list[str], text: str) -> str:
        return names.resolve(text, fits)

    mine = [s for s in table.seats if table.seen["players"][s]["kind"] == "human"]
    from ..web.i18n import ruleset_name

    game = ruleset_name(layout.get("preset") or layout.get("id"), layout["name"], lang_words.lang)
    where = {"game": game, "address": f"{table.origin}/t/{table.table}"}
    if mine:
        players = ", ".join(table.seen["players"][s]["name"] for s in mine)
        print(
            lang_words("{game} at {address}: you play {names}. Type help for commands.", **where, names=players),
            flush=True,
        )
    else:
        print(lang_words("{game} at {address}: you are watching. Type help for commands.", **where), flush=True)
    table.on_change, table.on_said = changed, said
    show()
    threading.Thread(target=reader, name="yambak-input", daemon=True).start()
    try:
        while not (table.seen["finished"] and table.verdict not in ("", "…")):
            try:
                line = await asyncio.wait_for(lines.get(), 0.5)
            except TimeoutError:
                continue
            if line is None or line.strip().lower() in ("quit", "exit", "q"):
                return 0  # the seat stays ours: --join again takes it back
            typed = line.strip().split()
            if not typed:
                print(last, flush=True)
                continue
            if typed[0].lower() in ("help", "?"):
                print(help_text(lang_words, GAME_HELP), flush=True)
                continue
            seat = next((s for s in table.seen["to_act"] if s in mine), None)
            turn = table.seen["players"][seat]["turn"] if seat is not None else None
            fits = [box for box, b in turn["boxes"].items() if b["legal"]] if turn and "dice" in turn else []
            try:
                action = parse_action(typed, seat, partial(box_of, fits)) if seat is not None else None
            except Refusal as exc:
                reason = lang_words.refusal(exc.code, exc.message, exc.extra)
                print(lang_words("Refused: {reason}", reason=reason), flush=True)
                continue
            if seat is None:
                print(lang_words("It is not your turn."), flush=True)
            elif action is None:
                print(lang_words("Not understood; type help."), flush=True)
            else:
                answered.clear()
                try:
                    table.act(action)
                except IllegalAction as exc:
                    print(lang_words("Refused: {reason}", reason=lang_words.refusal(exc.code, exc.message)), flush=True)
                    continue
                try:  # one action at a time: the next line is read against the table it made
                    await asyncio.wait_for(answered.wait(), 30)
                except TimeoutError:
                    print(lang_words("No answer from the table yet."), flush=True)
        return 0
    finally:
        await table.stop()
