"""The terminal's words: the catalogs' plural forms, chosen as the pages choose them, numbers as each
language writes them."""

from __future__ import annotations

from yambak.terminal.words import Words


def test_points_take_the_languages_plural_forms_and_number_format() -> None:
    shown = {
        lang: [Words(lang).plural("{n} pt", "{n} pts", n) for n in (1, 2, 5, 12.5, 21)] for lang in ("en", "fr", "hr")
    }
    assert shown["en"] == ["1 pt", "2 pts", "5 pts", "12.5 pts", "21 pts"]
    assert shown["fr"] == ["1 pt", "2 pts", "5 pts", "12,5 pts", "21 pts"]
    # Croatian has three forms: 1 and 21 one, 2 another, 5 and 12 a third
    assert shown["hr"][0].startswith("1 ") and shown["hr"][4] == "21" + shown["hr"][0][1:]
    assert len({s.split(" ", 1)[1] for s in shown["hr"]}) == 3 and shown["hr"][3].startswith("12,5 ")
