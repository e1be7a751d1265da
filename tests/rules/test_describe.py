"""The one rule describer: every sentence it can say is a listed message, every listed message is said by
some ruleset, and what it says follows the ruleset (roll-offs repeat, their size is the ruleset's)."""

from __future__ import annotations

from tests.conftest import RULE_VARIANTS
from yambak.rules import Ruleset, load_ruleset
from yambak.rules.describe import COLUMN_PHRASES, PHRASES, Named, Phrase, describe
from yambak.text import render_rules, rule_phrase

# A house ruleset with what no preset has: a yam scored by its dice, a column filled after roll 3 only, five
# alike as a full house and a wild face in a straight.
HOUSE = {
    "id": "house",
    "name": "House",
    "rows": [
        {"id": "yam", "kind": "yam", "points": "matched", "bonus": 5},
        {"id": "three_kind", "kind": "kind", "n": 3, "points": "matched", "bonus": 2},
        {"id": "chance", "kind": "sum"},
        {"id": "full_house", "kind": "full_house", "points": 25, "five_alike": True},
        {"id": "straight", "kind": "straight", "runs": [[1, 2, 3, 4, 5]], "points": 30, "wild_faces": [1]},
    ],
    "columns": [{"id": "late", "order": "free", "rolls": 3}],
}


# Category points by rank (no preset awards them so), and a row's table of several steps.
RANKED = {
    "rows": [{"id": "chance", "kind": "sum", "category_points": {"rank": [3, 1], "table": [[20, 1], [25, 2]]}}],
    "columns": [{"id": "a"}, {"id": "b"}],
    "match": {"kind": "category_points"},
}


def _templates(phrase: Phrase) -> set[str]:
    out = {phrase.text} if phrase.translated else set()
    for _, value in phrase.args:
        if isinstance(value, Phrase):
            out |= _templates(value)
    return out


def _said(rules: Ruleset) -> set[str]:
    text = describe(rules)
    phrases = [*text.general, *(p for _, p in text.rows), *text.scoring, *text.winning]
    phrases += [n for c in text.columns for n in c.notes] + [c.points for c in text.columns if c.points]
    return set().union(*map(_templates, phrases))


def test_every_sentence_is_a_listed_message_and_every_message_is_said() -> None:
    rulesets = [load_ruleset(preset, options) for preset, options in RULE_VARIANTS]
    rulesets += [load_ruleset(HOUSE), load_ruleset(RANKED), load_ruleset("yams", modifiers=["six_dice", "duplicate"])]
    said = set().union(*map(_said, rulesets))
    assert said <= set(PHRASES), said - set(PHRASES)
    assert set(PHRASES) <= said, set(PHRASES) - said  # no message the describer cannot say


def test_roll_offs_repeat_and_their_size_is_the_ruleset_s() -> None:
    yammen = load_ruleset("yammen")
    ties = rule_phrase(describe(yammen).winning[-1])
    assert f"rolls {yammen.rolloff_dice} dice" in ties and "roll again until one wins" in ties and "once" not in ties
    shared = describe(load_ruleset("yammen", {"ties": "share"})).winning[-1]
    assert rule_phrase(shared) == "Ties: the points are shared."
    six = load_ruleset("yams", modifiers=["six_dice"])
    assert "6 dice are rolled; the 5 that count" in render_rules(six)


def test_yambak_rules_says_the_describer_s_sentences() -> None:
    rules = load_ruleset("yamb", {"extra": ["middle"]})
    out = render_rules(rules)
    text = describe(rules)
    for phrase in (*text.general, *text.scoring, *text.winning):
        assert rule_phrase(phrase) in out.splitlines()
    assert "Starting at min or max, then outward." in out  # rows by id
    assert "  two_pairs       two different pairs: their four dice + 10" in out.splitlines()


def test_a_layout_carries_each_column_s_notes_as_phrases_a_page_words() -> None:
    rules = load_ruleset("yamb", {"extra": ["middle"]})
    text = {c.id: c.notes for c in describe(rules).columns}
    for column in rules.layout()["columns"]:
        assert column["notes"] == [note.to_json() for note in text[column["id"]]]
        assert {note["t"] for note in column["notes"]} <= set(COLUMN_PHRASES)
    middle = next(c for c in rules.layout()["columns"] if c["order"] == "middle")
    first, second = (middle["notes"][0]["a"][k] for k in ("first", "second"))
    assert set(first) == {"row"} and set(second) == {"row"}  # rows stay ids: the page names them
    nested = Phrase("{a}; {b}", (("a", Phrase("x {n}", (("n", 2),))), ("b", Named("column", "down"))), False)
    assert nested.to_json() == {
        "t": "{a}; {b}",
        "a": {"a": {"t": "x {n}", "a": {"n": 2}}, "b": {"column": "down"}},
        "raw": True,
    }
