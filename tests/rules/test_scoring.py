"""Row kinds score exactly as docs/rules.md §2 and the presets of section 9 say."""

from __future__ import annotations

import pytest

from yambak.rules import load_ruleset, row_score


def score(preset: str, row: str, dice: tuple[int, ...], roll: int = 3, **options: object) -> int:
    rules = load_ruleset(preset, options)
    return row_score(rules.rows[rules.row_index[row]], dice, roll)


@pytest.mark.parametrize(
    "preset, row, dice, expected",
    [
        ("yams", "fours", (4, 4, 4, 1, 2), 12),
        ("yams", "three_kind", (6, 6, 6, 5, 4), 27),  # seed 001: sum of all five
        ("yams", "four_kind", (5, 5, 5, 5, 2), 22),
        ("yams", "four_kind", (5, 5, 5, 2, 2), 0),
        ("yams", "full_house", (2, 2, 3, 3, 3), 25),
        ("yams", "full_house", (3, 3, 3, 3, 3), 0),  # five of a kind is never a full house
        ("yams", "small_straight", (3, 4, 5, 6, 6), 30),
        ("yams", "small_straight", (1, 2, 3, 5, 6), 0),
        ("yams", "large_straight", (2, 3, 4, 5, 6), 40),
        ("yams", "yam", (2, 2, 2, 2, 2), 50),
        ("yams", "chance", (1, 2, 3, 4, 6), 16),
        ("yatzy", "one_pair", (1, 1, 1, 1, 1), 2),
        ("yatzy", "one_pair", (3, 3, 5, 5, 1), 10),
        ("yatzy", "two_pairs", (1, 5, 5, 6, 6), 22),
        ("yatzy", "two_pairs", (1, 1, 1, 1, 1), 0),
        ("yatzy", "two_pairs", (1, 5, 5, 5, 5), 0),
        ("yatzy", "two_pairs", (2, 2, 3, 3, 3), 10),  # a full house holds two pairs
        ("yatzy", "three_kind", (4, 4, 4, 4, 1), 12),
        ("yatzy", "four_kind", (4, 4, 4, 4, 4), 16),
        ("yatzy", "small_straight", (1, 2, 3, 4, 5), 15),
        ("yatzy", "small_straight", (2, 3, 4, 5, 6), 0),
        ("yatzy", "large_straight", (2, 3, 4, 5, 6), 20),
        ("yatzy", "full_house", (2, 2, 6, 6, 6), 22),
        ("yams-fr", "three_kind", (6, 6, 6, 5, 4), 18),  # seed 002: sum of those three
        ("yams-fr", "small_straight", (1, 2, 3, 4, 5), 30),
        ("yams-fr", "small_straight", (2, 3, 4, 5, 6), 0),
        ("yams-de", "full_house", (2, 2, 6, 6, 6), 42),
        ("yams-de", "straight", (1, 2, 3, 4, 5), 45),
        ("yams-de", "yam", (6, 6, 6, 6, 6), 70),
        ("yammen", "straight", (1, 2, 3, 4, 6), 0),  # four in a row is nothing
        ("yammen", "straight", (2, 3, 4, 5, 6), 30),
        ("yammen", "full_house", (1, 1, 2, 2, 2), 20),
        ("yammen", "yam", (1, 1, 1, 1, 1), 40),
        ("yamb", "two_pairs", (1, 5, 5, 6, 6), 32),  # seed 004: 15566 is 32
        ("yamb", "two_pairs", (1, 5, 5, 5, 5), 0),  # seed 004: 15555 scores nothing
        ("yamb", "full_house", (2, 2, 6, 6, 6), 52),
        ("yamb", "four_kind", (3, 3, 3, 3, 6), 58),
        ("yamb", "yam", (6, 6, 6, 6, 6), 80),
    ],
)
def test_row_scores(preset: str, row: str, dice: tuple[int, ...], expected: int) -> None:
    assert score(preset, row, dice) == expected


def test_yamb_straight_by_roll_and_four_kind_option() -> None:
    assert [score("yamb", "straight", (1, 2, 3, 4, 5), roll) for roll in (1, 2, 3)] == [66, 56, 46]
    assert score("yamb", "four_kind", (3, 3, 3, 3, 6), four_kind="four") == 52


def test_yams_de_flat_bonus() -> None:
    assert score("yams-de", "full_house", (2, 2, 6, 6, 6), flat_bonus=True) == 20
    assert score("yams-de", "yam", (1, 1, 1, 1, 1), flat_bonus=True) == 40


def test_joker_counts_a_yam_as_full_house_and_straights() -> None:
    rules = load_ruleset("yams")
    rows = {r.id: r for r in rules.rows}
    dice = (3, 3, 3, 3, 3)
    assert row_score(rows["full_house"], dice, joker=True) == 25
    assert row_score(rows["large_straight"], dice, joker=True) == 40
    assert row_score(rows["large_straight"], dice, joker=False) == 0
