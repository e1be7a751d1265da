#!/usr/bin/env python3
"""List every user-visible msgid: `_()` calls in templates and server code, the browser strings, the
row/column labels, the terminal app's own sentences and every text of the preset files (the registry,
rules/registry.py: names, descriptions, lobby lines, option texts, row and column names).
With --update (`make messages`), add missing msgids (empty) to each catalog under web/locale."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from babel.messages.catalog import Catalog  # noqa: E402
from babel.messages.pofile import read_po, write_po  # noqa: E402

from yambak.rules.registry import preset_texts  # noqa: E402
from yambak.terminal.words import TERMINAL_STRINGS  # noqa: E402
from yambak.web import LOCALE, TEMPLATES  # noqa: E402
from yambak.web.howto import HOWTO_STRINGS  # noqa: E402
from yambak.web.i18n import (  # noqa: E402
    COLOUR_NAMES,
    COLUMN_LABELS,
    COLUMN_SHORT,
    DOMAIN,
    ERROR_MESSAGES,
    JS_CONTEXTS,
    JS_PLURALS,
    JS_STRINGS,
    LANGUAGES,
    NAME_ERROR,
    ROW_LABELS,
    ROW_SHORT,
    SERVER_PLURALS,
    SERVER_STRINGS,
)
from yambak.web.opening_words import OPENING_STRINGS  # noqa: E402

CALL = re.compile(r"""_\(\s*(["'])((?:\\.|(?!\1).)*)\1\s*\)""")
_Q = r"""(["'])((?:\\.|(?!\{q}).)*)\{q}"""  # a quoted literal: group {q} is the quote, the next its text
PCALL = re.compile(r"\bpgettext\(\s*" + _Q.format(q=1) + r"\s*,\s*" + _Q.format(q=3) + r"\s*\)")
NCALL = re.compile(r"\bngettext\(\s*" + _Q.format(q=1) + r"\s*,\s*" + _Q.format(q=3) + r"\s*,")
NPCALL = re.compile(
    r"\bnpgettext\(\s*" + _Q.format(q=1) + r"\s*,\s*" + _Q.format(q=3) + r"\s*,\s*" + _Q.format(q=5) + r"\s*,"
)


Msgid = str | tuple[str, str]  # a text, or (singular, plural)


def msgids() -> list[tuple[str | None, Msgid]]:
    """(context, msgid) pairs, a plural's msgid being (singular, plural); row and column labels carry the
    context "row" / "column", preset names and descriptions "ruleset", option descriptions "option"."""
    found: list[tuple[str | None, Msgid]] = []
    for path in sorted(TEMPLATES.glob("*.html")):
        text = path.read_text(encoding="utf-8")
        found += [(None, m.group(2)) for m in CALL.finditer(text)]
        found += [(m.group(2), m.group(4)) for m in PCALL.finditer(text)]
        found += [(None, (m.group(2), m.group(4))) for m in NCALL.finditer(text)]
        found += [(m.group(2), (m.group(4), m.group(6))) for m in NPCALL.finditer(text)]
    found += [(None, s) for s in JS_STRINGS]
    found += [(ctx, s) for ctx, s in JS_CONTEXTS]
    found += [(None, pair) for pair in JS_PLURALS]
    found += [(None, pair) for pair in SERVER_PLURALS]
    found += [(None, s) for s in HOWTO_STRINGS]
    found += [(None, s) for s in OPENING_STRINGS]  # the strategy page's derived opening rules
    found += [(None, s) for s in ERROR_MESSAGES.values()] + [(None, NAME_ERROR)]
    found += [(None, s) for s in SERVER_STRINGS]
    found += [(None, s) for s in TERMINAL_STRINGS]
    found += [("row", v) for v in ROW_LABELS.values()] + [("column", v) for v in COLUMN_LABELS.values()]
    found += [("row-short", v) for v in ROW_SHORT.values()] + [("column-short", v) for v in COLUMN_SHORT.values()]
    found += [(ctx, text) for ctx, text in preset_texts() if text]  # every preset file's texts (the registry)
    found += [("colour", v) for v in COLOUR_NAMES]
    return list(dict.fromkeys(found))


def update() -> None:
    ids = msgids()
    for lang in LANGUAGES:
        if lang == "en":
            continue
        path = LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            with path.open("rb") as f:
                catalog = read_po(f, locale=lang, domain=DOMAIN)
        else:
            catalog = Catalog(locale=lang, domain=DOMAIN, project="yambak")
        for ctx, m in ids:
            if catalog.get(m[0] if isinstance(m, tuple) else m, context=ctx) is None:
                catalog.add(m, ("",) * catalog.num_plurals if isinstance(m, tuple) else "", context=ctx)
        with path.open("wb") as f:
            write_po(f, catalog, width=120, omit_header=False)


if __name__ == "__main__":
    if "--update" in sys.argv:
        update()
    else:
        # one line each: context, msgid (and, for a plural, a third column: its plural msgid)
        print("\n".join(f"{ctx or ''}\t{m if isinstance(m, str) else chr(9).join(m)}" for ctx, m in msgids()))
