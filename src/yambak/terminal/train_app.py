"""`yambak train` full screen (Textual): the position (sheet so far, dice, roll), the choices as a list,
and after an answer the verdict: what it loses, the best three, the odds, the rating and the streak.

Keys: digits 1-6 then Enter keep those dice, R rolls all of them again, the list (arrows and Enter, or the
mouse) takes any choice, N the next position, D today's, T light or dark, ? the keys, Q quit. The pool is
generated here in a thread, with a progress bar, before the first position. Imported only when the app
opens.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option

from ..rules import load_ruleset
from ..trainer import POOL_SEED, POOL_SIZE, PoolSpec, Puzzle, TrainerError, generate_pool
from .app import die_lines
from .trainer import DeviceRatings, TrainerSession, choice_label, colon, position_lines, verdict_lines
from .words import TERMINAL_STRINGS, Words

__all__ = ["TrainApp"]

TRAIN_KEYS = (
    "Digits 1–6, then Enter: keep those dice",
    "Backspace: take back the last die",
    "R: roll all the dice again",
    "Arrows and Enter, or the mouse: choose from the list",
    "N: the next position",
    "D: today's position",
    "T: light or dark",
    "?: this help",
    "Q: quit",
)
assert set(TRAIN_KEYS) <= set(TERMINAL_STRINGS)  # every catalog translates them


def dice_values(dice: list[int]) -> Text:
    """The dice with pips, each labelled with its value: the digit that keeps it."""
    drawn = [die_lines(d, False, d) for d in dice]
    return Text("\n".join(" ".join(die[line] for die in drawn) for line in range(5)), style="bold")


class TrainHelp(ModalScreen[None]):
    BINDINGS: ClassVar = [Binding("escape,question_mark,q,enter", "dismiss", show=False)]

    def __init__(self, words: Words) -> None:
        super().__init__()
        self.text = words("Keys") + "\n\n" + "\n".join(words(k) for k in TRAIN_KEYS)

    def compose(self) -> ComposeResult:
        yield Static(self.text, id="help")


class TrainApp(App[int]):
    """The trainer of one preset, full screen."""

    ENABLE_COMMAND_PALETTE = False  # Textual's palette speaks English only, and its "^p palette" takes 80 columns' room
    CSS = """
    Screen { layout: vertical; }
    #status { height: 1; padding: 0 1; background: $panel; }
    #loading { height: auto; padding: 1 1; }
    #body { height: 1fr; }
    #position, #pad, #verdict { height: auto; padding: 0 1; }
    #dice { height: 5; padding: 0 1; }
    #pad { color: $text-muted; }
    #choices { height: auto; max-height: 14; margin: 0 1; }
    #verdict { border-bottom: solid $accent; display: none; }
    TrainHelp { align: center middle; }
    #help { width: 64; height: auto; padding: 1 2; border: round $accent; background: $surface; }
    """
    BINDINGS: ClassVar = [
        Binding("enter", "submit", show=False, priority=True),
        *(Binding(str(d), f"pad({d})", show=False) for d in range(1, 7)),
        Binding("backspace", "unpad", show=False),
        Binding("t", "theme", show=False),
    ]
    FOOTER: ClassVar = [
        ("r", "reroll", "Roll all the dice again"),
        ("n", "next", "Next position"),
        ("d", "daily", "Today's position"),
        ("question_mark", "help", "Keys"),
        ("q", "quit", "Close"),
    ]

    def __init__(
        self,
        preset: str,
        lang: str = "en",
        dark: bool = True,
        positions: int = POOL_SIZE,
        seed: int | None = None,
        daily: bool = False,
        ratings: DeviceRatings | None = None,
    ) -> None:
        super().__init__()
        from ..web.i18n import ruleset_name

        rules = load_ruleset(preset)
        self.preset, self.positions, self.seed, self.start_daily = preset, positions, seed, daily
        self.words = Words(lang, preset)
        self.columns = len(rules.columns)
        self.ratings = ratings or DeviceRatings()
        self.session: TrainerSession | None = None
        self.pad: list[int] = []
        self.title = f"{self.words('Trainer')} · {ruleset_name(preset, rules.name, lang)}"
        for key, action, text in self.FOOTER:
            self.bind(key, action, description=self.words(text))
        self.theme = "textual-dark" if dark else "textual-light"

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="loading")
        yield ProgressBar(total=self.positions, show_eta=False, id="progress")
        with VerticalScroll(id="body"):
            yield Static(id="verdict")  # above the position, as on the web page: seen without scrolling
            yield Static(id="position")
            yield Static(id="dice")
            yield Static(id="pad")
            yield OptionList(id="choices")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#body").display = False
        self._loading(0)
        self._generate()

    # --- the pool ------------------------------------------------------------------------------------------

    @work(thread=True)
    def _generate(self) -> None:
        spec = PoolSpec(self.preset, size=self.positions, seed=POOL_SEED)
        pool = generate_pool(spec, progress=lambda n: self.call_from_thread(self._loading, n))
        self.call_from_thread(self._pool_ready, pool)

    def _loading(self, found: int) -> None:
        self.query_one("#loading", Static).update(
            self.words("Finding positions: {n} of {total}", n=found, total=self.positions)
        )
        self.query_one("#progress", ProgressBar).update(progress=found)

    def _pool_ready(self, pool: tuple[Puzzle, ...]) -> None:
        self.query_one("#loading").display = False
        self.query_one("#progress").display = False
        try:
            self.session = TrainerSession(self.preset, pool, self.ratings, self.seed)
        except TrainerError as exc:
            self.query_one("#loading", Static).update(exc.message)
            self.query_one("#loading").display = True
            return
        self.query_one("#body").display = True
        if self.start_daily:
            self.session.daily(datetime.now(UTC).date())
        else:
            self.session.next()
        self.redraw()

    # --- drawing -------------------------------------------------------------------------------------------

    def status(self) -> str:
        if self.session is None:
            return str(self.title)
        s = self.session.standing
        w = self.words
        from ..web.i18n import number

        return (
            f"{self.title} · {colon(w, w('Puzzle rating'), number(s.rating.ordinal, w.lang, 1))}"
            f" · {colon(w, w('Streak'), str(s.streak))}"
        )

    def redraw(self) -> None:
        session = self.session
        if session is None:
            return
        self.query_one("#status", Static).update(self.status())
        lines = position_lines(session, self.words, self.columns)
        self.query_one("#position", Static).update("\n".join(lines))
        self.query_one("#dice", Static).update(dice_values(sorted(session.puzzle.dice)))
        choices = self.query_one("#choices", OptionList)
        choices.clear_options()
        choices.add_options(
            [Option(choice_label(o, self.words, self.columns), id=str(i)) for i, o in enumerate(session.choices())]
        )
        choices.highlighted = 0
        choices.disabled = session.answered is not None
        self.pad = []
        self.query_one("#pad", Static).update("")
        self.query_one("#verdict", Static).update("")
        self.query_one("#verdict").display = False
        if session.answered is None:
            choices.focus()

    def show_pad(self) -> None:
        if self.session is None:
            return
        text = self.words("Keep {dice}", dice=" ".join(map(str, self.pad))) if self.pad else ""
        self.query_one("#pad", Static).update(text)

    # --- answering -----------------------------------------------------------------------------------------

    def answer(self, text: str) -> None:
        session = self.session
        if session is None or session.answered is not None:
            return
        try:
            choice = session.parse(text)
        except TrainerError:
            self.query_one("#pad", Static).update(self.words("That is not a choice in this position."))
            self.pad = []
            return
        answered = session.answer(choice)
        self.query_one("#status", Static).update(self.status())
        choices = self.query_one("#choices", OptionList)
        best, chosen = session.puzzle.best, answered.grade.chosen
        for i, o in enumerate(session.choices()):  # marks, not colours alone: the best ◆, the one chosen ←
            if o == best or o == chosen:
                label = choice_label(o, self.words, self.columns)
                choices.replace_option_prompt_at_index(
                    i, f"{'◆ ' if o == best else ''}{label}{' ←' if o == chosen else ''}"
                )
        choices.disabled = True
        verdict = self.query_one("#verdict", Static)
        verdict.update("\n".join(verdict_lines(answered, self.words, self.columns)))
        verdict.display = True
        self.query_one("#pad", Static).update("")
        self.query_one("#body").scroll_home(animate=False)
        self.pad = []

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.answer(f"#{int(event.option.id) + 1}")

    def action_submit(self) -> None:
        if self.session is None or self.session.answered is not None:
            return
        if self.pad:
            self.answer("k " + "".join(map(str, self.pad)))
            return
        highlighted = self.query_one("#choices", OptionList).highlighted
        if highlighted is not None:
            self.answer(f"#{highlighted + 1}")

    def action_pad(self, die: int) -> None:
        if self.session is not None and self.session.answered is None and len(self.pad) < len(self.session.puzzle.dice):
            self.pad.append(die)
            self.show_pad()

    def action_unpad(self) -> None:
        if self.pad:
            self.pad.pop()
            self.show_pad()

    def action_reroll(self) -> None:
        self.answer("r")

    def action_next(self) -> None:
        if self.session is not None:
            self.session.next()
            self.redraw()

    def action_daily(self) -> None:
        if self.session is not None:
            self.session.daily(datetime.now(UTC).date())
            self.redraw()

    def action_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"

    def action_help(self) -> None:
        self.push_screen(TrainHelp(self.words))
