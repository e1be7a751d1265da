"""The full-screen app's words: the web's catalogs (web/locale), and the few sentences only a
terminal says (`TERMINAL_STRINGS`, listed by scripts/messages.py so every catalog has them).

No Textual here: `scripts/messages.py` and `yambak --help` import this module cheaply.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["TERMINAL_STRINGS", "BoxNames", "Words", "history_lines", "language"]

# Keys of the full-screen app (its help screen) and what only a terminal says.
TERMINAL_STRINGS = (
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

    def __init__(self, lang: str, rules: Any = None) -> None:
        """`rules`: a preset id, a ruleset or its layout (whose rows' own labels name them)."""
        from ..web.i18n import labels, translations

        self.lang = lang
        self._gettext: Callable[[str], str] = translations(lang).gettext
        self._ngettext: Callable[[str, str, int], str] = translations(lang).ngettext
        self.labels = labels(lang, rules)

    def __call__(self, text: str, **values: Any) -> str:
        out = self._gettext(text)
        for key, value in values.items():
            out = out.replace("{" + key + "}", str(value))
        return out

    def plural(self, singular: str, plural: str, n: float, **values: Any) -> str:
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

    def refusal(self, code: str, message: str, fields: Mapping[str, Any] | None = None) -> str:
        """Why an action was refused, in the language: the catalog's text for its code; in English (or
        for a code without a text) the refusal's own message, which may say more ("3 per turn and 2 saved")."""
        if self.lang == "en":
            return message
        from ..web.i18n import error_message

        return error_message(code, self.lang, fields) or message

    def sentence(self, said: Mapping[str, Any], columns: int) -> str:
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

    def end_line(self, end: Iterable[Mapping[str, Any]], columns: int) -> str:
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


def history_lines(state: Any, words: Words) -> list[str]:
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

    def __init__(self, rules: Any, words: Words) -> None:
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
