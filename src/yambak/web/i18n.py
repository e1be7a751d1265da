"""Gettext catalogs (Babel): compiled from the shipped .po files at startup, in memory.

Every user-visible string goes through `gettext`; row and column ids get the
names players know (RULES.md section 10) through the same catalogs.
"""

from __future__ import annotations

import copy
import gettext
import io
import re
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from typing import Any

from babel import Locale, negotiate_locale
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import NumberPattern, format_decimal, format_percent

from . import LOCALE, STATIC

LANGUAGES = {
    "en": "English",
    "nl": "Nederlands",
    "fr": "Français",
    "de": "Deutsch",
    "sv": "Svenska",
    "hr": "Hrvatski",
    "es": "Español",
    "it": "Italiano",
}
DEFAULT = "en"
DOMAIN = "yambak"

ROW_LABELS = {
    "ones": "Ones",
    "twos": "Twos",
    "threes": "Threes",
    "fours": "Fours",
    "fives": "Fives",
    "sixes": "Sixes",
    "one_pair": "One pair",
    "two_pairs": "Two pairs",
    "three_kind": "Three of a kind",
    "four_kind": "Four of a kind",
    "full_house": "Full house",
    "small_straight": "Small straight",
    "large_straight": "Large straight",
    "straight": "Straight",
    "yam": "Yam",
    "chance": "Chance",
    "max": "Max",
    "min": "Min",
    "plus": "Plus",
    "three_pairs": "Three pairs",
    "five_kind": "Five of a kind",
    "full_straight": "Full straight",
    "castle": "Castle",
    "tower": "Tower",
    "flush": "Flush",
    "two_pairs_colour": "Two pairs, same colour",
    "full_house_colour": "Full house, same colour",
    "double_yam": "Double yam",
}
COLUMN_LABELS = {
    "free": "Free",
    "down": "Down",
    "up": "Up",
    "dry": "Dry",
    "poot": "Poot",
    "en_deux": "En deux",
    "annonce": "Announce",
    "announce": "Announce",
    "oblige": "Oblige",
    "normal": "Normal",
    "updown": "Up and down",
    "middle": "Middle",
    "hand": "Hand",
}

# Rulesets whose players name a row their own way (RULES.md section 10), by family.
FAMILIES = {
    "yamb": "yamb",
    "yamb-6": "yamb",
    "yatzy": "yatzy",
    "yams": "yams",
    "kniffel": "kniffel",
    "yacht": "yacht",
    "generala": "generala",
    "maxi-yatzy": "maxi-yatzy",
    "kismet": "kismet",
}
FAMILY_ROWS = {
    "yamb": {"yam": "Yamb"},
    "yatzy": {"yam": "Yatzy"},
    "yams": {"yam": "Yams"},
    "kniffel": {"yam": "Kniffel"},
    "yacht": {
        "yam": "Yacht",
        "chance": "Choice",
        "small_straight": "Little straight",
        "large_straight": "Big straight",
    },
    "generala": {"yam": "Generala", "double_yam": "Double generala", "four_kind": "Poker"},
    "maxi-yatzy": {"yam": "Maxi Yatzy"},
    "kismet": {"yam": "Kismet", "chance": "Yarborough"},
}
FAMILY_SHORT = {
    **FAMILY_ROWS,
    "yacht": {"yam": "Yacht", "chance": "Choice", "small_straight": "Little str.", "large_straight": "Big str."},
    "generala": {"yam": "Generala", "double_yam": "2× Gen.", "four_kind": "Poker"},
    "maxi-yatzy": {"yam": "Maxi"},
    "kismet": {"yam": "Kismet", "chance": "Yarb."},
}

# Short forms for narrow sheets (a phone with six columns); the full name shows on focus or long-press.
ROW_SHORT = {
    "ones": "Ones",
    "twos": "Twos",
    "threes": "Threes",
    "fours": "Fours",
    "fives": "Fives",
    "sixes": "Sixes",
    "one_pair": "Pair",
    "two_pairs": "2 pairs",
    "three_kind": "3 alike",
    "four_kind": "4 alike",
    "full_house": "Full",
    "small_straight": "Sm. str.",
    "large_straight": "Lg. str.",
    "straight": "Straight",
    "yam": "Yam",
    "chance": "Chance",
    "max": "Max",
    "min": "Min",
    "plus": "Plus",
    "three_pairs": "3 pairs",
    "five_kind": "5 alike",
    "full_straight": "Full str.",
    "castle": "Castle",
    "tower": "Tower",
    "flush": "Flush",
    "two_pairs_colour": "2 pairs col.",
    "full_house_colour": "Full col.",
    "double_yam": "2× yam",
}
COLUMN_SHORT = {
    "free": "Free",
    "down": "↓",
    "up": "↑",
    "dry": "Dry",
    "poot": "Poot",
    "en_deux": "2nd",
    "annonce": "Ann.",
    "announce": "Ann.",
    "oblige": "Obl.",
    "normal": "Norm.",
    "updown": "↕",
    "middle": "Mid",
    "hand": "Hand",
}

# The shipped presets (rules/presets/*.toml) by id: names, one-line descriptions and option descriptions,
# in English exactly as the TOML files give them (tests/web/test_i18n.py keeps the two in step).
# Context "ruleset" for names and descriptions, "option" for option descriptions.
PRESET_NAMES = {
    "yams": "Yams / Yahtzee",
    "yatzy": "Yatzy (Scandinavian)",
    "yams-fr": "Yam's (French, with columns)",
    "yams-de": "Yams! (German)",
    "yammen": "Yammen (Belgian)",
    "yamb": "Yamb (Balkan)",
    "yamb-6": "Yamb (six columns)",
    "kniffel": "Kniffel",
    "yacht": "Yacht",
    "generala": "Generala",
    "maxi-yatzy": "Maxi Yatzy",
    "kismet": "Kismet",
}
PRESET_DESCRIPTIONS = {
    "yams": "One free column of 13 boxes; 35 bonus at 63; forced joker and +100 for every further yam.",
    "yatzy": "One free column of 15 boxes with one and two pairs; 50 bonus at 63; no joker.",
    "yams-fr": "1, 3 or 4 columns (down, free, up, dry); max must beat min; any box may be struck for 0.",
    "yams-de": "Normal, down, up and oblige columns; min below max at entry; 20 bonus at 60.",
    "yammen": "Down, free, up, poot, en deux and annonce columns; plus above min; column points, 25 at most.",
    "yamb": "Down, up, free and announce columns (plus optional extras); (max - min) x ones; straight 66/56/46.",
    "yamb-6": "Yamb with the updown and middle columns added: six columns.",
    "kniffel": "One free column of 13 boxes; 35 bonus at 63; no joker unless extra Kniffels are on.",
    "yacht": "One free column of 12 boxes; full house scores the dice; both straights 30; no bonus.",
    "generala": "One free column of 11 boxes; served straight, full and poker score 5 more; a served generala wins.",
    "maxi-yatzy": "Six dice, 20 boxes with three pairs, castle, tower and the full straight; unused rolls are saved.",
    "kismet": "One free column of 15 boxes; 1 and 6 black, 2 and 5 red, 3 and 4 green; bonus 35, 55 or 75.",
}
OPTION_DESCRIPTIONS = {
    "columns": "How many columns: 1 (free), 3 (down, free, up) or 4 (with dry)",
    "max_min": "Play the max and min rows",
    "max_gt_min": "Max must be higher than min, or both score 0",
    "strict": "The largest min must stay below the smallest max across the whole sheet",
    "flat_bonus": "Full house, straight and yam score a flat 20/30/40 instead of pips plus 20/30/40",
    "ties": "Tied column or total: roll off (one roll of five dice, most pips) or share the points",
    "four_kind": "Four of a kind scores all five dice + 40, or the four matching dice + 40",
    "extra": "Extra columns, any of updown, middle, hand",
    "extra_kniffels": "Extra Kniffels: 100 more for each further Kniffel, placed as a joker",
    "served": "A served generala (five alike on the first roll) wins the game, or scores 50 like any other",
    "wrap_straight": "The straight 3-4-5-6-1 counts too (the one after the six)",
    "joker": "A further yam is a joker placed as the official rules force it, or in any open box",
}


# Colours of pips a ruleset's [faces] may name (context "colour"); another name shows as written.
COLOUR_NAMES = ("black", "red", "green", "blue", "white", "yellow")


# Values of the shipped presets' options, as the lobby's controls show them (context "option-value").
OPTION_VALUES = {
    "all": "All five dice + 40",
    "four": "The four matching dice + 40",
    "rolloff": "Roll off",
    "share": "Share the points",
    "wins": "Wins the game",
    "points": "Scores 50",
    "forced": "Forced",
}


# The lobby's cards: what each game is, in plain words (context "lobby").
LOBBY_BLURBS = {
    "yams": "The classic: 13 boxes, three rolls a turn, 35 bonus at 63 and 100 more for every extra yams.",
    "yatzy": "The Scandinavian classic: 15 boxes with one and two pairs, 50 bonus at 63.",
    "yams-fr": "Four columns to fill from the top, from the bottom, freely, and in a single roll.",
    "yams-de": "Four columns, one of them announced before you roll on; min stays below max.",
    "yammen": "The Belgian sheet: six columns, and points for every column you win.",
    "yamb": "The Balkan sheet: four columns, announcements, and (max − min) × ones.",
    "yamb-6": "Yamb with six columns: from both ends and from the middle.",
    "kniffel": "The German classic: 13 boxes, three rolls a turn, 35 bonus at 63.",
    "yacht": "The 1930s original: 12 boxes, no bonus, and a full house worth its pips.",
    "generala": "The South American sheet: served combinations score more, and a served generala wins outright.",
    "maxi-yatzy": "Six dice, 20 boxes, and the rolls you do not use are saved for later.",
    "kismet": "Coloured pips: flushes, same-colour pairs and a bonus in three steps.",
}


def lobby_blurb(preset: str, lang: str) -> str:
    text = LOBBY_BLURBS.get(preset)
    return translations(lang).pgettext("lobby", text) if text else ""


def option_value_label(value: object, lang: str) -> str:
    """An option value as players read it: a column's name, a described choice, or the value itself."""
    text = str(value)
    tr = translations(lang)
    if text in COLUMN_LABELS:
        return tr.pgettext("column", COLUMN_LABELS[text])
    if text in OPTION_VALUES:
        return tr.pgettext("option-value", OPTION_VALUES[text])
    return text


def _shipped(table: dict[str, str], key: str | None, text: str, context: str, lang: str) -> str:
    """`text` translated when it is the shipped English text for `key`; a user's own text (a custom
    TOML ruleset's name or description) stays as its author wrote it."""
    if key is None or table.get(key) != text:
        return text
    return translations(lang).pgettext(context, text)


def ruleset_name(rules_id: str | None, name: str, lang: str) -> str:
    return _shipped(PRESET_NAMES, rules_id, name, "ruleset", lang)


def ruleset_description(rules_id: str | None, text: str, lang: str) -> str:
    return _shipped(PRESET_DESCRIPTIONS, rules_id, text, "ruleset", lang)


def option_description(option: str, text: str, lang: str) -> str:
    return _shipped(OPTION_DESCRIPTIONS, option, text, "option", lang)


@cache
def _catalog(lang: str) -> Catalog | None:
    path = LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == DEFAULT or not path.exists():
        return None
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The language's catalog: gettext, pgettext (one English text meaning two things), ngettext and
    npgettext (plurals, by the catalog's own Plural-Forms rule)."""
    catalog = _catalog(lang)
    if catalog is None:
        return gettext.NullTranslations()
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def plural_rule(lang: str) -> str:
    """The language's Plural-Forms expression (C syntax), as its catalog states it: the browser's `N()`
    chooses the same form as Python's ngettext (static/plural.js)."""
    catalog = _catalog(lang)
    return catalog.plural_expr if catalog is not None else "(n != 1)"


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


def labels(lang: str, rules_id: str | None = None) -> dict[str, dict[str, str]]:
    """Row and column names (and their short forms) in the language; a ruleset family may name a
    row its own way (RULES.md section 10: the 50-point box is "Yatzy" in Swedish Yatzy, "Yamb" in Yamb)."""
    tr = translations(lang)
    rows = {**ROW_LABELS, **FAMILY_ROWS.get(FAMILIES.get(rules_id or "", ""), {})}
    return {
        "rows": {k: tr.pgettext("row", v) for k, v in rows.items()},
        "columns": {k: tr.pgettext("column", v) for k, v in COLUMN_LABELS.items()},
        "rows_short": {
            k: tr.pgettext("row-short", v)
            for k, v in {**ROW_SHORT, **FAMILY_SHORT.get(FAMILIES.get(rules_id or "", ""), {})}.items()
        },
        "columns_short": {k: tr.pgettext("column-short", v) for k, v in COLUMN_SHORT.items()},
    }


def error_texts(lang: str) -> dict[str, str]:
    """Every refusal code's text in the language (what a page shows for a box it cannot fill)."""
    tr = translations(lang)
    return {code: tr.gettext(text) for code, text in ERROR_MESSAGES.items()}


# Refusal codes (the engine's `IllegalAction` codes and a few of the server's) as players read them.
# The server sends the translated text as `message`, the engine's English sentence as `detail`.
ERROR_MESSAGES = {
    "illegal/unknown-action": "That is not a move.",
    "illegal/no-such-seat": "There is no such seat.",
    "illegal/game-over": "The game is over.",
    "illegal/not-your-turn": "It is not your turn.",
    "illegal/bad-hold": "Those dice cannot be held.",
    "illegal/no-rolls-left": "No rolls left: choose a box.",
    "illegal/all-held": "Every die is held: release one to roll.",
    "illegal/dead-end": "You cannot roll again now: choose or announce a box.",
    "illegal/hold-before-roll": "Roll before holding dice.",
    "illegal/dice-not-allowed": "The dice are rolled here, not typed.",
    "illegal/bad-dice": "Those are not valid dice.",
    "illegal/held-changed": "A held die cannot change.",
    "illegal/dice-required": "Say what the dice show.",
    "illegal/box-unknown": "There is no such box on this sheet.",
    "illegal/announce-early": "Announce after the first roll.",
    "illegal/announce-late": "Announce right after the first roll only.",
    "illegal/already-announced": "A box is already announced.",
    "illegal/announce-column": "That box cannot be announced.",
    "illegal/withdraw": "This announcement cannot be withdrawn.",
    "illegal/box-closed": "That box is already filled.",
    "illegal/announced-elsewhere": "You announced another box: fill that one.",
    "illegal/box-rolls": "That column cannot be filled after this roll.",
    "illegal/not-announced": "That box needs an announcement after roll 1.",
    "illegal/box-order": "That box is not next in its column.",
    "illegal/roll-first": "Roll the dice before choosing a box.",
    "illegal/strike": "You cannot strike a box for 0 here.",
    "illegal/use": "Choose five of the six dice.",
    "illegal/joker": "Joker rule: this yam must go to another box.",
    "illegal/last-resort": "That would zero two boxes while another box can take these dice.",
    "illegal/no-players": "A game needs at least one player.",
    "illegal/no-scratch": "This box cannot take a 0: every roll scores there.",
    "illegal/value": "No dice write that value in this box.",
    "illegal/no-undo": "Nothing to take back now: a roll has been made since.",
    "seat/none-open": "Every seat at this table is taken.",
    "seat/taken": "That seat is not open.",
    "rate/limited": "Too many requests: wait a moment and try again.",
    "server/full": "The server is full: try again later.",
    "server/error": "Something went wrong on the server: try again.",
    "server/store": "The move could not be saved: the table is being reloaded.",
    "server/busy": "The server is busy: try again.",
    "auth/not-your-seat": "That seat is not yours on this device.",
    "auth/not-seated": "Only the players at this table can do that.",
    "auth/origin": "This page may not play at this table.",
    "stale/version": "The table moved on while you chose: look again and retry.",
    "stale/store": "The sheet changed on another device: look again and retry.",
    "protocol/too-large": "That message is too large.",
    "protocol/bad-json": "That message could not be read.",
    "protocol/unknown-type": "That message is not understood.",
    "protocol/malformed": "That message is not understood.",
    "protocol/hello-first": "Still connecting: try again in a moment.",
    "table/unknown": "There is no such table.",
    "table/broken": "This table's game cannot be loaded.",
    "table/not-finished": "The game is not over yet.",
    "table/no-undo": "This table does not allow taking back an entry.",
    "table/no-hints": "Hints are off at this table.",
    "advice/unavailable": "No advice for this position.",
    "record/after-game": "The record of a duplicate table is ready when the game is over.",
}
# A refused name (yambak.names: blank, invisible or too long).
NAME_ERROR = "Type a name of 1 to 24 characters."
ERROR_MESSAGES["input/name"] = NAME_ERROR
# The score-keeper's own refusals (yambak.keeper, server/keeper): forms, entries, sheets, codes.
ERROR_MESSAGES.update(
    {
        "input/players": "Name at least one player (16 at most).",
        "input/dice": "Type all the dice first.",
        "input/box-ambiguous": "Several boxes have that name: type more of it.",
        "keeper/same-name": "Two players have the same name: make them different.",
        "keeper/nothing-to-undo": "There is nothing to undo.",
        "keeper/no-entry": "There is no such entry to correct.",
        "keeper/breaks-later": "This correction would make later entries illegal: not applied.",
        "keeper/no-rolloff": "No roll-off is due there.",
        "stale/overtaken": "Another phone entered this turn first.",
        "sheet/unknown": "There is no such score sheet.",
        "sheet/unknown-code": "No score sheet has this code.",
        "sheet/taken": "Another sheet already has this id.",
        "sheet/broken": "This sheet cannot be loaded.",
    }
)
# Profiles (server/profiles): made, proved by a device, moved by a link.
ERROR_MESSAGES.update(
    {
        "rate/profiles": "Too many new profiles from this address: try again later.",
        "profile/none": "This device has no profile yet: play a game or choose a name first.",
        "profile/link": "This link has been used or has expired: make a new one.",
        "profile/device": "This profile is not signed in on such a device.",
        "profile/unknown": "There is no such profile.",
        "input/record": "This sheet cannot be added: it is not a finished game.",
    }
)


# Sentences the server composes itself (plot labels and the like), for the catalogs.
SERVER_STRINGS = (
    "Score of each game, oldest first, with the mean of the last ten",
    "A withdrawn player",  # a deleted profile's place on a board that never changes (server/daily/boards.py)
    "{name}'s table",  # a table made in one click: no name is stored, its pages say whose it is
)


# Plurals the server composes itself: (singular, plural), through `translations(lang).ngettext`.
SERVER_PLURALS = (("Games per band of {n} point", "Games per band of {n} points"),)


def error_message(code: str, lang: str) -> str | None:
    """The translated text for a refusal code, or None for codes without one."""
    msgid = ERROR_MESSAGES.get(code)
    return translations(lang).gettext(msgid) if msgid else None


def localize_error(data: dict, lang: str) -> dict:
    """A coded error as the client sees it: `message` in its language, the original English in `detail`."""
    text = error_message(str(data.get("code", "")), lang)
    if text is None:
        return data
    out = {**data, "message": text, "detail": data.get("message", "")}
    if isinstance(out.get("invalid"), list):
        out["invalid"] = [localize_error(x, lang) if isinstance(x, dict) else x for x in out["invalid"]]
    return out


# Strings the browser scripts show: every literal `T("...")`, `C("context", "...")` and
# `N("singular", "plural", n)` in web/static/*.js, translated on the server and handed to the page as
# JSON (no list to keep in step by hand).
_LITERAL = r'"((?:[^"\\]|\\.)*)"'
_T_CALL = re.compile(r"\bT\(\s*" + _LITERAL)
_C_CALL = re.compile(r"\bC\(\s*" + _LITERAL + r"\s*,\s*" + _LITERAL)
_N_CALL = re.compile(r"\bN\(\s*" + _LITERAL + r"\s*,\s*" + _LITERAL)


def _unescape(text: str) -> str:
    return text.encode().decode("unicode_escape") if "\\" in text else text


def _js_calls(call: re.Pattern[str]) -> list[Any]:
    found: dict[Any, None] = {}
    for path in sorted(STATIC.glob("*.js")):
        for m in call.finditer(path.read_text(encoding="utf-8")):
            groups = tuple(_unescape(g) for g in m.groups())
            found[groups[0] if len(groups) == 1 else groups] = None
    return list(found)


JS_STRINGS: list[str] = _js_calls(_T_CALL)
JS_CONTEXTS: list[tuple[str, str]] = _js_calls(_C_CALL)  # (context, text)
JS_PLURALS: list[tuple[str, str]] = _js_calls(_N_CALL)  # (singular, plural)


def js_strings(lang: str) -> dict[str, Any]:
    """What a page's `T`, `C` and `N` read (page.js): texts by their English, texts of a context under
    "context\\u0004text", plurals' forms under "singular\\u0000plural" (a list, in the catalog's order)
    and the catalog's Plural-Forms rule under "\\u0000", as gettext's own files key them."""
    tr = translations(lang)
    out: dict[str, Any] = {s: tr.gettext(s) for s in JS_STRINGS}
    out.update({f"{ctx}\u0004{s}": tr.pgettext(ctx, s) for ctx, s in JS_CONTEXTS})
    catalog = _catalog(lang)
    if catalog is not None:
        for singular, plural in JS_PLURALS:
            message = catalog.get(singular)
            if message is not None and isinstance(message.string, tuple) and all(message.string):
                out[f"{singular}\u0000{plural}"] = list(message.string)
        out["\u0000"] = catalog.plural_expr
    return out


# The daily challenge and club tournaments (server/daily).
ERROR_MESSAGES.update(
    {
        "deal/unknown": "There is no such deal or tournament.",
        "deal/not-open": "This round is not open yet.",
        "deal/closed": "This deal has closed: the game stays unfinished and does not count.",
        "deal/open": "The seed is revealed when the deal is over.",
        "deal/not-invited": "Only the tournament's players play its rounds.",
        "deal/invite": "This invite link is not valid.",
        "deal/sealed": "This deal is still open: its games are shown to their players only until it closes.",
        "deal/paused": "The organiser paused the tournament: wait for it to go on.",
        "deal/cancelled": "This round was cancelled: it counts for nobody.",
        "deal/not-organiser": "Only the tournament's organiser may do that.",
        "deal/over": "This tournament is over.",
        "deal/organiser-gone": "Its organiser has left: the tournament goes on, closed to new players.",
        "deal/removed": "The organiser removed you from this tournament.",
    }
)

# Ranked games (server/ranked).
ERROR_MESSAGES.update(
    {
        "ranked/waiting": "A ranked game starts when every seat is taken.",
        "ranked/profile": "A ranked table seats profiles, each once.",
        "ranked/preset": "Ranked games are played with the presets.",
        "ranked/none": "This table is not ranked.",
    }
)


# Numbers as each language writes them ("73,3" in nl, fr, hr, de), the same digits as the pages'
# Intl.NumberFormat (page.js `num` and `pct`): the shortest decimal that reads back as the value (what
# both Python's repr and the browser start from) rounded half away from zero, as Intl rounds (Babel
# alone would round half to even).
def _rounded(value: float, digits: int) -> Decimal:
    return Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def number(value: float, lang: str, digits: int = 1) -> str:
    """`value` with exactly `digits` decimals, in the language's own pattern and symbols."""
    return _minus(format_decimal(_rounded(value, digits), format=_pattern(lang, "decimal", digits), locale=lang), lang)


def percent(value: float, lang: str, digits: int = 0) -> str:
    """A fraction (0.625) as the language writes a percentage ("63 %" in fr), with `digits` decimals."""
    text = format_percent(_rounded(value, digits + 2), format=_pattern(lang, "percent", digits), locale=lang)
    return _minus(text, lang)


def _minus(text: str, lang: str) -> str:
    """The language's own minus sign ("−3,5" in hr and sv), which Babel's patterns leave as a hyphen."""
    sign = Locale.parse(lang).number_symbols["latn"]["minusSign"]
    return sign + text[1:] if text.startswith("-") else text


@cache
def _pattern(lang: str, kind: str, digits: int) -> NumberPattern:
    """The locale's decimal or percent pattern with exactly `digits` decimals."""
    locale = Locale.parse(lang)
    pattern = copy.copy((locale.decimal_formats if kind == "decimal" else locale.percent_formats)[None])
    pattern.frac_prec = (digits, digits)
    return pattern
