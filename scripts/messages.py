#!/usr/bin/env python3
"""List every user-visible msgid: `_()` calls in templates and server code, the browser strings, the
row/column labels, the terminal app's own sentences and the shipped presets' names and descriptions.
With --update, add missing msgids (empty) to each catalog under web/locale."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from babel.messages.catalog import Catalog  # noqa: E402
from babel.messages.pofile import read_po, write_po  # noqa: E402

from yambak.terminal.words import TERMINAL_STRINGS  # noqa: E402
from yambak.web import LOCALE, TEMPLATES  # noqa: E402
from yambak.web.howto import HOWTO_STRINGS  # noqa: E402
from yambak.web.i18n import (  # noqa: E402
    COLUMN_LABELS,
    COLUMN_SHORT,
    DOMAIN,
    ERROR_MESSAGES,
    FAMILY_ROWS,
    FAMILY_SHORT,
    JS_STRINGS,
    LANGUAGES,
    LOBBY_BLURBS,
    NAME_ERROR,
    OPTION_DESCRIPTIONS,
    OPTION_VALUES,
    PRESET_DESCRIPTIONS,
    PRESET_NAMES,
    ROW_LABELS,
    ROW_SHORT,
    SERVER_STRINGS,
)

CALL = re.compile(r"""_\(\s*(["'])((?:\\.|(?!\1).)*)\1\s*\)""")


def msgids() -> list[tuple[str | None, str]]:
    """(context, msgid) pairs; row and column labels carry the context "row" / "column", preset names and
    descriptions "ruleset", option descriptions "option"."""
    found: list[tuple[str | None, str]] = []
    for path in sorted(TEMPLATES.glob("*.html")):
        found += [(None, m.group(2)) for m in CALL.finditer(path.read_text(encoding="utf-8"))]
    found += [(None, s) for s in JS_STRINGS]
    found += [(None, s) for s in HOWTO_STRINGS]
    found += [(None, s) for s in ERROR_MESSAGES.values()] + [(None, NAME_ERROR)]
    found += [(None, s) for s in SERVER_STRINGS]
    found += [(None, s) for s in TERMINAL_STRINGS]
    found += [("row", v) for v in ROW_LABELS.values()] + [("column", v) for v in COLUMN_LABELS.values()]
    found += [("row-short", v) for v in ROW_SHORT.values()] + [("column-short", v) for v in COLUMN_SHORT.values()]
    found += [("row", v) for rows in FAMILY_ROWS.values() for v in rows.values()]
    found += [("row-short", v) for rows in FAMILY_SHORT.values() for v in rows.values()]
    found += [("ruleset", v) for v in [*PRESET_NAMES.values(), *PRESET_DESCRIPTIONS.values()]]
    found += [("option", v) for v in OPTION_DESCRIPTIONS.values()]
    found += [("option-value", v) for v in OPTION_VALUES.values()]
    found += [("lobby", v) for v in LOBBY_BLURBS.values()]
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
            if catalog.get(m, context=ctx) is None:
                catalog.add(m, "", context=ctx)
        with path.open("wb") as f:
            write_po(f, catalog, width=120, omit_header=False)


if __name__ == "__main__":
    if "--update" in sys.argv:
        update()
    else:
        print("\n".join(f"{ctx or ''}\t{m}" for ctx, m in msgids()))
