"""Row kinds score exactly as docs/rules.md §2 and the presets of section 9 say."""

from __future__ import annotations

from dataclasses import replace

import pytest

from yambak.rules import load_ruleset, row_score
from yambak.rules.scoring import counts_of, row_met


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


def test_a_joker_yam_in_a_full_house_scored_by_its_matched_dice_scores_all_five() -> None:
    """A full house's matched dice are all five (three and two), so a yam taken as one under the joker
    (docs/rules.md §6) scores the five dice; without the joker five alike are no full house."""
    rules = load_ruleset(
        {
            "rows": [
                {"id": "threes", "kind": "upper", "face": 3},
                {"id": "full_house", "kind": "full_house", "points": "matched"},
                {"id": "yam", "kind": "yam", "points": 50},
            ],
            "columns": [{"id": "a"}],
            "joker": {"row": "yam", "bonus": 100},
        }
    )
    house = rules.rows[rules.row_index["full_house"]]
    assert row_score(house, (3, 3, 3, 3, 3), joker=True) == 3 * 5
    assert row_score(house, (6, 6, 6, 6, 6), joker=True) == 6 * 5
    assert row_score(house, (3, 3, 3, 3, 3)) == 0
    assert row_score(house, (2, 2, 3, 3, 3), joker=True) == row_score(house, (2, 2, 3, 3, 3)) == 2 * 2 + 3 * 3


# Rows the presets above leave out: an exact count (Generala's poker), coloured pips (Kismet), six dice with
# pairs, houses and matched points (Maxi Yatzy), and ones where a row looks for the highest face first. Each
# value is worked out by hand from docs/rulesets.md; they also kill mutants of rules/scoring.py (docs/testing.md).
@pytest.mark.parametrize(
    "preset, row, dice, roll, expected",
    [
        ("generala", "four_kind", (5, 5, 5, 5, 2), 1, 45),  # served: the first roll's points
        ("generala", "four_kind", (5, 5, 5, 5, 2), 2, 40),
        ("generala", "four_kind", (1, 1, 1, 1, 6), 3, 40),  # four ones are a poker too
        ("generala", "four_kind", (5, 5, 5, 5, 5), 1, 0),  # exact: five alike is a generala, not a poker
        ("generala", "full_house", (1, 1, 1, 2, 2), 9, 30),  # past the last roll's points: the last
        ("yams", "three_kind", (1, 1, 1, 2, 3), 3, 8),
        ("yams", "four_kind", (1, 1, 1, 1, 6), 3, 10),
        ("yams", "full_house", (1, 1, 1, 2, 2), 3, 25),
        ("yams", "full_house", (1, 1, 2, 2, 2), 3, 25),
        ("kismet", "two_pairs_colour", (1, 1, 3, 6, 6), 3, 17),  # 1 and 6 are both black
        ("kismet", "two_pairs_colour", (3, 3, 4, 4, 5), 3, 19),  # 3 and 4 both green
        ("kismet", "two_pairs_colour", (1, 1, 2, 2, 3), 3, 0),  # black and red
        ("kismet", "flush", (1, 1, 6, 6, 6), 3, 35),
        ("kismet", "flush", (1, 1, 6, 6, 2), 3, 0),
        ("kismet", "full_house", (2, 2, 3, 3, 3), 3, 13 + 15),
        ("kismet", "full_house_colour", (1, 1, 6, 6, 6), 3, 20 + 20),
        ("kismet", "full_house_colour", (2, 2, 5, 5, 5), 3, 19 + 20),  # both red
        ("kismet", "full_house_colour", (2, 2, 3, 3, 3), 3, 0),  # red and green
        ("kismet", "straight", (2, 3, 4, 5, 6), 3, 30),
        ("kismet", "straight", (1, 2, 3, 4, 6), 3, 0),
        ("kismet", "four_kind", (2, 2, 2, 2, 6), 3, 14 + 25),
        ("maxi-yatzy", "one_pair", (1, 2, 5, 5, 6, 6), 3, 12),  # the best pair
        ("maxi-yatzy", "two_pairs", (1, 1, 5, 5, 6, 6), 3, 22),
        ("maxi-yatzy", "two_pairs", (5, 5, 6, 6, 6, 6), 3, 22),  # two different faces
        ("maxi-yatzy", "three_pairs", (1, 1, 2, 2, 3, 3), 3, 12),
        ("maxi-yatzy", "three_pairs", (5, 5, 6, 6, 6, 6), 3, 0),
        ("maxi-yatzy", "three_kind", (5, 5, 5, 6, 6, 6), 3, 18),
        ("maxi-yatzy", "four_kind", (2, 2, 2, 2, 6, 6), 3, 8),
        ("maxi-yatzy", "five_kind", (1, 3, 3, 3, 3, 3), 3, 15),
        ("maxi-yatzy", "full_house", (5, 5, 5, 6, 6, 6), 3, 28),  # 6 6 6 and 5 5, the best of two
        ("maxi-yatzy", "full_house", (1, 1, 1, 2, 2, 3), 3, 7),
        ("maxi-yatzy", "castle", (2, 2, 2, 5, 5, 5), 3, 21),
        ("maxi-yatzy", "tower", (1, 1, 1, 1, 6, 6), 3, 16),
        ("maxi-yatzy", "tower", (1, 1, 6, 6, 6, 6), 3, 26),
        ("maxi-yatzy", "full_straight", (1, 2, 3, 4, 5, 6), 3, 21),
        ("maxi-yatzy", "small_straight", (1, 2, 3, 4, 5, 5), 3, 15),
        ("maxi-yatzy", "yam", (4, 4, 4, 4, 4, 4), 3, 100),
        ("maxi-yatzy", "yam", (4, 4, 4, 4, 4, 1), 3, 0),  # six dice: a maxi is all six
    ],
)
def test_more_row_scores(preset: str, row: str, dice: tuple[int, ...], roll: int, expected: int) -> None:
    assert score(preset, row, dice, roll) == expected


def test_row_met_says_whether_the_dice_make_the_combination() -> None:
    rules = load_ruleset("yatzy")
    rows = {r.id: r for r in rules.rows}
    assert row_met(rows["one_pair"], (4, 1, 2, 3, 1)) and not row_met(rows["one_pair"], (1, 2, 3, 4, 5))
    assert row_met(rows["small_straight"], (5, 4, 3, 2, 1)) and not row_met(rows["small_straight"], (2, 3, 4, 5, 6))
    assert row_met(rows["chance"], (1, 1, 2, 3, 6)) and row_met(rows["threes"], (1, 1, 2, 2, 6))
    kismet = {r.id: r for r in load_ruleset("kismet").rows}
    assert row_met(kismet["flush"], (3, 4, 3, 4, 4)) and not row_met(kismet["flush"], (3, 4, 5, 4, 4))
    with pytest.raises(ValueError, match="unknown row kind 'nope'"):
        row_met(replace(rows["chance"], kind="nope"), (1, 2, 3, 4, 5))


def test_counts_of_counts_each_face() -> None:
    assert counts_of((6, 1, 6, 3, 6)) == (0, 1, 0, 1, 0, 0, 3)
    assert counts_of(()) == (0,) * 7


def test_matched_points_on_a_yam_row_and_where_nothing_can_match() -> None:
    """A ruleset file may give a yam row matched points (the five dice, counted); a row kind with no matched
    dice (a straight) is refused with its kind named."""
    rows = {r.id: r for r in load_ruleset("yams").rows}
    assert row_score(replace(rows["yam"], points="matched"), (4, 4, 4, 4, 4)) == 20
    assert row_score(replace(rows["yam"], points="matched"), (1, 1, 1, 1, 1)) == 5
    with pytest.raises(ValueError, match="row kind 'straight' has no matched dice"):
        row_score(replace(rows["large_straight"], points="matched"), (2, 3, 4, 5, 6))


def test_without_a_roll_number_a_row_scores_as_after_the_third_roll() -> None:
    straight = {r.id: r for r in load_ruleset("yamb").rows}["straight"]
    by_roll = replace(straight, points=(70, 60, 50, 40))  # a ruleset file with four rolls' points
    assert row_score(by_roll, (1, 2, 3, 4, 5)) == row_score(by_roll, (1, 2, 3, 4, 5), 3) == 50
