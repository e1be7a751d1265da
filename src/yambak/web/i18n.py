"""Gettext catalogs (Babel): compiled from the shipped .po files at startup, in memory.

Every user-visible string goes through `gettext`; row and column ids get the
names players know (RULES.md section 10) through the same catalogs.
"""

from __future__ import annotations

import gettext
import io
from functools import lru_cache

from babel import Locale, negotiate_locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from . import LOCALE

LANGUAGES = {"en": "English", "nl": "Nederlands", "fr": "Français", "de": "Deutsch", "sv": "Svenska",
             "hr": "Hrvatski", "es": "Español", "it": "Italiano"}
DEFAULT = "en"
DOMAIN = "yambak"

ROW_LABELS = {
    "ones": "Ones", "twos": "Twos", "threes": "Threes", "fours": "Fours", "fives": "Fives", "sixes": "Sixes",
    "one_pair": "One pair", "two_pairs": "Two pairs", "three_kind": "Three of a kind",
    "four_kind": "Four of a kind", "full_house": "Full house", "small_straight": "Small straight",
    "large_straight": "Large straight", "straight": "Straight", "yam": "Yam", "chance": "Chance",
    "max": "Max", "min": "Min", "plus": "Plus",
}
COLUMN_LABELS = {
    "free": "Free", "down": "Down", "up": "Up", "dry": "Dry", "poot": "Poot", "en_deux": "En deux",
    "annonce": "Announce", "announce": "Announce", "oblige": "Oblige", "normal": "Normal",
    "updown": "Up and down", "middle": "Middle", "hand": "Hand",
}


@lru_cache(maxsize=None)
def translations(lang: str) -> gettext.NullTranslations:
    path = LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == DEFAULT or not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def pick_language(query: str | None, cookie: str | None, accept: str | None) -> str:
    for choice in (query, cookie):
        if choice in LANGUAGES:
            return choice  # type: ignore[return-value]
    if accept:
        prefs = []
        for part in accept.split(",")[:20]:
            tag, _, q = part.strip().partition(";q=")
            try:
                weight = float(q) if q else 1.0
            except ValueError:
                weight = 0.0
            if tag:
                prefs.append((weight, tag.strip().replace("-", "_")))
        prefs.sort(key=lambda x: -x[0])
        found = negotiate_locale([t for _, t in prefs], list(LANGUAGES))
        if found:
            return found
        for _, tag in prefs:
            if tag.split("_")[0].lower() in LANGUAGES:
                return tag.split("_")[0].lower()
    return DEFAULT


def labels(lang: str) -> dict[str, dict[str, str]]:
    tr = translations(lang)
    return {"rows": {k: tr.pgettext("row", v) for k, v in ROW_LABELS.items()},
            "columns": {k: tr.pgettext("column", v) for k, v in COLUMN_LABELS.items()}}


# Strings the browser script shows: translated on the server, handed to the page as JSON.
JS_STRINGS = [
    "Roll", "Rolls left: {n}", "Your turn", "{name}'s turn", "Waiting for {name}", "Hold", "Held",
    "Die {n}: {value}", "held", "not held", "Announce", "Withdraw", "Announced: {box}", "Score {value} in {box}",
    "Upper", "Bonus", "Total", "Minimax", "Extra bonus", "Match points", "Winner", "Winners", "Game over",
    "Rematch", "Only announce boxes are left: announce one before rolling again.",
    "{column} boxes can only be filled right now (after roll {roll}).",
    "{box} would zero both {high} and {low}.", "{box} would score 0: min must stay below max.",
    "Connection lost, reconnecting…", "Connected", "Spectating", "Round {n}: the same dice",
    "rolls", "Sheet of {name}", "hidden until you finish this round", "Strike", "Strike {box} for 0",
    "You", "Bot", "Open seat", "{name} (bot) is thinking…", "Playing all at once: duplicate table",
    "Everyone's turn", "upper bonus: {sum} of {threshold}", "Column winners", "wins", "Download the game record",
    "Error", "Roll the dice to start your turn.", "Choose a box.",
    # the score-keeper (keeper.js)
    "Refused", "Type all {n} dice first.", "Player", "Correcting entry {n} of {name}",
    "{name}: type the dice, then tap a box", "{n} entries waiting to be sent",
    "Offline: entries are kept and sent when the network returns", "Die {n}", "Roll number", "Just the score (0)",
    "Undo last entry", "Cancel correction", "Box", "Save correction", "roll {n}", "Correction of entry {n}",
    "pending", "Correct entry {n}",
]


def js_strings(lang: str) -> dict[str, str]:
    _ = translations(lang).gettext
    return {s: _(s) for s in JS_STRINGS}


def language_name(code: str) -> str:
    return Locale.parse(code).get_display_name(code).capitalize()
