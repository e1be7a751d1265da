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


def test_the_end_in_dutch_as_the_keepers_page_writes_it() -> None:
    """The sentences of `gameview.end_words` in Dutch: the catalog's sentence with half points written with a
    comma, as the keeper's page writes them; one line for the line modes."""
    words = Words("nl")
    rolloff = {
        "text": "On match points, after a roll-off: {points} to {other_points}.",
        "args": {"points": 8.5, "other_points": 4},
    }
    assert words.sentence(rolloff, 2) == "Op wedstrijdpunten, na afgooien: 8,5 tegen 4."
    head = {"text": "{name} wins", "args": {"name": "Bram"}}
    said = "Het spel is uit. Bram wint. Op wedstrijdpunten, na afgooien: 8,5 tegen 4."
    assert words.end_line([head, rolloff], 2) == said
