"""The full-screen terminal app (Textual): play, keep and join online tables.

It draws one thing, a table view in the server's format (`terminal/view.py` for a game here,
the server's own messages for an online table), and sends engine actions to a `Face`: the game
played here (`PlayFace`), the sheet kept here (`KeepFace`), or an online table
(`terminal/online.py`). Nothing is scored here: every number and every reason comes from the
engine through the view. Imported only when the app opens, so `yambak --help` stays fast.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.coordinate import Coordinate
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, OptionList, Static
from textual.widgets.option_list import Option

from ..engine import Action, Announce, Hold, IllegalAction, Release, Roll, Score, Withdraw
from .words import TERMINAL_STRINGS, Words

if TYPE_CHECKING:
    from ..viewtypes import CoachAdvice, CoachOption, TurnView
    from .game import GameSession
    from .keeper import KeeperSession
    from .online import OnlineTable
    from .view import FaceView

__all__ = ["Face", "KeepFace", "OnlineFace", "PlayFace", "TableApp"]

PIPS = {1: (4,), 2: (0, 8), 3: (0, 4, 8), 4: (0, 2, 6, 8), 5: (0, 2, 4, 6, 8), 6: (0, 2, 3, 5, 6, 8)}
HISTORY_KEY = "L: the history, every move so far"
assert HISTORY_KEY in TERMINAL_STRINGS  # every catalog translates it
PLAY_KEYS = (*TERMINAL_STRINGS[:9], HISTORY_KEY, *TERMINAL_STRINGS[9:11])
KEEP_KEYS = (
    *TERMINAL_STRINGS[11:13],
    *TERMINAL_STRINGS[2:4],
    TERMINAL_STRINGS[5],
    *TERMINAL_STRINGS[13:15],
    TERMINAL_STRINGS[8],
    HISTORY_KEY,
    *TERMINAL_STRINGS[9:11],
)
# How a sheet cell shows its state: a mark after the number and a style, two signs apart from colour, so
# that NO_COLOR and monochrome terminals tell a value written from one offered.
CELL_LOOKS = {
    "written": (" ", "bold"),  # on the sheet for good (`8(4)`: a minimax row, the value written in brackets)
    "zeroed": (" ", "dim strike"),  # written, but the rules made it count 0: `0(25)`
    "struck": (" ", "dim strike"),  # struck out for 0: `×`
    "preview": ("·", "italic"),  # what Enter would write now
    "preview0": ("·", "italic dim"),  # Enter would write a 0
    "best": ("◆", "bold italic reverse"),  # the coach's best box (hints on)
    "strike": ("·", "bold italic"),  # strike mode: Enter strikes this box, `×·`
    "announce": ("⚑", "bold"),  # A announces this box
    "refused": ("–", "dim"),  # open, but not for these dice now: Enter says why
}
READ_ONLY = ("help", "?", "sheet", "standings")  # the keeper's line commands that show many lines, change nothing
BOT_PAUSE = 0.35  # seconds between a bot's actions: long enough to follow, short enough not to wait
WARM_UP_DELAY = 0.2  # seconds after the first screen before the bots load (the first paint reaches the terminal)


def _unit(T: Words, measure: str) -> str:
    """The coach's figures' unit in the language: match points, category points, or points."""
    if measure == "match_points":
        return T("match points")
    return T("category points") if measure == "category_points" else T("points")


def die_lines(value: int | None, held: bool, key: int) -> list[str]:
    """A die with pips, 7 wide and 5 tall; held dice have a heavy border (seen without colour too)."""
    tl, tr, bl, br, h, v = "┏┓┗┛━┃" if held else "╭╮╰╯─│"
    spots = PIPS.get(value or 0, ())
    inner = []
    for row in range(3):
        cells = ["●" if row * 3 + col in spots else " " for col in range(3)]
        inner.append(f"{v}{cells[0]} {cells[1]} {cells[2]}{v}")
    return [f"{tl}{h * 5}{tr}", *inner, f"{bl}{h * 2}{key}{h * 2}{br}"]


def cell_text(text: str, look: str) -> Text:
    """A sheet cell: `text` right-aligned, with the mark and style of its state (`CELL_LOOKS`)."""
    mark, style = CELL_LOOKS[look]
    return Text(text + mark, style=style, justify="right")


def same_cell(shown: object, cell: object) -> bool:
    """Whether a drawn cell already shows `cell`: its text AND its style (Rich's `Text ==` ignores style)."""
    if isinstance(shown, Text) and isinstance(cell, Text):
        return (shown.plain, str(shown.style), shown.spans, shown.justify) == (
            cell.plain,
            str(cell.style),
            cell.spans,
            cell.justify,
        )
    return shown == cell


def dice_text(dice: Sequence[int | None], held: set[int]) -> Text:
    rows = [die_lines(d, i in held, i + 1) for i, d in enumerate(dice)]
    out = Text()
    for line in range(5):
        for i, die in enumerate(rows):
            out.append(die[line] + " ", style="bold reverse" if i in held else "bold")
        out.append("\n")
    return out


# --- the faces: what the app acts on ------------------------------------------------------------


SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")  # a points-by-roll entry's roll, beside its score


class Face:
    """What the app draws and acts on. `view()` is a table view in the server's format; `mine` the
    seats this terminal plays; `act` sends an engine action (a refusal comes back through `said`)."""

    keeper = False
    mine: list[int] = []

    def __init__(self) -> None:
        self.said: Callable[[str], None] = lambda _text: None  # set by the app: a line to show
        self.changed: Callable[[], None] = lambda: None  # set by the app: the view changed

    def view(self) -> FaceView:
        raise NotImplementedError

    def act(self, action: Action) -> None:
        raise NotImplementedError

    def tick(self) -> bool:
        """Time passes (a bot may move); True when the view changed."""
        return False

    def advice(self) -> CoachAdvice | None:
        """The coach on the position of the seat to act here (called off the event loop)."""
        return None

    def review(self) -> dict[str, Any] | None:
        return None

    def history(self, words: Words) -> list[str]:  # noqa: ARG002 (a face without a history has nothing to word)
        """Every move so far, a line each, in the app's words (the history panel)."""
        return []

    async def start(self) -> None:
        """Online faces connect here; local ones have nothing to do."""

    def warm_up(self) -> None:
        """Load, off the event loop and after the first screen, what a later move needs (the bots)."""


def _window(widths: list[int], focus: int, room: int) -> tuple[int, int]:
    """The players line's window (first, last) around the seat in focus: as many seats as fit in `room`
    columns, room kept for the counts of the seats cut off on either side ("‹3 " and "5›")."""
    n = len(widths)
    focus = min(max(focus, 0), n - 1)
    lo = hi = focus
    used = widths[focus]
    grew = True
    while grew:
        grew = False
        for seat in (hi + 1, lo - 1):
            if not 0 <= seat < n or lo <= seat <= hi:
                continue
            first, last = min(lo, seat), max(hi, seat)
            counts = (len(f"‹{first} ") if first > 0 else 0) + (len(f"{n - 1 - last}›") if last < n - 1 else 0)
            if used + widths[seat] + counts <= room:
                used += widths[seat]
                lo, hi, grew = first, last, True
    return lo, hi


class PlayFace(Face):
    """A game played in this terminal against bots or hot-seat (`GameSession`)."""

    def __init__(self, session: GameSession, hints: bool = True) -> None:
        super().__init__()
        self.session = session
        self.hints = hints
        self.mine = [p for p in range(len(session.state.players)) if p not in session.bots]

    def warm_up(self) -> None:
        if self.session.bots:
            import yambak.bots.policies  # noqa: F401  (numpy and the policies: the bots' first move waits less)

    def view(self) -> FaceView:
        from .view import local_view

        return local_view(self.session.state, self.session.bots, self.hints)

    def act(self, action: Action) -> None:
        self.session.act(action)
        self.changed()

    def tick(self) -> bool:
        event = self.session.bot_step()
        if event is not None and event.type == "scored":  # a bot's entry, said as a player would say it
            name = self.session.state.players[event.player]
            from .view import by_roll

            early = by_roll(self.view(), event.player, event.box or "")
            self.said(f"{name}: {self.session.box(event.box or '')}, {event.written}{early}")
        return event is not None

    def history(self, words: Words) -> list[str]:
        from .words import history_lines

        return history_lines(self.session.state, words)

    def advice(self) -> CoachAdvice | None:
        from ..coach import CoachError, advise

        try:
            advice = advise(self.session.state).to_dict()
        except CoachError:
            return None
        from .wire import is_coach_advice

        return advice if is_coach_advice(advice) else None  # the protocol's shape, as a table's coach sends it

    def review(self) -> dict[str, Any] | None:
        from ..coach import review
        from ..engine import state_to_record

        state = self.session.state
        return review(state_to_record(state)).to_dict(len(state.players))


class KeepFace(Face):
    """A sheet kept for real dice (`KeeperSession`): dice typed on the pad, every line-mode command."""

    keeper = True

    def __init__(self, session: KeeperSession) -> None:
        super().__init__()
        self.session = session
        self.mine = list(range(len(session.state.players)))

    def view(self) -> FaceView:
        from .view import local_view

        return local_view(self.session.state, hints=False)

    def history(self, words: Words) -> list[str]:
        from .words import history_lines

        return history_lines(self.session.state, words)

    def line(self, text: str) -> None:
        """One line as the line mode takes it (dice, a box, announce, undo, fix...)."""
        out = self.session.handle(text)
        if out:
            self.said(out.strip())
        self.changed()

    def act(self, action: Action) -> None:
        if isinstance(action, Score):
            self.line(f"{'strike ' if action.strike else ''}{action.box}")
        elif isinstance(action, Announce):
            self.line(f"announce {action.box}")
        elif isinstance(action, Withdraw):
            self.line("withdraw")


class OnlineFace(Face):
    """A seat at an online table (`terminal/online.py`): the server's views, actions over its socket."""

    def __init__(self, table: OnlineTable) -> None:
        super().__init__()
        self.table = table
        table.on_change = self._changed
        table.on_said = lambda text: self.said(text)
        self.mine = []

    def _changed(self) -> None:
        players = self.table.view["players"] if self.table.view else []
        self.mine = [s for s in self.table.seats if s < len(players) and players[s]["kind"] == "human"]
        self.changed()

    @property
    def verdict(self) -> str:
        return str(self.table.verdict if self.table.verdict != "…" else "")

    def view(self) -> FaceView:
        return self.table.seen.copy()

    def act(self, action: Action) -> None:
        self.table.act(action)

    def advice(self) -> CoachAdvice | None:
        seats = [s for s in self.table.view["to_act"] if s in self.mine] if self.table.view else []
        return self.table.advise_from_thread(seats[0]) if seats else None

    def review(self) -> dict[str, Any] | None:
        return self.table.review()

    def history(self, words: Words) -> list[str]:  # noqa: ARG002 (the table worded each line as it came)
        return list(self.table.news)  # every box written since this terminal sat down, as it was told

    async def start(self) -> None:
        await self.table.start()


# --- the screens ----------------------------------------------------------------------------------


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar = [Binding("escape,question_mark,q,enter", "dismiss", show=False)]

    def __init__(self, words: Words, keeper: bool) -> None:
        super().__init__()
        keys = KEEP_KEYS if keeper else PLAY_KEYS
        self.text = words("Keys") + "\n\n" + "\n".join(words(k) for k in keys)

    def compose(self) -> ComposeResult:
        yield Static(self.text, id="help")


class HistoryScreen(ModalScreen[None]):
    """The history panel: every move so far, scrolled to the newest, all of it reachable by the arrows and
    page keys at any size; it follows the game while open (a bot's move appears as it is made)."""

    BINDINGS: ClassVar = [Binding("escape,l,q,enter", "dismiss", show=False)]

    def __init__(self, title: str, lines: list[str], at_end: bool = True) -> None:
        super().__init__()
        self.heading, self.lines, self.at_end = title, lines, at_end  # at_end: the newest in view, else the top

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="history"):
            yield Static(Text(self._text()), id="history-text")  # Text: names are never read as markup

    def _text(self) -> str:
        return "\n".join([self.heading, "", *self.lines])

    def on_mount(self) -> None:
        panel = self.query_one("#history", VerticalScroll)
        panel.focus()
        if self.at_end:
            self.call_after_refresh(panel.scroll_end, animate=False)

    def show(self, lines: list[str]) -> None:
        if lines == self.lines:
            return
        self.lines = lines
        for static in self.query("#history-text").results(Static):
            static.update(Text(self._text()))
            self.call_after_refresh(self.query_one("#history", VerticalScroll).scroll_end, animate=False)


class ResultsScreen(ModalScreen[None]):
    """The end of the game: the winner, every total, and the coach's review."""

    BINDINGS: ClassVar = [Binding("escape,enter", "dismiss", show=False), Binding("q", "app.quit", show=False)]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="results"):
            yield Static(Text(self.text), id="results-text")  # Text: names are never read as markup

    def show(self, text: str) -> None:
        self.text = text  # what the screen composes with, if it is not composed yet (or dismissed)
        for static in self.query("#results-text").results(Static):
            static.update(Text(text))


class TableApp(App[int]):
    """One table, full screen: dice, sheet, players, hints, results."""

    ENABLE_COMMAND_PALETTE = False  # Textual's palette speaks English only, and its "^p palette" takes 80 columns' room
    CSS = """
    Screen { layout: vertical; }
    #status { height: 1; padding: 0 1; background: $panel; }
    #players { height: 1; padding: 0 1; }
    #tray { height: 5; }
    #dice { width: auto; padding: 0 1; }
    #roll-info { width: 1fr; padding: 1 1; }
    #middle { height: 1fr; }
    #sheet { width: 1fr; }
    #hints { width: 32; display: none; border-left: solid $accent; }
    #hints.on { display: block; }
    #said { height: 1; padding: 0 1; color: $text-muted; }
    #command { display: none; }
    #command.on { display: block; }
    HelpScreen, ResultsScreen, HistoryScreen { align: center middle; }
    #history { width: 90%; max-width: 100; height: 90%; padding: 0 2; border: round $accent; background: $surface; }
    #help { width: 60; height: auto; padding: 1 2; border: round $accent; background: $surface; }
    #results { width: 72; max-height: 90%; height: auto; padding: 1 2; border: round $accent; background: $surface; }
    """
    BINDINGS: ClassVar = [  # the footer's keys are bound in __init__, in the app's language
        Binding("a", "announce", show=False),
        Binding("s", "strike_mode", show=False),
        Binding("w", "withdraw", show=False),
        Binding("p", "next_player", show=False),
        Binding("t", "theme", show=False),
        Binding("colon", "command", show=False),
    ]
    FOOTER: ClassVar = [
        ("r", "roll", "Roll"),
        ("h", "hints", "Hints"),
        ("u", "undo", "Undo"),
        ("l", "history", "History"),
        ("question_mark", "help", "Keys"),
        ("q", "quit", "Close"),
    ]

    def __init__(self, face: Face, lang: str = "en", dark: bool = True, bot_pause: float = BOT_PAUSE) -> None:
        super().__init__()
        self.face = face
        face.said = self.say
        face.changed = self.redraw
        self.current_view: FaceView = face.view()
        rules = self.current_view["rules"]
        self.words = Words(lang, rules)  # its rows named by the layout's own labels too
        if isinstance(face, OnlineFace):  # the server's news of a box written, in the app's words
            face.table.box_name = self._box
            face.table.words = self.words  # its own lines too (connection, fair dice)
        from ..web.i18n import ruleset_name

        self.title = ruleset_name(rules["preset"] or rules["id"], rules["name"], lang)
        for key, action, text in self.FOOTER:
            self.bind(key, action, description=self.words(text))
        self.theme = "textual-dark" if dark else "textual-light"
        self.bot_pause = bot_pause
        self.strike = False
        self.shown: int | None = None  # the player whose sheet is shown (None: the one to act)
        self.pad: list[int] = []  # keeper: the dice typed so far
        self.hints_on = False
        self.hint_data: CoachAdvice | None = None
        self.hint_key: tuple[object, ...] | None = None
        self.results: ResultsScreen | None = None
        self.history: HistoryScreen | None = None  # the history panel, while it is open
        self.review_text = ""
        self.cells: dict[tuple[int, int], tuple[str, Action | str | None]] = {}  # sheet cell -> (box, action or reason)
        self.filled: dict[tuple[int, int], str] = {}  # sheet cell -> its box, written already
        self.layout_key: tuple[object, ...] = ()
        self.cursor_key: tuple[object, ...] = ()  # (seat, turns done, rolled): the turn the cursor was placed for
        self.width = 0  # the terminal's, as of the last resize

    # --- layout ------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="players")
        with Horizontal(id="tray"):
            yield Static(id="dice")
            yield Static(id="roll-info")
        with Horizontal(id="middle"):
            sheet: DataTable[Text | str] = DataTable(id="sheet", cursor_type="cell", zebra_stripes=False)
            yield sheet
            with Vertical(id="hints"):
                yield OptionList(id="hint-list")
        yield Static(id="said")
        yield Input(id="command", placeholder="fix 3 66231 free.yam · history · help")
        yield Footer()

    async def on_mount(self) -> None:
        await self.face.start()
        self.width = self.size.width
        self.redraw()
        self.set_interval(self.bot_pause, self._tick)
        self.query_one("#sheet").focus()
        # the bots (numpy) load once the first screen is out: a thread importing them beside the first
        # paint holds the interpreter's lock and the sheet shows late (bench/play_start.py)
        self.call_after_refresh(self.set_timer, WARM_UP_DELAY, self._warm_up)

    @work(thread=True)
    def _warm_up(self) -> None:
        self.face.warm_up()

    def _tick(self) -> None:
        if self.face.tick():
            try:
                self.redraw()
            except NoMatches:  # a tick fired while the app closes, its widgets already gone: nothing to draw
                pass

    def say(self, text: str) -> None:
        last = [line for line in text.splitlines() if line.strip()]
        self.query_one("#said", Static).update(Text(last[-1].strip() if last else ""))  # never markup

    # --- what is shown -----------------------------------------------------------------------------

    def actor(self) -> int | None:
        """The seat this terminal acts for now."""
        v = self.current_view
        if not v or v["finished"]:
            return None
        ours = [s for s in v["to_act"] if s in self.face.mine]
        return ours[0] if ours else None

    def one_column(self) -> bool:
        return len(self.current_view["rules"]["columns"]) == 1 and len(self.current_view["players"]) <= 6

    def redraw(self) -> None:
        self.current_view = self.face.view()
        v = self.current_view
        me = self.actor()
        if self.shown is not None and self.shown >= len(v["players"]):
            self.shown = None
        self._status(me)
        self._players()
        self._dice(me)
        self._sheet(me)
        self._hints(me)
        if self.history is not None:
            self.history.show(self.face.history(self.words))
        if v["finished"]:
            self._finished()

    def _turn(self, seat: int | None) -> TurnView | None:
        """The seat's turn under way, where this terminal may see it (not another's on a duplicate table)."""
        if seat is None:
            return None
        turn = self.current_view["players"][seat]["turn"]
        return turn if turn is not None and "dice" in turn else None

    def _status(self, me: int | None) -> None:
        v, T = self.current_view, self.words
        if self.face.keeper:
            text = self._keeper_status()
        elif v["finished"]:
            text = T("The game is over.")
        elif me is None:
            cur = v["players"][v["current"]]
            if cur["kind"] == "bot":
                text = T("{name} (bot) is thinking…", name=cur["name"])
            elif not self.face.mine:
                text = T("You are watching this table.")
            elif cur["kind"] == "open":
                text = T("Waiting for a player to take the open seat.")
            else:
                text = T("It is {name}'s turn.", name=cur["name"])
        else:
            turn = self._turn(me)
            name = v["players"][me]["name"]
            if not turn or not turn["rolls"]:
                text = T("Your turn: roll the dice.")
            elif turn["announced"]:
                text = T("Announced: {box}. Roll again, or fill it.", box=self._box(turn["announced"]))
            elif turn["can_roll"]:
                text = T("Hold dice and roll again, or choose a box.")
            else:
                text = T("Choose a box.")
            if len(self.face.mine) > 1:
                text = f"{name}: {text}"
        if self.strike:
            text += "  " + T("Strike mode: Enter strikes the box for 0.")
        self.query_one("#status", Static).update(Text(f"{self.title} · {text}", style="bold"))

    @property
    def _kept(self) -> KeepFace | None:
        """The face as the sheet kept here (dice typed, line commands), or None for a game played."""
        return self.face if isinstance(self.face, KeepFace) else None

    def _keeper_status(self) -> str:
        """Whose entry is due, and what the undo key would take back, named first."""
        text = self._keeper_due()
        kept = self._kept
        label = kept.session.undo_label() if kept is not None else None
        return f"{text}  U: {label}" if label else text

    def _keeper_due(self) -> str:
        T, v = self.words, self.current_view
        due = self._rolloff()
        if due is not None:
            target, seat = due
            column = self.words.column(target) if target != "total" else T("Total")
            name, n = v["players"][seat]["name"], v["rules"]["rolloff_dice"]
            return T("Roll-off for {column}: {name} rolls {n} dice", column=column, name=name, n=n)
        if v["finished"]:
            return T("The game is over.")
        name = v["players"][v["current"]]["name"]
        turn = self._turn(v["current"])
        if not turn or not turn["rolls"]:
            return T("{name}: type the dice, then tap a box", name=name)
        return T("{name}: tap a box", name=name)

    def _rolloff(self) -> tuple[str, int] | None:
        kept = self._kept
        if kept is None:
            return None
        due = kept.session.rolloff()
        if due is None:
            return None
        target, seats, typed = due
        return target, next(s for s in seats if str(s) not in typed)

    def _box(self, box: str) -> str:
        return self.words.box(box, len(self.current_view["rules"]["columns"]))

    def _players(self) -> None:
        v, T = self.current_view, self.words
        winners = set(v.get("winners") or [])
        entries: list[tuple[str, str]] = []  # (text, style) by seat
        for p in v["players"]:
            acting = not v["finished"] and p["seat"] in v["to_act"]
            name = T("{name} (bot)", name=p["name"]) if p["kind"] == "bot" else p["name"]
            if p["kind"] == "open":
                name = T("Open seat")
            total = "–" if p["total"] is None else str(p["total"])
            # match points at the end; Balut's category points as they stand while the game runs (the engine's)
            running = p["match_points"]
            category = p.get("category_points")
            if running is None and category:
                running = category["points"]
            pts = " · " + self._points(running) if running is not None else ""
            mark = "★ " if p["seat"] in winners else ("▶ " if acting else "  ")
            style = "bold" if acting or p["seat"] in winners else ""
            if self._shown_seat() == p["seat"] and not self.one_column():
                style += " underline"
            entries.append((f"{mark}{name} {total}{pts}   ", style.strip()))
        lo, hi = _window([len(text) for text, _ in entries], self._shown_seat(), (self.width or self.size.width) - 2)
        out = Text()
        if lo > 0:  # the players cut off on either side: how many, so none is missing silently
            out.append(f"‹{lo} ", style="dim")
        for text, style in entries[lo : hi + 1]:
            out.append(text, style=style)
        if hi < len(entries) - 1:
            out.append(f"{len(entries) - 1 - hi}›", style="dim")
        self.query_one("#players", Static).update(out)

    def _points(self, points: float) -> str:
        return self.words.plural("{n} pt", "{n} pts", points)

    def _dice(self, me: int | None) -> None:
        v, T = self.current_view, self.words
        n = v["rules"]["rolled_dice"]
        if self.face.keeper:
            size = v["rules"]["rolloff_dice"] if self._rolloff() else n
            turn = self._turn(v["current"])
            rolls = turn["rolls"] if turn else 0
            if not self.pad and rolls and turn and turn.get("dice") and not self._rolloff():
                # the dice typed stay in the tray until their entry is filed (or the next roll is typed)
                self.query_one("#dice", Static).update(dice_text(turn["dice"], set()))
                self.query_one("#roll-info", Static).update(T("Roll {n}", n=rolls))
                return
            dice: list[int | None] = [*self.pad, *([None] * (size - len(self.pad)))]
            self.query_one("#dice", Static).update(dice_text(dice, set()))
            info = T("Roll {n}", n=rolls + 1) if rolls < v["rules"]["rolls_per_turn"] and not v["finished"] else ""
            self.query_one("#roll-info", Static).update(info)
            return
        seat = me if me is not None else v["current"]
        turn = self._turn(seat)
        if turn and turn.get("dice"):
            self.query_one("#dice", Static).update(dice_text(turn["dice"], set(turn["held"])))
            info = T("Roll: {n} left", n=turn["rolls_left"])
            if turn["held"]:
                info += "\n" + T("held") + ": " + " ".join(str(i + 1) for i in turn["held"])
        else:
            self.query_one("#dice", Static).update(dice_text([None] * n, set()))
            info = T("Roll the dice") + " (R)" if me is not None else ""
        self.query_one("#roll-info", Static).update(info)

    def _shown_seat(self) -> int:
        v = self.current_view
        if self.shown is not None:
            return self.shown
        me = self.actor()
        return me if me is not None else v["current"]

    def _sheet(self, me: int | None) -> None:
        v, T = self.current_view, self.words
        rules = v["rules"]
        table: DataTable[Text | str] = self.query_one("#sheet", DataTable)
        short = (self.width or self.size.width) < 100
        if self.one_column():
            column = rules["columns"][0]["id"]
            targets = [(p["seat"], column) for p in v["players"]]
            heads = [p["name"][:10] for p in v["players"]]
        else:
            seat = self._shown_seat()
            targets = [(seat, c["id"]) for c in rules["columns"]]
            heads = [self.words.column(c["id"], short=True) for c in rules["columns"]]
        rows: list[tuple[str, str | None]] = []  # (label, row id or a sum's key)
        for r in rules["rows"]:
            if r["upper"]:
                rows.append((self.words.row(r["id"], short), r["id"]))
        if any(r["upper"] for r in rules["rows"]):
            rows.append((T("Upper section"), "=upper"))
            if rules["upper_bonus"]:
                rows.append((T("Bonus"), "=bonus"))
        rows += [(self.words.row(r["id"], short), r["id"]) for r in rules["rows"] if not r["upper"]]
        if rules["minimax"]:
            rows.append(("(Max − Min) × Ones", "=minimax"))
        rows.append((T("Total"), "=total"))
        key = (tuple(heads), tuple(rows), tuple(targets))
        best = self._best_box()
        self.cells = {}
        self.filled = {}
        grid = [
            [Text(label, style="bold" if row and row.startswith("=") else "")]
            + [self._cell(ri, ci + 1, seat, column, row, me, best) for ci, (seat, column) in enumerate(targets)]
            for ri, (label, row) in enumerate(rows)
        ]
        if key != self.layout_key:
            cursor = table.cursor_coordinate
            table.clear(columns=True)
            table.add_column("", key="label")
            for i, head in enumerate(heads):
                table.add_column(head, key=f"c{i}", width=max(5, len(head)))
            table.fixed_columns = 1
            table.add_rows(grid)
            self.layout_key = key
            if cursor.row < len(rows) and cursor.column <= len(targets):
                table.move_cursor(row=cursor.row, column=max(1, cursor.column))
            else:
                table.move_cursor(row=0, column=1)
        else:  # only the cells that changed: a redraw after every move stays cheap
            for ri, line in enumerate(grid):
                for ci, cell in enumerate(line):
                    at = Coordinate(ri, ci)
                    if not same_cell(table.get_cell_at(at), cell):
                        table.update_cell_at(at, cell)
        self._place_cursor(table, me, rows, targets)

    def _place_cursor(
        self,
        table: DataTable[Text | str],
        me: int | None,
        rows: list[tuple[str, str | None]],
        targets: list[tuple[int, str]],
    ) -> None:
        """The cursor where this terminal plays, once per turn and once after its first roll: on its
        first open box when the turn comes (a --join into seat 2, a rejoin, the turn after a box was
        written), then on its first legal box after the roll, unless the player put it on one already.
        The keeper's cursor follows the player whose entry is due."""
        v = self.current_view
        if self.face.keeper:
            me = None if v["finished"] else v["current"]
        if me is None:
            return
        turn = self._turn(me)
        rolled = bool(turn and turn.get("rolls"))
        key = (me, v["players"][me]["turns_done"], rolled)
        if key == self.cursor_key:
            return
        self.cursor_key = key
        at = table.cursor_coordinate
        if rolled:
            legal = [where for where, (_, action) in self.cells.items() if isinstance(action, (Score, Announce))]
            if legal and (at.row, at.column) not in legal:
                row, column = min(legal, key=lambda where: (where[1], where[0]))  # the first column's first
                table.move_cursor(row=row, column=column)
            return
        mine = [
            (ri, ci + 1)
            for ri, (_, row) in enumerate(rows)
            if row and not row.startswith("=")
            for ci, (seat, _) in enumerate(targets)
            if seat == me and (ri, ci + 1) not in self.filled
        ]
        if mine and (at.row, at.column) not in mine:
            first = min(mine, key=lambda where: (where[1], where[0]))  # the first column's first open box
            table.move_cursor(row=first[0], column=first[1])

    def _cell(
        self, ri: int, ci: int, seat: int, column: str, row: str | None, me: int | None, best: str | None
    ) -> Text:
        v = self.current_view
        col = v["players"][seat]["columns"][column]
        if row is None or row.startswith("="):
            value = col.get(row[1:]) if row else None
            return Text("" if value is None else f"{value} ", style="bold", justify="right")  # aligned with marks
        box = f"{column}.{row}"
        cell = col["boxes"].get(row, {})
        if cell.get("hidden"):
            return Text("?", justify="right")
        if cell.get("score") is not None:
            self.filled[(ri, ci)] = box
            if cell.get("why") == "struck":
                return cell_text("×", "struck")
            if cell.get("written") is not None:  # the value written beside what it counts
                look = "zeroed" if cell.get("why") == "zeroed" else "written"
                return cell_text(f"{cell['score']}({cell['written']})", look)
            if cell.get("roll") is not None:  # points by roll: the early roll it paid more for, as a superscript
                return cell_text(f"{cell['score']}{str(cell['roll']).translate(SUPERSCRIPT)}", "written")
            return cell_text(str(cell["score"]), "written")
        turn = self._turn(me) if seat == me else None
        if turn is None or not turn["boxes"]:
            if self.face.keeper and seat == v["current"] and not v["finished"]:
                self.cells[(ri, ci)] = (box, None)
            return Text("")
        if box in turn["announce"] and not self.strike:
            self.cells[(ri, ci)] = (box, Announce(seat, box))
            return cell_text("", "announce")
        o = turn["boxes"].get(box)
        if o and o["legal"]:
            if self.strike and o.get("strike"):
                self.cells[(ri, ci)] = (box, Score(seat, box, strike=True))
                return cell_text("×", "strike")
            self.cells[(ri, ci)] = (box, Score(seat, box))
            look = "best" if box == best else "preview0" if o["written"] == 0 else "preview"
            return cell_text(str(o["written"]), look)
        if o:
            self.cells[(ri, ci)] = (box, o.get("code"))
            return cell_text("", "refused")
        return Text("")

    def _best_box(self) -> str | None:
        best = self.hint_data["best"] if self.hints_on and self.hint_data else None
        return best.get("box") if best is not None and best["kind"] == "box" else None

    # --- hints ------------------------------------------------------------------------------------

    def _hints_allowed(self) -> bool:
        v = self.current_view
        return bool(v.get("settings", {}).get("hints")) and not self.face.keeper

    def _hints(self, me: int | None) -> None:
        panel = self.query_one("#hints")
        panel.set_class(self.hints_on and self._hints_allowed(), "on")
        if not (self.hints_on and self._hints_allowed()):
            return
        turn = self._turn(me)
        olist = self.query_one("#hint-list", OptionList)
        if me is None or not turn or not turn["rolls"]:
            self.hint_data, self.hint_key = None, None
            olist.set_options([Option(self.words("Roll the dice: the coach answers after each roll."), disabled=True)])
            return
        key = (me, self.current_view["v"], tuple(turn["dice"]), tuple(turn["held"]), turn["announced"])
        if key != self.hint_key:
            self.hint_key, self.hint_data = key, None
            olist.set_options([Option(self.words("Thinking…"), disabled=True)])
            self._ask_coach(key)

    @work(thread=True, exclusive=True)
    def _ask_coach(self, key: tuple[object, ...]) -> None:
        try:
            data = self.face.advice()
        except Exception:  # the coach failing must not end a game
            data = None
        self.call_from_thread(self._show_advice, key, data)

    def _show_advice(self, key: tuple[object, ...], data: CoachAdvice | None) -> None:
        if key != self.hint_key:
            return  # the position moved on meanwhile
        self.hint_data = data
        T = self.words
        olist = self.query_one("#hint-list", OptionList)
        if not data:
            olist.set_options([Option(T("No advice for this position."), disabled=True)])
            return
        from ..web.i18n import number

        unit = _unit(T, data["measure"])

        def less(o: CoachOption) -> str:
            return "  " + (T("best") if o["loss"] < 1e-9 else f"−{number(o['loss'], T.lang, 1)}")  # "−2,4" in nl

        opts: list[Option] = []
        if data["keeps"]:
            opts.append(Option(Text(T("Best keeps"), style="bold"), disabled=True))
            for o in data["keeps"][:3]:
                keep = o.get("keep") or []
                label = T("Keep {dice}", dice=" ".join(map(str, keep))) if keep else T("Reroll all")
                opts.append(Option(label + less(o), id=f"keep:{','.join(map(str, keep))}"))
        if data["announces"]:
            for o in data["announces"][:3]:
                box = o.get("box") or ""
                row = self.words.row(box.rpartition(".")[2])  # the column is the announce column
                opts.append(Option(T("Announce {box}", box=row) + less(o), id=f"announce:{box}"))
        if data["boxes"]:
            opts.append(Option(Text(T("Boxes, best first"), style="bold"), disabled=True))
            for o in data["boxes"][:5]:
                box = o.get("box") or ""
                what = T("strike {box}", box=self._box(box)) if o.get("strike") else None
                what = what or T("{box} for {points}", box=self._box(box), points=o.get("points"))
                what += f" · {T('wins outright')}" if o.get("wins") else ""  # docs/rules.md §7
                opts.append(Option(what + less(o), id=f"box:{box}:{int(bool(o.get('strike')))}"))
        best = data["best"]
        if best is not None and best.get("win") is not None:  # win, tie and loss apart, as the page's coach says them
            opts.append(Option(T("Chances: win {win}, tie {tie}, lose {lose}", **self._chances(best)), disabled=True))
        if bw := data.get("best_win"):
            what = self._option(bw)
            line = T(
                "Least likely to lose: {choice} (win {win}, tie {tie}, lose {lose})", choice=what, **self._chances(bw)
            )
            opts.append(Option(line, disabled=True))
        note = T("Exact: the expected final score with perfect play from here.") if data["exact"] else None
        note = note or T("Estimate: the strong bot's evaluation of each choice.")
        opts.append(Option(Text(f"{note} (−: {unit})", style="dim"), disabled=True))
        win_points = self.current_view["rules"].get("win_points")
        if data["exact"] and win_points is not None:  # the solver's values: a win at once counts as win_points
            said = T("These values count an outright win as {n} points; the sheet does not.", n=win_points)
            opts.append(Option(Text(said, style="dim"), disabled=True))
        olist.set_options(opts)
        self._sheet(self.actor())

    def on_option_list_option_selected(self, message: OptionList.OptionSelected) -> None:
        """A hint chosen: the move it names, as if typed."""
        me, option = self.actor(), message.option.id or ""
        turn = self._turn(me)
        if me is None or not turn:
            return
        kind, _, rest = option.partition(":")
        if kind == "keep":
            keep = [int(x) for x in rest.split(",") if x]
            self._send(Roll(me, held=positions(turn["dice"], keep)))
        elif kind == "announce":
            self._send(Announce(me, rest))
        elif kind == "box":
            box, _, strike = rest.rpartition(":")
            self._send(Score(me, box, strike=strike == "1"))

    # --- the end -----------------------------------------------------------------------------------

    def _finished(self) -> None:
        if self.face.keeper and self._rolloff() is not None:
            return  # the roll-off is typed first
        text = self._results_text()
        if self.results is None:
            self.results = ResultsScreen(text)
            self.push_screen(self.results)
            if not self.face.keeper:
                self._fetch_review()
        else:
            self.results.show(text)

    def _results_text(self) -> str:
        v, T = self.current_view, self.words
        names = [v["players"][w]["name"] for w in v["winners"]]
        lines = [T("Game over"), ""]
        if end := v.get("end"):  # the headline and what decided it (a win at once too), as the keeper's page words it
            lines += [self.words.sentence(said, len(v["rules"]["columns"])) for said in end]
        elif len(names) > 1:
            lines.append(T("{names} share the win", names=", ".join(names)))
        else:
            lines.append(T("{name} wins with {total}", name=names[0], total=v["players"][v["winners"][0]]["total"]))
        lines.append("")
        for p in v["players"]:
            pts = "   " + self._points(p["match_points"]) if p["match_points"] is not None else ""
            lines.append(f"  {p['name']:<24} {p['total']:>5}{pts}")
        for target, rounds in (v.get("rolloffs") or {}).items():
            column = self.words.column(target) if target != "total" else T("Total")
            shown = "; ".join(
                ", ".join(f"{v['players'][int(s)]['name']} {r['pips']}" for s, r in round_.items()) for round_ in rounds
            )
            lines.append(T("Roll-off for {column}: {rounds}", column=column, rounds=shown))
        if self.review_text:
            lines += ["", self.review_text]
        extra = getattr(self.face, "verdict", "")
        if extra:
            lines += ["", extra]
        return "\n".join(lines)

    @work(thread=True, exclusive=True, group="review")
    def _fetch_review(self) -> None:
        try:
            data = self.face.review()
        except Exception:
            data = None
        self.call_from_thread(self._show_review, data)

    def _show_review(self, data: dict[str, Any] | None) -> None:
        from ..web.i18n import number

        T = self.words
        if not data:
            self.review_text = T("The coach cannot review this game.")
        else:
            unit = _unit(T, data["measure"])
            lines = [T("Review the game")]
            names = [p["name"] for p in self.current_view["players"]]
            for p in data["players"]:
                if p["seat"] not in self.face.mine:
                    continue
                n = len(p["decisions"])
                if p["accuracy"] is None:
                    lines.append(f"{names[p['seat']]}: {T('No decision with a choice.')}")
                    continue
                if data.get("at_stake") is not None:  # match points: no sum, the costliest of what is at stake
                    average = T.plural(
                        "{unit} given away per decision on average ({n} decision). 0 is perfect play.",
                        "{unit} given away per decision on average ({n} decisions). 0 is perfect play.",
                        n,
                        unit=f"{number(p['accuracy'], T.lang, 2)} {unit}",
                    )
                    average += " " + T(
                        "The costliest decision gave away {lost} of the {stake} match points at stake.",
                        lost=number(p.get("costliest", 0.0), T.lang, 1),
                        stake=number(data["at_stake"], T.lang, 0),
                    )
                else:
                    average = T(
                        "{unit} lost per decision on average ({n} decisions, {lost} in all). 0 is perfect play.",
                        unit=f"{number(p['accuracy'], T.lang, 2)} {unit}",
                        n=n,
                        lost=number(p["lost"], T.lang, 1),
                    )
                lines.append(f"{names[p['seat']]}: {average}")
                if not p["mistakes"]:
                    lines.append("  " + T("No mistakes: every decision was the best."))
                for m in p["mistakes"]:
                    missed = m["best"].get("wins") and not m["chosen"].get("wins")  # its loss counts win_points
                    lost = T("missed an outright win") if missed else f"−{number(m['loss'], T.lang, 1)}"
                    lines.append(
                        f"  {T('Turn {n}', n=m['turn'])}, {T('After roll {roll}', roll=m['roll'])}: "
                        f"{T('Played')} {self._option(m['chosen'])}, {T('best choice')} {self._option(m['best'])} "
                        f"({lost})"
                    )
            if data.get("win_points") is not None:
                n = data["win_points"]
                lines.append(T("These values count an outright win as {n} points; the sheet does not.", n=n))
            self.review_text = "\n".join(lines)
        if self.results is not None:
            self.results.show(self._results_text())

    def _chances(self, o: CoachOption) -> dict[str, str]:
        """An option's three chances in the language's percent (one decimal under 10 %, as the page)."""
        from ..web.i18n import percent

        def shown(p: float) -> str:
            return percent(p, self.words.lang, 1 if 0 < p < 0.1 else 0)

        win, tie, lose = o.get("win") or 0.0, o.get("tie") or 0.0, o.get("lose")
        return {
            "win": shown(win),
            "tie": shown(tie),
            "lose": shown(lose if lose is not None else max(0.0, 1 - win - tie)),
        }

    def _option(self, o: CoachOption) -> str:
        T = self.words
        keep, box = o.get("keep") or [], o.get("box") or ""
        if o["kind"] == "keep":
            return T("keep {dice}", dice=" ".join(map(str, keep))) if keep else T("reroll all")
        if o["kind"] == "announce":
            return T("announce {box}", box=self.words.row(box.rpartition(".")[2]))  # the announce column's
        if o.get("strike"):
            return T("strike {box}", box=self._box(box))
        text = T("{box} for {points}", box=self._box(box), points=o.get("points"))
        return f"{text} ({T('wins outright')})" if o.get("wins") else text  # docs/rules.md §7: a win, not points

    # --- input -------------------------------------------------------------------------------------

    PLAY_ONLY: ClassVar = {"roll", "hints", "withdraw"}
    KEEP_ONLY: ClassVar = {"undo", "command"}

    def check_action(self, action: str, _parameters: tuple[object, ...]) -> bool | None:
        """The keys of this face only (the footer shows no Roll where the dice are typed)."""
        if action in (self.KEEP_ONLY if not self.face.keeper else self.PLAY_ONLY):
            return False
        return True

    def _send(self, action: Action) -> None:
        try:
            self.face.act(action)
        except IllegalAction as exc:
            self.say(self._reason(exc.code) or exc.message)
            return
        self.strike = False
        self.redraw()

    def _reason(self, code: str | None) -> str:
        from ..web.i18n import ERROR_MESSAGES

        text = ERROR_MESSAGES.get(code or "")
        return self.words(text) if text else ""

    def on_key(self, event: events.Key) -> None:
        if isinstance(self.focused, Input):
            return
        if event.character and event.character in "123456":
            event.stop()
            if self.face.keeper:
                self._pad(int(event.character))
            else:
                self._toggle(int(event.character) - 1)
        elif event.key == "backspace" and self.face.keeper and self.pad:
            self.pad.pop()
            self.redraw()

    def _pad(self, value: int) -> None:
        v = self.current_view
        n = v["rules"]["rolloff_dice"] if self._rolloff() else v["rules"]["rolled_dice"]
        self.pad.append(value)
        if len(self.pad) == n:
            digits = "".join(map(str, self.pad))
            self.pad = []
            if (kept := self._kept) is not None:
                kept.line(digits)
        else:
            self.redraw()

    def _toggle(self, i: int) -> None:
        me = self.actor()
        turn = self._turn(me)
        if me is None or not turn or not turn["rolls"] or i >= len(turn["dice"]) or turn["rolls_left"] <= 0:
            return
        self._send(Release(me, (i,)) if i in turn["held"] else Hold(me, (i,)))

    def on_click(self, event: events.Click) -> None:
        """A click on a die holds or releases it (the dice are 8 columns apart)."""
        widget = event.widget
        if widget is None or widget.id != "dice" or self.face.keeper:
            return
        x = event.get_content_offset(widget)
        if x is not None and x.x % 8 < 7:
            self._toggle(x.x // 8)

    def action_roll(self) -> None:
        me = self.actor()
        if me is None or self.face.keeper:
            return
        turn = self._turn(me)
        self._send(Roll(me, held=tuple(turn["held"]) if turn and turn["rolls"] else None))

    def on_data_table_cell_selected(self, message: DataTable.CellSelected) -> None:
        self._choose(message.coordinate)

    def on_data_table_cell_highlighted(self, message: DataTable.CellHighlighted) -> None:
        found = self.cells.get((message.coordinate.row, message.coordinate.column))
        if found is not None and isinstance(found[1], str):
            self.say(f"{self._box(found[0])}: {self._reason(found[1])}")

    def _choose(self, at: Coordinate) -> None:
        found = self.cells.get((at.row, at.column))
        if found is None:
            self._why_not(at)
            return
        box, action = found
        if self.face.keeper:
            seat = self.current_view["current"]
            self._send(Score(seat, box, strike=self.strike))
        elif isinstance(action, (Score, Announce)):
            self._send(action)
        elif isinstance(action, str):
            self.say(f"{self._box(box)}: {self._reason(action)}")

    def _why_not(self, at: Coordinate) -> None:
        """Enter on a cell that takes nothing: the engine's reason, in words (a box written already, or
        not this terminal's turn)."""
        v = self.current_view
        box = self.filled.get((at.row, at.column))
        if box is not None:
            self.say(f"{self._box(box)}: {self._reason('illegal/box-closed')}")
        elif not v["finished"] and not self.face.keeper and self.actor() is None and self.face.mine:
            self.say(self._reason("illegal/not-your-turn"))

    def action_announce(self) -> None:
        at = self.query_one("#sheet", DataTable).cursor_coordinate
        found = self.cells.get((at.row, at.column))
        me = self.actor()
        if found is not None and me is not None:
            self._send(Announce(me, found[0]))

    def action_strike_mode(self) -> None:
        self.strike = not self.strike
        self.redraw()

    def action_withdraw(self) -> None:
        me = self.actor()
        if me is not None:
            self._send(Withdraw(me))

    def action_hints(self) -> None:
        self.hints_on = not self.hints_on
        self.redraw()

    def action_next_player(self) -> None:
        n = len(self.current_view["players"])
        self.shown = (self._shown_seat() + 1) % n
        self.redraw()

    def action_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    def action_help(self) -> None:
        self.push_screen(HelpScreen(self.words, self.face.keeper))

    def action_history(self) -> None:
        """The history panel: every move so far (the keeper's entries with their dice, a bot's moves)."""
        if self.history is not None:
            return

        def closed(_: None) -> None:
            self.history = None

        self.history = HistoryScreen(self.words("History"), self.face.history(self.words))
        self.push_screen(self.history, closed)

    def action_undo(self) -> None:
        if (kept := self._kept) is not None:
            self.pad = []
            kept.line("undo")

    def action_command(self) -> None:
        if not self.face.keeper:
            return
        box = self.query_one("#command", Input)
        box.add_class("on")
        box.focus()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        message.input.value = ""
        message.input.remove_class("on")
        self.query_one("#sheet").focus()
        typed = message.value.strip()
        if typed.lower() == "history":  # the panel, where every entry can be read
            self.action_history()
        elif typed.lower() in READ_ONLY:  # many lines that change nothing: a panel too, not the last line
            kept = self._kept
            if typed.lower() in ("help", "?"):  # wrapped to the panel (90 % wide, at most 100; its frame)
                from .words import KEEPER_HELP, help_text

                shown = help_text(self.words, KEEPER_HELP, min(self.size.width * 9 // 10, 100) - 9)
            elif kept is not None:
                shown = kept.session.handle(typed)
            else:
                return  # the command line is the kept sheet's (`action_command`)
            self.push_screen(HistoryScreen(f":{typed}", shown.splitlines(), at_end=False))
        elif typed and (kept := self._kept) is not None:
            kept.line(message.value)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width == self.width:  # the labels depend on the width alone (the first screen's
            return  # resizes to the size it was drawn at change nothing: no second and third drawing)
        self.width = event.size.width
        if self.query("#sheet"):
            self.layout_key = ()  # short or long labels
            self.redraw()


def positions(dice: list[int], keep: list[int]) -> tuple[int, ...]:
    """Where the kept values lie among the dice (the first of equal dice first)."""
    out: list[int] = []
    for value in keep:
        out.append(next(i for i, d in enumerate(dice) if d == value and i not in out))
    return tuple(sorted(out))
