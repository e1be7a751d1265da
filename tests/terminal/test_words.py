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


def test_the_terminal_results_say_won_outright_not_the_total() -> None:
    """docs/rules.md §7: the results screen words a win at once as a win ("served Generala")."""
    from types import SimpleNamespace

    from yambak.engine import ManualDice, Roll, Score, new_game
    from yambak.gameview import game_view
    from yambak.rules import load_ruleset
    from yambak.terminal.app import TableApp
    from yambak.terminal.words import Words

    rules = load_ruleset("generala")
    state = new_game(rules, ["Ann", "Bo"], dice=ManualDice())
    for seat, dice, box in ((0, (6, 6, 6, 6, 5), "sixes"), (1, (2, 2, 2, 2, 2), "yam")):
        state, _ = state.apply(Roll(seat, dice=dice))
        state, _ = state.apply(Score(seat, box))
    words = Words("en", rules)
    app = SimpleNamespace(current_view=game_view(state), words=words, review_text="", face=None)
    app._box = lambda box: words.box(box, 1)
    text = TableApp._results_text(app)  # type: ignore[arg-type]
    assert "Bo wins\n" in text and "Won outright: served Generala." in text and "wins with" not in text
