"""The terminal game: people type, bots take their seats' turns."""

from __future__ import annotations

from typing import Any

from yambak.engine import SeededDice
from yambak.rules import load_ruleset
from yambak.terminal.game import GameSession


def test_person_against_bot_to_the_end() -> None:
    rules = load_ruleset("yams")
    s = GameSession(rules, ["Ann", "Bot"], {1: "greedy"}, dice=SeededDice(3), seed=3)
    assert s.handle("chance").startswith("Refused: roll the dice")
    out = s.handle("r")
    assert "roll 1  (2 left)" in out
    assert "[" in s.handle("h 1 2")
    assert "roll 2" in s.handle("r")
    assert s.handle("k 1 2 3 4 5").startswith("Refused: every die is held")
    assert s.handle("bogus words here").startswith("Refused: there is no box 'bogus words here'")
    turns = 0
    while not s.state.finished:
        s.handle("r")
        box = next(iter(s.state.preview()))
        out = s.handle(box)
        turns += 1
        assert "(bot)" in out or s.state.finished
    assert turns == 13 and "Grand total" in s.view() and "chance" not in s.view()  # the sheets by their names
    ann, bot = s.state.totals()
    assert ann != bot  # these dice: no shared win
    top, other = ("Ann", "Bot") if ann > bot else ("Bot", "Ann")
    said = f"Game over. {top} wins. On points: {max(ann, bot)} to {min(ann, bot)}."  # what decided it
    assert s.view().endswith(said) and other not in said
    assert s.state.sheets[1].full


def test_line_mode_in_dutch_names_the_boxes_and_takes_what_players_say() -> None:
    """--lang nl: the offers and the entries read the sheet's Dutch names, not ids; a label, an alias
    ("vier gelijke", four of a kind) and an id all name a box."""
    s = GameSession(load_ruleset("yams"), ["Bea"], {}, dice=SeededDice(3), seed=3, lang="nl")
    shown = s.handle("r")
    assert "free." not in shown and "=" not in shown
    assert shown.splitlines()[1].startswith("  Kleine straat 30, Kans 12, Tweeën 4"), shown  # yams' Dutch labels
    four = s.state.preview()["free.four_kind"]
    assert s.handle("vier gelijke").splitlines()[0] == f"  Bea: Carré, {four}"  # an alias; the Dutch label shown
    assert "free.four_kind" not in s.state.legal_boxes(0)
    s.handle("r")
    assert s.handle("Kans").startswith("  Bea: Kans, ")  # the label, any case
    s.handle("r")
    assert s.handle("free.ones").startswith("  Bea: Enen, ")  # ids still work
    s.handle("r")
    assert s.handle("four of a kind") == "Geweigerd: Dat vak is al ingevuld."  # that box is written, said in Dutch


def test_line_mode_speaks_dutch_from_the_catalogs() -> None:
    """--lang nl: the prompts, the roll line, the bots' moves and the refusals in Dutch (the catalogs'
    sentences), the saved rolls counted in them too; English keeps the engine's own words."""
    s = GameSession(load_ruleset("maxi-yatzy"), ["Bea", "Bot"], {1: "greedy"}, dice=SeededDice(3), seed=3, lang="nl")
    assert s.view() == "Bea is aan de beurt: r om te gooien." and s.prompt() == "Bea, r om te gooien> "
    assert s.handle("r").startswith("Bea  worp 1  (nog 2)   ")
    assert s.prompt() == "Bea, worp 2 of een vak> "
    assert s.handle("vijven vijven") == "Geweigerd: Dat vak staat niet op dit blad."
    out = s.handle("kans").splitlines()  # Bea writes, the bot plays its turn, Bea is to roll again
    entry = s.state.history[1]
    bot = f"  Bot (bot): {s.box(entry.box)}, {s.state.total(1)}   stenen {' '.join(map(str, entry.rolls[-1]))}"
    assert out[0].startswith("  Bea: Kans, ") and out[1] == bot and out[2] == "Bea is aan de beurt: r om te gooien."
    for n in (1, 2, 3, 4, 5):  # three rolls a turn and two saved by Bea's first turn of one roll
        assert s.handle("r").startswith(f"Bea  worp {n}  (nog {5 - n})   ")
    assert s.prompt() == "Bea, kies een vak> "
    assert s.handle("r") == "Geweigerd: Geen worpen meer: kies een vak."
    sheet = s.handle("sheet").splitlines()  # the sheets by their Dutch names, not ids
    kans = next(line for line in sheet if line.startswith("Kans "))
    assert kans.split()[-1] == str(s.state.sheets[0].written[s.state.rules.box_index("free", "chance")])
    assert "chance" not in s.handle("sheet") and any(line.startswith("Eindtotaal ") for line in sheet)
    english = GameSession(load_ruleset("maxi-yatzy"), ["Ann"], {}, dice=SeededDice(3), seed=3, lang="en")
    for _ in range(3):
        english.handle("r")
    assert english.handle("r") == "Refused: no rolls left: 3 per turn and 0 saved; choose a box"


def test_maxi_yatzy_counts_the_saved_rolls() -> None:
    """Rolls left in the turn: the turn's own three and the rolls saved from earlier turns."""
    s = GameSession(load_ruleset("maxi-yatzy"), ["Ann"], {}, dice=SeededDice(3), seed=3)
    s.handle("r")
    s.handle("chance")  # after one roll of three: two saved
    assert s.state.sheets[0].saved == 2
    assert "roll 1  (4 left)" in s.handle("r")
    for n in (2, 3, 4):
        assert f"roll {n}  ({5 - n} left)" in s.handle("r")
    assert "roll 5  (0 left)" in s.handle("r")
    assert s.handle("r").startswith("Refused: ")


def test_an_entry_line_names_the_points_of_an_early_roll() -> None:
    from yambak.engine import ManualDice, new_game, play_turn, typed_turn
    from yambak.gameview import game_view
    from yambak.rules import load_ruleset
    from yambak.terminal.view import by_roll

    # Generala's straight: 25 served (roll 1), 20 later; the line says which roll paid, and nothing for 20
    state = new_game(load_ruleset("generala"), ["Ana", "Leo"], dice=ManualDice())
    state = play_turn(state, typed_turn(state, (1, 2, 3, 4, 5), 1, "free.straight"))
    state = play_turn(state, typed_turn(state, (2, 3, 4, 5, 6), 3, "free.straight"))
    view = game_view(state)
    assert [state.sheets[p].written[state.rules.parse_box("free.straight") or 0] for p in (0, 1)] == [25, 20]
    assert by_roll(view, 0, "free.straight") == " (the points of roll 1)" and by_roll(view, 1, "free.straight") == ""


def test_the_line_modes_help_in_dutch() -> None:
    """`help` in `yambak play --plain --lang nl`: every command's explanation from the Dutch catalog, no
    English left, BOX said as the Dutch prompts say it ("a VAK"), and no line wider than 78 columns."""
    from yambak.terminal.words import GAME_HELP
    from yambak.web.i18n import translations

    dutch = translations("nl").gettext
    s = GameSession(load_ruleset("yams"), ["Bea"], {}, dice=SeededDice(3), seed=3, lang="nl")
    shown = s.handle("help")
    flat = " ".join(shown.split())
    for _, text in GAME_HELP:
        assert dutch(text) != text and " ".join(dutch(text).split()) in flat, text
        assert text not in flat
    assert "  a VAK " in shown and "  s VAK " in shown and " BOX" not in shown
    assert max(map(len, shown.splitlines())) <= 78
    english = GameSession(load_ruleset("yams"), ["Ann"], {}, lang="en").handle("help")
    assert "  k 1 3  keep dice 1 and 3 and roll the others" in english.splitlines()


def test_the_players_not_named_are_named_in_the_language(monkeypatch: Any, capsys: Any) -> None:
    """`yambak play --plain --lang nl --bots easy hard`: the person and the bots not named get the catalog's
    Dutch names, and the first lines are Dutch; `help` through the command line too."""
    import io

    from yambak.cli import main
    from yambak.web.i18n import translations

    dutch = translations("nl").gettext
    monkeypatch.setattr("sys.stdin", io.StringIO("help\nquit\n"))
    assert main(["play", "--plain", "--lang", "nl", "--bots", "easy", "hard", "--seed", "4"]) == 0
    first, turn, *rest = capsys.readouterr().out.splitlines()
    named = (("Player", "1"), ("Easy bot", "1"), ("Hard bot", "2"))
    you, easy, hard = (dutch(f"{who} {{n}}").replace("{n}", n) for who, n in named)
    assert you != "Player 1" and easy != "Easy bot 1"
    assert first == f"Yams / Yahtzee: {you}, {easy}, {hard}. Typ help voor de commando's."
    assert turn == f"{you} is aan de beurt: r om te gooien."
    assert any(line.startswith("  k 1 3  " + dutch("keep dice 1 and 3 and roll the others")) for line in rest)
