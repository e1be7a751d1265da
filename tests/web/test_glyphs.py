"""No symbol on a page that a plain system without an emoji font draws as a missing-glyph box: every
character past Latin in the page scripts, styles, templates and catalogs is one DejaVu Sans has (the
sans-serif of a bare Linux, shipped with matplotlib); the clock and the bot's mark are drawn in CSS."""

from __future__ import annotations

from pathlib import Path

import matplotlib
from fontTools.ttLib import TTFont

from yambak.web import LOCALE, STATIC, TEMPLATES


def _texts() -> dict[str, str]:
    files = [p for p in STATIC.glob("*") if p.suffix in (".js", ".css") and not p.name.startswith("protocol")]
    files += list(TEMPLATES.glob("*.html")) + list(LOCALE.glob("*/LC_MESSAGES/*.po"))
    return {p.name if p.suffix != ".po" else f"{p.parts[-3]}.po": p.read_text(encoding="utf-8") for p in files}


def test_every_symbol_on_the_pages_has_a_glyph_without_an_emoji_font():
    font = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    cmap = TTFont(str(font)).getBestCmap()
    missing = {
        (name, f"U+{ord(c):04X} {c}")
        for name, text in _texts().items()
        for c in set(text)
        if ord(c) >= 0x2000 and ord(c) not in cmap and c not in "\u2028\u2029"
    }
    assert missing == set()


def test_the_check_sees_a_missing_glyph():
    font = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    cmap = TTFont(str(font)).getBestCmap()
    assert ord("⏱") not in cmap and ord("⚑") in cmap  # the clock the table used to write, a flag it keeps
