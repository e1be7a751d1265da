"""The full-screen app's words: the web's catalogs (web/locale), and the few sentences only a
terminal says (`TERMINAL_STRINGS`, listed by scripts/messages.py so every catalog has them).

No Textual here: `scripts/messages.py` and `yambak --help` import this module cheaply.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine import GameState
    from ..rules import Ruleset
    from ..viewtypes import RulesLayout, Sentence

__all__ = [
    "GAME_HELP",
    "KEEPER_HELP",
    "TERMINAL_STRINGS",
    "BoxNames",
    "Words",
    "fill",
    "help_text",
    "history_lines",
    "language",
]

# Keys of the full-screen app (its help screen) and what only a terminal says.
TERMINAL_STRINGS: tuple[str, ...] = (
    "1–6: hold or release a die",
    "R: roll",
    "Arrows and Enter, or the mouse: choose a box",
    "A: announce the box under the cursor",
    "S: strike mode (Enter strikes the box for 0)",
    "W: withdraw the announcement",
    "H: hints",
    "P: the next player's sheet",
    "T: light or dark",
    "?: this help",
    "Q: quit",
    "Digits: the dice as they fell",
    "Backspace: take back the last die",
    "U: undo the last entry",
    ": a command of the line mode (fix, history, help…)",
    "Strike mode: Enter strikes the box for 0.",
    "Fair dice verified: {n} rolls re-derived from the committed seed.",
    "The fair dice do not verify: {detail}",
    "Keys",
    # yambak train
    "Digits 1–6, then Enter: keep those dice",
    "R: roll all the dice again",
    "Arrows and Enter, or the mouse: choose from the list",
    "N: the next position",
    "D: today's position",
    "Finding positions: {n} of {total}",
    "That is not a choice in this position.",
    # the full-screen app's history panel
    "L: the history, every move so far",
    # the line mode of `yambak play` (--plain, pipes, screen readers)
    "{name} to play: r to roll.",
    "{name}  roll {n}  ({left} left)",
    "announced: {box}",
    "announce a box to go on (a BOX)",
    "Refused: {reason}",
    "Not understood; type help.",
    "{name} (bot): {box}, {written}   dice {dice}",
    "game over",
    "{name}, r to roll",
    "{name}, roll {n} or a box",
    "{name}, choose a box",
    "{game}: {players}. Type help for commands.",
    # the keeper's line mode (`yambak keep --plain`, and `:` in the app)
    "{name}, roll {n} dice",
    "{name}, roll {n} dice or a box",
    "{name} (announced {box})",
    "dice {dice}",
    "no box can take these dice yet: roll again",
    "no box can take these dice yet: roll again or announce",
    "The game is over: sheet, standings, history, undo or fix.",
    "Roll-off for {column}: {name}, {n} dice",
    "{names} are tied on {column}: a roll-off, {n} dice each, the most pips wins (again while tied).",
    "a roll-off is {n} dice, each 1 to 6, typed as digits",
    # the line modes' sheets (`sheet`, and the end of a game)
    "Extra bonus",
    "Grand total",
    # the line modes' help (`help_text`): what BOX and DICE say, and the trainer's (`GAME_HELP` and
    # `KEEPER_HELP` are added below)
    "BOX",
    "DICE",
    "Type the dice to keep (66 or k 6 6), r to roll them all again, a box (yam), strike yam, announce yam, or #N"
    " for the N-th choice; n: the next position, d: today's, q: quit.",
    # the keeper's line mode, answers
    "Not understood ({error}): {line}. Type help.",
    "Not understood: a roll is all {n} dice, each 1 to 6, e.g. {dice}.",
    "Not understood: {line} is neither dice nor a box. Type help.",
    "announcement withdrawn",
    "+{n} bonus",
    "{name}: {n} pips",
    "no entries yet",
    "undo takes a number of entries, e.g. undo or undo 2",
    "fix N DICE [DICE ...] BOX, e.g. fix 3 66231 66666 free.yam",
    "each roll is all the dice as digits, e.g. 66231",
    "entry {n} is no longer legal: {reason}",
    "Correction not applied; it would break later entries:",
    "Fix those first (from the last), or undo them.",
    "entry {n} corrected",
    "Keeping {game} for {players}. Type help for commands.",
    "Every entry is saved to {path}.",
    "This terminal now plays as {name} on that site: its games enter {name}'s history.",
    # an online table (`yambak play --join`), line by line and full screen
    "Waiting for {names}.",
    "{name}, your turn: r to roll.",
    "Game over. Winner: {names}.",
    "{game} at {address}: you play {names}. Type help for commands.",
    "{game} at {address}: you are watching. Type help for commands.",
    "It is not your turn.",
    "No answer from the table yet.",
    "Connection lost, reconnecting…",
    "A message from the server was not understood (skipped).",
    "A rematch: {address}",
    "The dice could not be checked: {reason}",
    "The dice cannot be checked yet: the table's seed is not revealed (a deal not closed).",
    "NOT VERIFIED: the record is not a legal game ({reason})",
    "NOT VERIFIED: the record's commitment is not the one the table showed at the start.",
    "NOT VERIFIED: the record does not mix in this terminal's nonce for seat {n}.",
    "NOT VERIFIED: {reason}",
    "Fair dice verified: {n} rolls re-derived from the committed seed and the players' nonces.",
    # `yambak play`'s names for the players not named (--players, --bots easy/medium/hard)
    "Player {n}",
    "Easy bot {n}",
    "Medium bot {n}",
    "Hard bot {n}",
    # the trainer's line mode: an answer that is none of the choices
    "type a choice",
    "choose #1 to #{n}",
    "a keep is the dice values to hold, such as 66 or k 6 6",
    "the dice are {dice}: keep some of them",
)
BOT_NAMES = {"easy": "Easy bot {n}", "medium": "Medium bot {n}", "hard": "Hard bot {n}"}  # by --bots level

# The line modes' help: (what is typed, what it does); "" before a sentence of its own. BOX and DICE in
# what is typed are said in the language ("a VAK"), as the prompts say them.
GAME_HELP = (
    ("r", "roll (the dice not held)"),
    ("h 1 3", "hold dice 1 and 3 (positions from the left)"),
    ("u 1", "release die 1"),
    ("k 1 3", "keep dice 1 and 3 and roll the others"),
    ("BOX", "score a box by its name, e.g. sixes, full house, poker (column and row on several columns)"),
    ("a BOX", "announce a box (after roll 1, announce columns)"),
    ("w", "withdraw the announcement"),
    ("s BOX", "strike a box for 0 (rulesets that allow it)"),
    ("sheet", "every sheet"),
    ("help", "this help"),
    ("quit", "stop (quit or q)"),
)
KEEPER_HELP = (
    ("", "Type the dice after each roll as digits, e.g. 66231 (all dice, held ones too)."),
    (
        "",
        "Then type a box to score it: its name, e.g. sixes (with its column where several columns can take the"
        " dice), or its id, e.g. free.sixes, also short: f.6 (any case; Tab completes box names).",
    ),
    ("announce BOX", "announce after roll 1 (announce columns)"),
    ("withdraw", "take an announcement back (where the rules allow)"),
    ("strike BOX", "write 0 in a box (rulesets that allow striking)"),
    ("sheet", "every player's sheet"),
    ("standings", "the totals"),
    (
        "undo [N]",
        "take back the last N things done (default 1): an entry, a correction or a roll-off round, whichever came last",
    ),
    (
        "fix N DICE.. BOX",
        "correct entry N: its rolls (digits, space separated) and its box; an announce box filled after roll 2"
        " or 3 stays announced",
    ),
    ("history", "every entry so far, numbered (announced boxes marked)"),
    (
        "",
        "When the game ends tied where the rules roll ties off, each tied player rolls the roll-off's dice: type"
        " them when asked.",
    ),
    ("help", "this help"),
    ("quit", "stop (quit or q)"),
)

# The sheet's own lines (`yambak.text.render_sheets`) as the app and the line modes name them.
SHEET_LINES = {
    "upper": "Upper section",
    "bonus": "Bonus",
    "minimax": "(Max − Min) × Ones",
    "total": "Total",
    "extra bonus": "Extra bonus",
    "grand total": "Grand total",
    "match points": "Match points",
}

LANGUAGES = ("en", "nl", "fr", "de", "sv", "hr", "es", "it")


def language(given: str | None = None) -> str:
    """The app's language: --lang, else the first of LANGUAGE, LC_ALL, LC_MESSAGES, LANG that is one of ours."""
    for value in (given, *(os.environ.get(k) for k in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"))):
        for part in (value or "").split(":"):
            code = part.split(".")[0].split("_")[0].lower()
            if code in LANGUAGES:
                return code
    return "en"


class Words:
    """`T("...", name=...)`: a string in the language, placeholders filled; row and column names."""

    def __init__(self, lang: str, rules: str | Ruleset | RulesLayout | None = None) -> None:
        """`rules`: a preset id, a ruleset or its layout (whose rows' own labels name them)."""
        from ..web.i18n import labels, translations

        self.lang = lang
        self._gettext: Callable[[str], str] = translations(lang).gettext
        self._ngettext: Callable[[str, str, int], str] = translations(lang).ngettext
        self.labels = labels(lang, rules)

    def __call__(self, text: str, **values: object) -> str:
        out = self._gettext(text)
        for key, value in values.items():
            out = out.replace("{" + key + "}", str(value))
        return out

    def plural(self, singular: str, plural: str, n: float, **values: object) -> str:
        """The form of the language's plural rule for n ("1 pt", "12.5 pts"), with `{n}` written as the
        language writes numbers."""
        from ..web.i18n import number

        whole = float(n).is_integer()
        out = self._ngettext(singular, plural, abs(int(n)))  # the whole part chooses, as in the pages (page.js N)
        text = {"n": str(int(n)) if whole else number(n, self.lang), **{k: str(v) for k, v in values.items()}}
        for key, value in text.items():
            out = out.replace("{" + key + "}", value)
        return out

    def number(self, value: float) -> str:
        """A number as the language writes it: whole numbers as they are, others to one decimal ("12,5")."""
        from ..web.i18n import number

        return str(int(value)) if float(value).is_integer() else number(value, self.lang)

    def refusal(self, code: str, message: str, fields: Mapping[str, object] | None = None) -> str:
        """Why an action was refused, in the language: the catalog's text for its code; in English (or
        for a code without a text) the refusal's own message, which may say more ("3 per turn and 2 saved")."""
        if self.lang == "en":
            return message
        from ..web.i18n import error_message

        return error_message(code, self.lang, fields) or message

    def sentence(self, said: Sentence, columns: int) -> str:
        """A sentence worded elsewhere ({"text", "args"}, `yambak.gameview.end_words`): `text` in the
        language, numbers as it writes them, a `box` by its name on a sheet of `columns` columns."""
        args = {
            key: self.box(str(value), columns)
            if key == "box"
            else self.number(value)
            if isinstance(value, (int, float))
            else value
            for key, value in said["args"].items()
        }
        return self(said["text"], **args)

    def end_line(self, end: Iterable[Sentence], columns: int) -> str:
        """The end of a game on one line, for the line modes: "Game over. Bram wins. On match points, after a
        roll-off: 8 to 3." (`yambak.gameview.end_words`, as the app's results and the keeper's page say it)."""
        said = [self("Game over"), *(self.sentence(s, columns) for s in end)]
        return ". ".join(text.rstrip(".") for text in said) + "."

    def row(self, row_id: str, short: bool = False) -> str:
        table = self.labels["rows_short" if short else "rows"]
        return table.get(row_id, row_id)

    def column(self, column_id: str, short: bool = False) -> str:
        table = self.labels["columns_short" if short else "columns"]
        return table.get(column_id, column_id)

    def sheet_name(self, kind: str, key: str) -> str:
        """What a text sheet shows (`yambak.text.render_sheets`'s `name`): a row, a column, a sheet line."""
        if kind == "row":
            return self.row(key)
        if kind == "column":
            return self.column(key, short=True)
        return self(SHEET_LINES.get(key, key))

    def target(self, target: str) -> str:
        """What a roll-off is for: a column by its name, or the total."""
        return self("Total") if target == "total" else self.column(target)

    def box(self, box: str, columns: int) -> str:
        """A box as players name it: the row, with its column where the sheet has several."""
        column, _, row = box.rpartition(".")
        return self.row(row) if columns == 1 or not column else f"{self.column(column)} · {self.row(row)}"


TERMINAL_STRINGS += tuple(dict.fromkeys(text for _, text in GAME_HELP + KEEPER_HELP))


def fill(text: str, **values: object) -> str:
    """`text` with its placeholders filled, untranslated (what a `Words` does in English)."""
    for key, value in values.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def help_text(words: Words, entries: Iterable[tuple[str, str]], width: int = 78) -> str:
    """A line mode's help in the language: each command as typed (BOX and DICE in the language) beside
    what it does, wrapped under itself; a sentence of its own (no command) across the whole width."""
    import re
    import textwrap

    rows = [(re.sub(r"\b(BOX|DICE)\b", lambda m: words(m.group()), keys), words(text)) for keys, text in entries]
    gap = max(len(keys) for keys, _ in rows if keys) + 4
    out: list[str] = []
    for keys, text in rows:
        if not keys:
            out += textwrap.wrap(text, width)
            continue
        lines = textwrap.wrap(text, max(width - gap, 20))
        out.append(f"  {keys:<{gap - 2}}{lines[0]}")
        out += [" " * gap + line for line in lines[1:]]
    return "\n".join(out)


def history_lines(state: GameState, words: Words) -> list[str]:
    """Every entry of a game so far, numbered, as players say a move ("3. Bram: Full house, 25"), with its
    rolls after it, then the roll-offs: the full-screen app's history panel and the keeper's `history`."""
    rules, columns = state.rules, len(state.rules.columns)
    out = []
    for n, t in enumerate(state.history, start=1):
        box = rules.parse_box(t.box)
        written = state.sheets[t.player].written[box] if box is not None else None
        marks = (f" ({words('announced')})" if t.announce is not None else "") + (
            f" ({words('struck')})" if t.strike else ""
        )
        rolls = "" if getattr(t, "scratch", False) else "   " + " / ".join("".join(map(str, r)) for r in t.rolls)
        out.append(f"{n:>3}. {state.players[t.player]}: {words.box(t.box, columns)}, {written}{marks}{rolls}")
    for target, rounds in state.rolloffs:
        column = words.target(target)
        for r in rounds:
            pips = ", ".join(f"{state.players[seat]} {''.join(map(str, d))}" for seat, d in r)
            out.append("     " + words("Roll-off for {column}: {rounds}", column=column, rounds=pips))
    return out


def _key(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch not in " _-.·")


class BoxNames:
    """The boxes of a sheet by every name a player may type (any case, spaces or not): the ids, the rows'
    and columns' names in the language and in English, the face of an upper row, and the rows' aliases
    (the ruleset's `aliases`: "poker", "carré", "yahtzee"...); a row's name alone names the box of each
    column, which the boxes that can take the entry now choose between. Anything else: the keeper's ids
    and their prefixes (`keeper/boxes.py`)."""

    def __init__(self, rules: Any, words: Words) -> None:  # a Ruleset, or a layout's rows and columns (online)
        self.rules, self.words = rules, words
        english = words if words.lang == "en" else Words("en", rules)
        self._boxes: dict[str, set[str]] = {}
        for r in rules.rows:
            names = {r.id, words.row(r.id), words.row(r.id, short=True), english.row(r.id)}
            names |= {name for _, said in r.aliases for name in said}
            if r.is_upper and r.face:
                names.add(str(r.face))
            for c in rules.columns:
                box = f"{c.id}.{r.id}"
                for name in names:
                    self._add(name, box)
                    for column in {c.id, words.column(c.id), english.column(c.id)}:
                        self._add(f"{column} {name}", box)

    def _add(self, name: str, box: str) -> None:
        if key := _key(name):
            self._boxes.setdefault(key, set()).add(box)

    def resolve(self, text: str, fits: Iterable[str] = ()) -> str:
        """The box id `text` names; the keeper's Refusal (`illegal/box-unknown`, `input/box-ambiguous`)
        when it names none or several."""
        from ..keeper.boxes import resolve_box

        boxes = sorted(self._boxes.get(_key(text), ()))
        if len(boxes) == 1:
            return boxes[0]
        fits = set(fits)
        fitting = [b for b in boxes if b in fits]
        if len(fitting) == 1:
            return fitting[0]
        if not boxes:
            return resolve_box(self.rules, text, fits)
        from ..keeper.entries import Refusal

        listed = ", ".join(self.words.box(b, len(self.rules.columns)) for b in (fitting or boxes)[:12])
        if fitting:
            raise Refusal("input/box-ambiguous", f"{text[:40]!r} could be {listed}: name the column too")
        raise Refusal("illegal/box-closed", f"{text[:40]!r} is {listed}: none of them takes an entry now")
