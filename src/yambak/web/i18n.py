"""Gettext catalogs (Babel): compiled from the shipped .po files at startup, in memory.

Every user-visible string goes through `gettext`; row and column ids get the
names players know (docs/rules.md §10) through the same catalogs.
"""

from __future__ import annotations

import copy
import gettext
import hashlib
import io
import os
import re
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from babel import Locale, negotiate_locale
from babel.numbers import NumberPattern, format_decimal, format_percent

from ..gameview import END_STRINGS
from ..names import NAME_MAX
from ..rules.describe import COLUMN_PHRASES
from . import LOCALE, STATIC

if TYPE_CHECKING:  # the catalogs' reader loads with the first language other than English (the terminal's start)
    from babel.messages.catalog import Catalog

    from ..rules import Ruleset
    from ..rules.registry import PresetInfo
    from ..viewtypes import RulesLayout

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
    "two_pairs_colour": "2P col.",
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

# The presets' own texts (names, descriptions, lobby lines, option texts, row and column names) are in
# their files and read through the one registry (rules/registry.py); `make messages` puts them in the
# catalogs. Colours of pips a ruleset's [faces] may name (context "colour"); another shows as written.
COLOUR_NAMES = ("black", "red", "green", "blue", "white", "yellow")


def _preset(preset: str | None) -> PresetInfo | None:
    """The registry's entry of a preset id, or None (a custom ruleset, an unknown id)."""
    from ..rules import RulesetError
    from ..rules.registry import preset_info

    if not preset:
        return None
    try:
        return preset_info(preset)
    except RulesetError:
        return None


def lobby_blurb(preset: str, lang: str) -> str:
    info = _preset(preset)
    return translations(lang).pgettext("lobby", info.blurb) if info and info.blurb else ""


def option_value_label(value: object, lang: str, preset: str | None = None, option: str | None = None) -> str:
    """An option value as players read it: the preset file's label for it, a column's name, or the value."""
    text = str(value)
    tr = translations(lang)
    info = _preset(preset)
    label = info.value_labels.get(option or "", {}).get(text) if info else None
    if label:
        return tr.pgettext("option-value", label)
    if text in COLUMN_LABELS:
        return tr.pgettext("column", COLUMN_LABELS[text])
    return text


def _shipped(text: str, shipped: str | None, context: str, lang: str) -> str:
    """`text` translated when it is the preset file's own text (`shipped`); a user's own text (a custom
    TOML ruleset's name or description) stays as its author wrote it."""
    if shipped is None or shipped != text:
        return text
    return translations(lang).pgettext(context, text)


def ruleset_name(rules_id: str | None, name: str, lang: str) -> str:
    info = _preset(rules_id)
    return _shipped(name, info.name if info else None, "ruleset", lang)


def ruleset_description(rules_id: str | None, text: str, lang: str) -> str:
    info = _preset(rules_id)
    return _shipped(text, info.description if info else None, "ruleset", lang)


def option_description(option: str, text: str, lang: str, preset: str | None = None) -> str:
    info = _preset(preset)
    return _shipped(text, info.option_descriptions.get(option) if info else text, "option", lang)


@cache
def _catalog(lang: str) -> Catalog | None:
    path = LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == DEFAULT or not path.exists():
        return None
    from babel.messages.pofile import read_po

    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


@cache
def translations(lang: str) -> gettext.NullTranslations:
    """The language's catalog: gettext, pgettext (one English text meaning two things), ngettext and
    npgettext (plurals, by the catalog's own Plural-Forms rule)."""
    path = LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
    if lang == DEFAULT or not path.exists():
        return gettext.NullTranslations()
    source = path.read_bytes()
    cached = compiled_catalog_path(lang, hashlib.sha256(source).hexdigest()[:16])
    try:
        return gettext.GNUTranslations(io.BytesIO(cached.read_bytes()))
    except Exception:  # not compiled yet (or unreadable): compile it, and keep it for the next start
        pass
    from babel.messages.mofile import write_mo

    catalog = _catalog(lang)
    if catalog is None:  # the .po went away meanwhile
        return gettext.NullTranslations()
    buf = io.BytesIO()
    write_mo(buf, catalog)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        for old in cached.parent.glob(f"{lang}-*.mo"):  # the compilations of earlier versions of the catalog
            old.unlink(missing_ok=True)
        part = cached.with_name(f"{cached.name}.{os.getpid()}.part")
        part.write_bytes(buf.getvalue())
        part.replace(cached)  # whole or not at all, whoever else compiles it at the same time
    except OSError:  # a read-only or missing cache folder: compiled again next time, nothing lost
        pass
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def compiled_catalog_path(lang: str, digest: str) -> Path:
    """Where a language's catalog is kept compiled (gettext's .mo) under the digest of its .po: the cache
    folder the solver's tables use (`$YAMBAK_CACHE_DIR`, else `$XDG_CACHE_HOME/yambak`, else
    ~/.cache/yambak), in locale/. A start in that language reads it instead of parsing the .po (about
    60 ms of CPU); an edited catalog has another digest, so a stale file is never read."""
    if os.environ.get("YAMBAK_CACHE_DIR"):
        base = Path(os.environ["YAMBAK_CACHE_DIR"])
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "yambak"
    return base / "locale" / f"{lang}-{digest}.mo"


def pick_language(query: str | None, cookie: str | None, accept: str | None) -> str:
    for choice in (query, cookie):
        if choice in LANGUAGES:
            return choice
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


def _humane(ident: str) -> str:
    """A row or column id as a name, where nothing names it ("doble_generala": "Doble generala")."""
    text = ident.replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def labels(lang: str, rules: str | Ruleset | RulesLayout | None = None) -> dict[str, dict[str, str]]:
    """Row and column names (and their short forms) in the language. `rules`: a preset id, a `Ruleset` or
    its layout; its rows' and columns' own labels (the preset file's, or a house ruleset's) name them
    (docs/rules.md §10: the 50-point box is "Yatzy" in Swedish Yatzy, "Yamb" in Yamb), translated where
    the catalogs know the label, as written where not; an id nothing names reads as words."""
    tr = translations(lang)
    rows, short = dict(ROW_LABELS), dict(ROW_SHORT)
    columns, columns_short = dict(COLUMN_LABELS), dict(COLUMN_SHORT)
    own_rows: dict[str, str] = {}
    own_short: dict[str, str] = {}
    own_columns: dict[str, str] = {}
    ids: tuple[list[str], list[str]] = ([], [])
    if isinstance(rules, str):
        info = _preset(rules)
        if info is not None:
            own_rows, own_short, own_columns = info.row_labels, info.row_short, info.column_labels
    elif rules is not None:
        layout = rules if isinstance(rules, dict) else rules.layout()
        for r in layout.get("rows", []):
            ids[0].append(r["id"])
            if r.get("label"):
                own_rows[r["id"]] = r["label"]
            if r.get("short"):
                own_short[r["id"]] = r["short"]
        for c in layout.get("columns", []):
            ids[1].append(c["id"])
            if c.get("label"):
                own_columns[c["id"]] = c["label"]
    out_rows = {k: tr.pgettext("row", v) for k, v in rows.items()}
    out_short = {k: tr.pgettext("row-short", v) for k, v in short.items()}
    out_columns = {k: tr.pgettext("column", v) for k, v in columns.items()}
    out_columns_short = {k: tr.pgettext("column-short", v) for k, v in columns_short.items()}
    for k, v in own_rows.items():
        out_rows[k] = tr.pgettext("row", v)
        out_short[k] = tr.pgettext("row-short", own_short.get(k, v))
    for k, v in own_columns.items():
        out_columns[k] = out_columns_short[k] = tr.pgettext("column", v)
    for k in ids[0]:
        out_rows.setdefault(k, _humane(k))
        out_short.setdefault(k, out_rows[k])
    for k in ids[1]:
        out_columns.setdefault(k, _humane(k))
        out_columns_short.setdefault(k, out_columns[k])
    return {"rows": out_rows, "columns": out_columns, "rows_short": out_short, "columns_short": out_columns_short}


def error_texts(lang: str) -> dict[str, str]:
    """Every refusal code's text in the language (what a page shows for a box it cannot fill)."""
    tr = translations(lang)
    return {code: error_message(code, lang) or tr.gettext(text) for code, text in ERROR_MESSAGES.items()}


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
    "illegal/needs": "That box opens once the box it needs is filled.",
    "illegal/no-players": "A game needs at least one player.",
    "illegal/no-scratch": "This box cannot take a 0: every roll scores there.",
    "illegal/value": "No dice write that value in this box.",
    "illegal/no-undo": "Nothing to take back now: a roll has been made since.",
    "illegal/outright-wait": "A player won outright: the game ends once everybody has played that turn.",
    "seat/none-open": "Every seat at this table is taken.",
    "seat/taken": "That seat is not open.",
    "seat/not-open": "That seat is not open.",
    "seat/not-host": "Only the table's host closes an open seat.",
    "seat/started": "The game has started: give the seat to a bot instead.",
    "react/too-fast": "One reaction at a time: wait a moment.",
    "rate/limited": "Too many requests: wait a moment and try again.",
    "rate/sockets": "Too many connections from your network: close a tab or try again later.",
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
    "advice/replaced": "A newer request for advice took this one's place.",
    "record/after-game": "The record of a duplicate table is ready when the game is over.",
}
# A refused name (yambak.names: blank, invisible or too long), with the limit of the name refused (a
# player's 24, a table's 60: the refusal's `limit`).
NAME_ERROR = "Type a name of 1 to {limit} characters."
ERROR_MESSAGES["input/name"] = NAME_ERROR
ERROR_MESSAGES["illegal/not-held"] = "That die is not held."
ERROR_MESSAGES["illegal/already-held"] = "That die is held already."
# Values a message's placeholders take when the refusal does not say (a page's list of every code's text).
ERROR_DEFAULTS: dict[str, dict[str, int | str]] = {"input/name": {"limit": NAME_MAX}}
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
        "auth/sheet-token": "This phone may only watch this sheet: type its code to keep score on it.",
        "stale/ahead": "An entry before this one was not filed, so this one was not filed either.",
        "stale/undo": "Another phone changed the sheet first: nothing was undone. Look again and retry.",
    }
)
# Profiles (server/profiles): made, proved by a device, moved by a link.
ERROR_MESSAGES.update(
    {
        "rate/profiles": (
            "This device got no profile: too many new profiles were made from this address lately (a household "
            "or a class shares one). Games go on without one, but they are not kept in your games and do not "
            "enter the daily boards. Try again later, or bring a profile you have to this device: on its profile "
            "page, under “Another device”, make a link."
        ),
        "profile/none": "This device has no profile yet: play a game or choose a name first.",
        "profile/link": "This link has been used or has expired: make a new one.",
        "profile/device": "This profile is not signed in on such a device.",
        "profile/unknown": "There is no such profile.",
        "input/record": "This sheet cannot be added: it is not a finished game.",
    }
)
# The strategy page's calculator (server/routes/strategy.py).
ERROR_MESSAGES.update(
    {
        "strategy/kept": "Kept dice: type fewer than {dice} digits, each 1 to 6.",
        "strategy/rolls": "Rolls left: 1 to {limit}, and nothing kept before the first roll.",
        "strategy/unknown": "No figures are being computed under this key.",
    }
)


# Sentences the server composes itself (plot labels and the like), for the catalogs.
SERVER_STRINGS = (
    "Score of each game, oldest first, with the mean of the last ten",
    "A withdrawn player",  # a deleted profile's place on a board that never changes (server/daily/boards.py)
    "{name}'s table",  # a table made in one click: no name is stored, its pages say whose it is
    # a Web Push about a turn at an asynchronous table (server/push): its title and its line
    "Your turn",
    "Your turn ends soon",
    "{name}: it is your turn.",
    "{name}: a quarter of your time is left.",
)


# Plurals the server composes itself: (singular, plural), through `translations(lang).ngettext`.
SERVER_PLURALS = (("Games per band of {n} point", "Games per band of {n} points"),)


def error_message(code: str, lang: str, fields: Mapping[str, object] | None = None) -> str | None:
    """The translated text for a refusal code, or None for codes without one; `fields`: the refusal's
    own values for the text's placeholders (`{limit}`)."""
    msgid = ERROR_MESSAGES.get(code)
    if not msgid:
        return None
    text = translations(lang).gettext(msgid)
    if "{" not in text:
        return text
    values = {**ERROR_DEFAULTS.get(code, {}), **(fields or {})}
    try:
        return text.format(**{k: v for k, v in values.items() if isinstance(v, (int, str))})
    except (KeyError, IndexError, ValueError):
        return text


def table_title(name: str, players: list[str], lang: str) -> str:
    """A table's name as its pages and pushes say it: its own, or (made in one click: none is stored) after
    whoever sits first now, so that a deleted player's name goes with their seat's."""
    if name:
        return name
    _ = translations(lang).gettext
    return _("{name}'s table").format(name=players[0] if players else _("Player"))


def localize_error(data: Mapping[str, object], lang: str) -> Mapping[str, object]:
    """A coded error as the client sees it: `message` in its language, the original English in `detail`."""
    text = error_message(str(data.get("code", "")), lang, data)
    if text is None:
        return data
    out = {**data, "message": text, "detail": data.get("message", "")}
    invalid = out.get("invalid")
    if isinstance(invalid, list):
        out["invalid"] = [localize_error(x, lang) if isinstance(x, dict) else x for x in invalid]
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


def _js_calls(call: re.Pattern[str]) -> list[tuple[str, ...]]:
    """The literal arguments of every call in the scripts, each call's once, in the order first met."""
    found: dict[tuple[str, ...], None] = {}
    for path in sorted(STATIC.glob("*.js")):
        for m in call.finditer(path.read_text(encoding="utf-8")):
            found[tuple(_unescape(g) for g in m.groups())] = None
    return list(found)


# and what the rule describer says of a column (a layout's `notes`, worded by page.js `phrase`), and the
# end of a game as `yambak.gameview.end_words` words it (the keeper's sheet view carries it). The scripts
# are read when one of these is first used (`__getattr__`), not by every import: the terminal's first
# screen does not wait for them.
JS_STRINGS: list[str]
JS_CONTEXTS: list[tuple[str, str]]  # (context, text)
JS_PLURALS: list[tuple[str, str]]  # (singular, plural)


class _Scripts(TypedDict):
    JS_STRINGS: list[str]
    JS_CONTEXTS: list[tuple[str, str]]
    JS_PLURALS: list[tuple[str, str]]


@cache
def _scripts_strings() -> _Scripts:
    return {
        "JS_STRINGS": list(dict.fromkeys([g[0] for g in _js_calls(_T_CALL)] + COLUMN_PHRASES + list(END_STRINGS))),
        "JS_CONTEXTS": [(g[0], g[1]) for g in _js_calls(_C_CALL)],
        "JS_PLURALS": [(g[0], g[1]) for g in _js_calls(_N_CALL)],
    }


def __getattr__(name: str) -> list[str] | list[tuple[str, str]]:
    if name == "JS_STRINGS":
        return _scripts_strings()["JS_STRINGS"]
    if name in ("JS_CONTEXTS", "JS_PLURALS"):
        return _scripts_strings()["JS_CONTEXTS" if name == "JS_CONTEXTS" else "JS_PLURALS"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def js_strings(lang: str) -> dict[str, str | list[str]]:
    """What a page's `T`, `C` and `N` read (page.js): texts by their English, texts of a context under
    "context\\u0004text", plurals' forms under "singular\\u0000plural" (a list, in the catalog's order)
    and the catalog's Plural-Forms rule under "\\u0000", as gettext's own files key them."""
    tr = translations(lang)
    scripts = _scripts_strings()
    out: dict[str, str | list[str]] = {s: tr.gettext(s) for s in scripts["JS_STRINGS"]}
    out.update({f"{ctx}\u0004{s}": tr.pgettext(ctx, s) for ctx, s in scripts["JS_CONTEXTS"]})
    catalog = _catalog(lang)
    if catalog is not None:
        for singular, plural in scripts["JS_PLURALS"]:
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
        "ranked/window": "This table's players are not near your rating: use Play ranked.",
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
    pattern: NumberPattern = copy.copy((locale.decimal_formats if kind == "decimal" else locale.percent_formats)[None])
    pattern.frac_prec = (digits, digits)
    return pattern


# Groups of kept sheets: a club's or a family's season (server/keeper/groups.py).
ERROR_MESSAGES.update(
    {
        "group/unknown": "There is no such group.",
        "group/unknown-code": "No group has this code.",
        "auth/group-token": "This phone has not joined this group: type the group's code first.",
    }
)
