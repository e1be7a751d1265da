"""The terminal score-keeper: players roll real dice, type them, and the sheet keeps itself.

A `KeeperSession` takes one line of input at a time and answers with text, so
the same logic runs behind the interactive loop and in tests. Every accepted
entry is saved to the record file at once: a closed terminal loses nothing.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from ..engine import (
    Action,
    Announce,
    GameRecord,
    GameState,
    IllegalAction,
    ManualDice,
    RecordError,
    Roll,
    Score,
    Withdraw,
    new_game,
    replay,
    state_to_record,
)
from ..gameview import end_words
from ..keeper import Refusal, apply_entry, rolloffs_due
from ..keeper.boxes import box_names
from ..keeper.edits import last_action, undone
from ..rules import Ruleset
from ..text import render_sheets
from ..viewtypes import SheetAction


def parse_dice(text: str, count: int) -> tuple[int, ...] | None:
    """'66231' or '6 6 2 3 1' -> (6, 6, 2, 3, 1); None if it is not `count` dice."""
    digits = text.replace(" ", "").replace(",", "")
    if len(digits) != count or not digits.isdigit() or not all("1" <= d <= "6" for d in digits):
        return None
    return tuple(int(d) for d in digits)


class KeeperSession:
    def __init__(self, state: GameState, path: Path | None = None, lang: str | None = None) -> None:
        from .words import BoxNames, Words, language

        self.state = state
        self.path = path
        # boxes typed as players name them: ids and their prefixes, labels (in the language and English), aliases
        self.words = Words(language(lang), state.rules)
        self.names = BoxNames(state.rules, self.words)
        self.rolled_off: dict[str, list[int]] = {}  # a roll-off round being typed: seat -> five dice

    @classmethod
    def start(
        cls, rules: Ruleset, players: list[str], path: Path | None = None, lang: str | None = None
    ) -> KeeperSession:
        return cls(new_game(rules, players, dice=ManualDice()), path, lang)

    @classmethod
    def resume(cls, path: Path) -> KeeperSession:
        state = replay(GameRecord.loads(path.read_text(encoding="utf-8")))
        return cls(state, path)

    # --- what the players see -----------------------------------------------------------

    def name(self, box: str) -> str:
        """A box as the sheet names it in the language ("Full house"; "Down · Sixes" on several columns)."""
        return self.words.box(box, len(self.state.rules.columns))

    # What undo takes back (`yambak.keeper.edits`: the same rule as the web keeper's), named first.
    WHAT = {
        "entry": ("Undo {name}'s turn {turn}", "Undone: {name}'s turn {turn}"),
        "correction": ("Undo {name}'s correction of turn {turn}", "Undone: {name}'s correction of turn {turn}"),
        "rolloff": ("Undo the roll-off for {column}", "Undone: the roll-off for {column}"),
    }

    def said(self, action: SheetAction, done: bool = False) -> str:
        """An action of `last_action` / `undone` in words: what undo would take back, or took back."""
        T = self.words
        text = self.WHAT[str(action["kind"])][done]
        if action["kind"] == "rolloff":
            target = str(action["target"])
            return T(text, column=T("Total") if target == "total" else T.column(target))
        return T(text, name=self.state.players[int(str(action["player"]))], turn=action["turn"])

    def undo_label(self) -> str | None:
        """What the undo key would take back, named ("Undo Bram's correction of turn 7"); None: nothing."""
        action = last_action(self.state)
        return self.said(action) if action is not None else None

    def rolloff(self) -> tuple[str, list[int], dict[str, list[int]]] | None:
        """The roll-off being typed: (target, tied seats, the dice typed so far by seat), or None."""
        due = rolloffs_due(self.state)
        if not due:
            self.rolled_off = {}
            return None
        target, seats = next(iter(due.items()))
        return target, seats, self.rolled_off

    def _rolloff_turn(self) -> int | None:
        """The tied seat whose roll-off dice are to be typed next (None: no roll-off due)."""
        due = self.rolloff()
        if due is None:
            return None
        _, seats, typed = due
        return next(seat for seat in seats if str(seat) not in typed)

    def prompt(self) -> str:
        s = self.state
        due, seat = self.rolloff(), self._rolloff_turn()
        if due is not None and seat is not None:
            target = due[0]
            column = self.words.target(target)
            return (
                self.words(
                    "Roll-off for {column}: {name}, {n} dice",
                    column=column,
                    name=s.players[seat],
                    n=s.rules.rolloff_dice,
                )
                + "> "
            )
        T = self.words
        if s.finished:
            return T("game over") + "> "
        p = s.current
        turn = s.turns[p]
        n = len(turn.rolls)
        if n == 0:
            return T("{name}, roll {n} dice", name=s.players[p], n=1) + "> "
        name = s.players[p]
        if turn.announced is not None:
            name = T("{name} (announced {box})", name=name, box=self.name(s.rules.box_id(turn.announced)))
        if s.can_roll(p):
            return T("{name}, roll {n} dice or a box", name=name, n=n + 1) + "> "
        return T("{name}, choose a box", name=name) + "> "

    def standings(self) -> str:
        s = self.state
        lines = [f"  {name:<12} {total:>5}" for name, total in zip(s.players, s.totals(), strict=False)]
        points = s.match_points()
        if points is not None:
            said = [self.words.plural("{n} match point", "{n} match points", pts) for pts in points]
            lines = [f"{line}   {pts}" for line, pts in zip(lines, said, strict=False)]
        return "\n".join(lines)

    def options(self) -> str:
        preview = self.state.preview()
        if not preview:
            announce = any(isinstance(a, Announce) for a in self.state.legal_actions())
            return "  " + self.words(
                "no box can take these dice yet: roll again or announce"
                if announce
                else "no box can take these dice yet: roll again"
            )
        best = sorted(preview.items(), key=lambda kv: -kv[1])
        shown = ", ".join(f"{self.name(box)} {value}" for box, value in best[:10])
        more = f" (+{len(best) - 10} more)" if len(best) > 10 else ""
        return f"  {shown}{more}"

    # --- input --------------------------------------------------------------------------

    def handle(self, line: str) -> str:
        """Apply one line of input; return what to show. Never raises, whatever the line."""
        try:
            return self._handle(line)
        except (IllegalAction, RecordError) as exc:
            return self.words("Refused: {reason}", reason=self.words.refusal(exc.code, exc.message))
        except Refusal as exc:
            return self.words("Refused: {reason}", reason=self.words.refusal(exc.code, exc.message, exc.extra))
        except Exception as exc:  # a bug must not end a family's evening: say it, keep the sheet
            said = "Not understood ({error}): {line}. Type help."
            return self.words(said, error=type(exc).__name__, line=repr(line.strip()[:60]))

    def _box(self, text: str, fits: list[str] | None = None) -> str:
        """A box from what was typed: any case, short forms, a bare row where one column fits."""
        return self.names.resolve(text, fits or ())

    def _handle(self, line: str) -> str:
        words = line.strip().split()
        if not words:
            return ""
        command, args = words[0].lower(), words[1:]
        if command in ("help", "?"):
            from .words import KEEPER_HELP, help_text

            return help_text(self.words, KEEPER_HELP)
        if command == "sheet":
            return render_sheets(self.state, self.words.sheet_name)
        if command == "standings":
            return self.standings()
        if command == "history":
            return self._history()
        if command == "undo":
            return self._undo(args)
        if command == "fix":
            return self._fix(args)
        seat = self._rolloff_turn()
        if seat is not None:
            return self._rolloff_dice(seat, words)
        if self.state.finished:
            return self.words("The game is over: sheet, standings, history, undo or fix.")
        p = self.state.current
        if command == "announce" and args:
            box = self._box(" ".join(args), self.state.announceable())
            return self._act(Announce(p, box), self.words("announced: {box}", box=self.name(box)))
        if command == "withdraw":
            return self._act(Withdraw(p), self.words("announcement withdrawn"))
        if command == "strike" and args:
            return self._act(Score(p, self._box(" ".join(args), list(self.state.preview())), strike=True), None)
        dice = parse_dice(" ".join(words), self.state.rules.rolled_dice)
        if dice is not None:
            return self._act(Roll(p, held=() if self.state.turn.rolls else None, dice=dice), None)
        if "".join(words).isdigit() and len("".join(words)) > 1:
            n = self.state.rules.rolled_dice
            said = "Not understood: a roll is all {n} dice, each 1 to 6, e.g. {dice}."
            return self.words(said, n=n, dice=f"{'66231'[:n]}{'4' * (n - 5)}")
        typed = " ".join(words)  # a box's name may be words: full house, four of a kind
        try:
            box = self._box(typed, list(self.state.preview()))
        except Refusal as exc:
            if exc.code == "illegal/box-unknown":
                return self.words("Not understood: {line} is neither dice nor a box. Type help.", line=repr(typed[:60]))
            raise
        return self._act(Score(p, box), None)

    def complete(self, text: str) -> list[str]:
        """Tab completion: commands, and box names (the whole id or after a typed column)."""
        words = ["help", "sheet", "standings", "history", "undo", "fix", "announce", "withdraw", "strike", "quit"]
        low = text.casefold()
        names = box_names(self.state.rules)
        return sorted({w for w in [*words, *names] if w.casefold().startswith(low)})

    def _act(self, action: Action, done: str | None) -> str:
        before = self.state
        self.state, event = self.state.apply(action)
        if event.type == "rolled":
            return "  " + self.words("dice {dice}", dice=" ".join(map(str, event.dice))) + f"\n{self.options()}"
        if event.type == "scored":
            self._save()
            name = before.players[event.player]
            msg = f"  {name}: {self.name(event.box or '')}, {event.written}"
            if event.extra_bonus:
                msg += " (" + self.words("+{n} bonus", n=event.extra_bonus) + ")"
            return msg + "\n" + self.standings() + self._ending()
        return f"  {done}"

    def _ending(self) -> str:
        """After the last entry (or a roll-off round): the roll-off to type next, or the winner."""
        if not self.state.finished:
            return ""
        due = self.rolloff()
        if due is not None:
            target, seats, _ = due
            names = ", ".join(self.state.players[s] for s in seats)
            n = self.state.rules.rolloff_dice
            said = "{names} are tied on {column}: a roll-off, {n} dice each, the most pips wins (again while tied)."
            return "\n" + self.words(said, names=names, column=self.words.target(target), n=n)
        return "\n" + self.words.end_line(end_words(self.state) or [], len(self.state.rules.columns))

    def _rolloff_dice(self, seat: int, words: list[str]) -> str:
        n = self.state.rules.rolloff_dice
        dice = parse_dice(" ".join(words), n)
        if dice is None:
            return "  " + self.words("a roll-off is {n} dice, each 1 to 6, typed as digits", n=n)
        self.rolled_off[str(seat)] = list(dice)
        due = self.rolloff()
        if due is None:  # never: dice are asked for while a roll-off is due
            return ""
        target, seats, typed = due
        if len(typed) < len(seats):
            return "  " + self.words("{name}: {n} pips", name=self.state.players[seat], n=sum(dice))
        self.rolled_off = {}
        self._apply({"kind": "rolloff", "target": target, "rolloff": typed})
        pips = ", ".join(f"{self.state.players[int(s)]} {sum(d)}" for s, d in typed.items())
        said = self.words("Roll-off for {column}: {rounds}", column=self.words.target(target), rounds=pips)
        return f"  {said}\n{self.standings()}{self._ending()}"

    def _apply(self, entry: dict[str, object]) -> None:
        """An undo, correction or roll-off, through the keeper's core (the same as the web keeper's)."""
        self.state = apply_entry(self.state, entry)
        self._save()

    def _record(self) -> GameRecord:
        return replace(state_to_record(self.state), pending=())

    def _history(self) -> str:
        """Every entry and roll-off, as the app's history panel shows them (one wording: `history_lines`),
        then what was undone."""
        from .words import history_lines

        rows = history_lines(self.state, self.words)
        rows += [f"       {self.said(note, done=True)}" for note in undone(self.state)]
        return "\n".join(rows) or "  " + self.words("no entries yet")

    def _undo(self, args: list[str]) -> str:
        if len(args) > 1 or (args and not (args[0].isdigit() and int(args[0]) >= 1)):
            return "  " + self.words("undo takes a number of entries, e.g. undo or undo 2")
        count = int(args[0]) if args else 1
        self.rolled_off = {}
        self._apply({"kind": "undo", "count": count})
        notes = [f"  {self.said(note, done=True)}" for note in undone(self.state)[-count:]]
        return "\n".join([self.standings(), *notes])  # what was undone last: the line a status bar shows

    def _fix(self, args: list[str]) -> str:
        if len(args) < 3 or not args[0].isdigit():
            return "  " + self.words("fix N DICE [DICE ...] BOX, e.g. fix 3 66231 66666 free.yam")
        rolls = [parse_dice(a, self.state.rules.rolled_dice) for a in args[1:-1]]
        if any(r is None for r in rolls):
            return "  " + self.words("each roll is all the dice as digits, e.g. 66231")
        entry = {
            "kind": "fix",
            "turn": int(args[0]),
            "rolls": [list(r) for r in rolls if r],
            "box": self._box(args[-1]),
        }
        try:
            self._apply(entry)
        except Refusal as exc:
            if exc.code != "keeper/breaks-later":
                raise
            T = self.words
            invalid = exc.extra.get("invalid")
            lines = [
                "  "
                + T("entry {n} is no longer legal: {reason}", n=e["turn"], reason=T.refusal(e["code"], e["message"]))
                for e in (invalid if isinstance(invalid, list) else [])
            ]
            ending = [T("Correction not applied; it would break later entries:"), *lines]
            return "\n".join(
                ["  " + ending[0], *ending[1:], "  " + T("Fix those first (from the last), or undo them.")]
            )
        self.rolled_off = {}
        return "  " + self.words("entry {n} corrected", n=args[0]) + f"\n{self.standings()}{self._ending()}"

    def _save(self) -> None:
        if self.path is not None:
            tmp = self.path.with_suffix(self.path.suffix + ".tmp")
            tmp.write_text(json.dumps(self._record().to_dict(), indent=1), encoding="utf-8")
            tmp.replace(self.path)  # atomic: a crash never leaves half a file
