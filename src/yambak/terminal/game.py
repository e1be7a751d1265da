"""A game in the terminal: people type, bots play their seats, the engine rolls.

Like the keeper, `GameSession.handle(line)` returns text, so the loop is thin and
the logic is tested without a terminal.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..engine import (
    Action,
    Announce,
    DiceSource,
    Event,
    GameState,
    Hold,
    IllegalAction,
    Release,
    Roll,
    Score,
    SecureDice,
    Withdraw,
    new_game,
)
from ..gameview import end_words
from ..keeper.boxes import box_names
from ..keeper.entries import Refusal
from ..rules import Ruleset
from ..text import render_sheets
from .words import GAME_HELP, BoxNames, Words, help_text, language


def parse_action(words: list[str], seat: int, box: Callable[[str], str] = str) -> Action | None:
    """A typed line's action for the seat (the commands of `GAME_HELP` but help and sheet), or None. `box`: the
    box id a typed name means (it raises the keeper's Refusal when it names none)."""
    cmd, args = words[0].lower(), words[1:]
    positions = tuple(int(a) - 1 for a in args if a.isdigit())
    if cmd == "r":
        return Roll(seat)
    if cmd == "k":
        return Roll(seat, held=positions)
    if cmd == "h":
        return Hold(seat, positions)
    if cmd == "u":
        return Release(seat, positions)
    if cmd == "a" and args:
        return Announce(seat, box(" ".join(args)))
    if cmd == "w" and not args:
        return Withdraw(seat)
    if cmd == "s" and args:
        return Score(seat, box(" ".join(args)), strike=True)
    return Score(seat, box(" ".join(words)))


class GameSession:
    def __init__(
        self,
        rules: Ruleset,
        players: list[str],
        bots: dict[int, str],
        dice: DiceSource | None = None,
        seed: int | None = None,
        lang: str | None = None,
    ) -> None:
        self.state: GameState = new_game(rules, players, dice=dice or SecureDice(), seed=seed)
        self.words = Words(language(lang), rules)  # --lang, else LANG: the rows named as the sheet names them
        self.names = BoxNames(rules, self.words)
        self.bots = bots  # seat -> policy name
        self.rng = random.Random(seed)

    def prompt(self) -> str:
        """What the line mode shows before each line typed on a terminal."""
        s = self.state
        T = self.words
        if s.finished:
            return T("game over") + "> "
        turn = s.turns[s.current]
        name = s.players[s.current]
        if not turn.rolls:
            return T("{name}, r to roll", name=name) + "> "
        can = s.can_roll()
        return (
            T("{name}, roll {n} or a box", name=name, n=len(turn.rolls) + 1)
            if can
            else T("{name}, choose a box", name=name)
        ) + "> "

    def view(self) -> str:
        s = self.state
        if s.finished:  # every sheet, then what decided the game, worded as the keeper's page words it
            ended = self.words.end_line(end_words(s) or [], len(s.rules.columns))
            return render_sheets(s, self.words.sheet_name) + "\n\n" + ended
        p = s.current
        turn = s.turns[p]
        T = self.words
        if not turn.rolls:
            return T("{name} to play: r to roll.", name=s.players[p])
        dice = "  ".join(f"[{d}]" if i in turn.held else f" {d} " for i, d in enumerate(turn.dice))
        left = s.rolls_allowed(p) - len(turn.rolls)  # the rolls saved from earlier turns count (Maxi Yatzy)
        lines = [T("{name}  roll {n}  ({left} left)", name=s.players[p], n=len(turn.rolls), left=left) + f"   {dice}"]
        if turn.announced is not None:
            lines.append("  " + T("announced: {box}", box=self.box(s.rules.box_id(turn.announced))))
        preview = sorted(s.preview().items(), key=lambda kv: -kv[1])
        if preview:
            shown = ", ".join(f"{self.box(b)} {v}" for b, v in preview[:8])
            lines.append(f"  {shown}" + (", ..." if len(preview) > 8 else ""))
        elif not s.can_roll():
            lines.append("  " + T("announce a box to go on (a BOX)"))
        return "\n".join(lines)

    def box(self, box: str) -> str:
        """A box as the sheet names it in the language ("Full house"; "Down · Sixes" on several columns)."""
        return self.words.box(box, len(self.state.rules.columns))

    def complete(self, text: str) -> list[str]:
        """Tab completion: the commands and every box name."""
        low = text.casefold()
        rules = self.state.rules
        labels = [self.words.row(r.id) for r in rules.rows] if len(rules.columns) == 1 else []
        words = ["help", "sheet", "quit", *box_names(rules), *labels]
        return sorted(w for w in set(words) if w.casefold().startswith(low))

    def act(self, action: Action) -> Event:
        """One action of a person at this terminal; raises IllegalAction and changes nothing when refused."""
        if self.state.finished or self.state.current in self.bots:
            raise IllegalAction("illegal/not-your-turn", "it is a bot's turn")
        self.state, event = self.state.apply(action)
        return event

    def bot_step(self) -> Event | None:
        """One action of the bot to act (None when a person is to act or the game is over)."""
        if self.state.finished or self.state.current not in self.bots:
            return None
        p = self.state.current
        from ..bots import choose_action  # the policies (and numpy) load when a bot first moves

        self.state, event = self.state.apply(choose_action(self.state, p, self.bots[p], self.rng))
        return event

    def run_bots(self) -> list[str]:
        """Let bots play until a person is to act (or the game ends)."""
        out = []
        while (event := self.bot_step()) is not None:
            if event.type == "scored":
                name = self.state.players[event.player]
                said = self.words(
                    "{name} (bot): {box}, {written}   dice {dice}",
                    name=name,
                    box=self.box(event.box or ""),
                    written=event.written,
                    dice=" ".join(map(str, event.dice)),  # as the dice line shows them, not a tuple
                )
                out.append(f"  {said}")
        return out

    def handle(self, line: str) -> str:
        words = line.strip().split()
        if not words:
            return self.view()
        cmd = words[0].lower()
        if cmd in ("help", "?"):
            return help_text(self.words, GAME_HELP)
        if cmd == "sheet":
            return render_sheets(self.state, self.words.sheet_name)
        if self.state.finished:
            return self.view()
        p = self.state.current
        fits = self.state.preview()
        try:
            action = parse_action(words, p, lambda text: self.names.resolve(text, fits))
        except Refusal as exc:
            return self.words("Refused: {reason}", reason=self.words.refusal(exc.code, exc.message, exc.extra))
        if action is None:
            return self.words("Not understood; type help.")
        try:
            event = self.act(action)
        except IllegalAction as exc:
            return self.words("Refused: {reason}", reason=self.words.refusal(exc.code, exc.message))
        out = []
        if event.type == "scored":
            out.append(f"  {self.state.players[p]}: {self.box(event.box or '')}, {event.written}")
        out += self.run_bots()
        out.append(self.view())
        return "\n".join(out)
