"""Presets load with every option; user rulesets are validated with errors that name the key."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import RULE_VARIANTS, variant_id
from yambak.engine import ManualDice, Roll, Score, new_game
from yambak.rules import RulesetError, load_ruleset, load_ruleset_file, parse_options, preset_ids


def test_presets() -> None:
    assert {"yamb", "yamb-6", "yammen", "yams", "yams-de", "yams-fr", "yatzy"} <= set(preset_ids())
    assert {"kniffel", "yacht", "generala", "maxi-yatzy", "kismet"} <= set(preset_ids())
    columns = {p: [c.id for c in load_ruleset(p).columns] for p in preset_ids()}
    assert columns["yammen"] == ["down", "free", "up", "poot", "en_deux", "annonce"]
    assert columns["yams-de"] == ["normal", "down", "up", "oblige"]
    assert columns["yams-fr"] == ["down", "free", "up", "dry"]
    assert columns["yamb-6"] == ["down", "up", "free", "announce", "updown", "middle"]
    assert [len(load_ruleset(p).rows) for p in ("yams", "yatzy", "yams-fr", "yams-de", "yammen", "yamb")] == [
        13,
        15,
        15,
        11,
        11,
        13,
    ]
    assert sum(c.points for c in load_ruleset("yammen").columns) + load_ruleset("yammen").match.total_points == 25


@pytest.mark.parametrize("variant", RULE_VARIANTS, ids=variant_id)
def test_every_option_combination_loads(variant) -> None:  # type: ignore[no-untyped-def]
    preset, options = variant
    rules = load_ruleset(preset, options)
    assert rules.preset == preset
    assert load_ruleset(rules.spec).options == rules.options  # the record spec rebuilds it


def test_options_shape_the_sheet() -> None:
    assert [c.id for c in load_ruleset("yams-fr", {"columns": 1}).columns] == ["free"]
    no_mm = load_ruleset("yams-fr", {"max_min": False})
    assert "max" not in no_mm.row_index and not no_mm.relations
    assert not load_ruleset("yams-fr", {"max_gt_min": False}).relations
    assert load_ruleset("yams-de", {"strict": True}).relations[0].strict
    assert load_ruleset("yammen", {"ties": "share"}).match.ties == "share"
    assert [c.id for c in load_ruleset("yamb", {"extra": ["hand", "updown"]}).columns][4:] == ["updown", "hand"]


@pytest.mark.parametrize(
    "preset, options, key",
    [
        ("yams", {"columns": 3}, "options.columns"),
        ("yams-fr", {"columns": 2}, "options.columns"),
        ("yams-fr", {"columns": "3"}, "options.columns"),
        ("yams-fr", {"max_min": 1}, "options.max_min"),
        ("yamb", {"extra": ["sideways"]}, "options.extra"),
        ("yamb", {"extra": "updown"}, "options.extra"),
        ("yamb", {"extra": ["hand", "hand"]}, "options.extra"),
        ("nope", {}, "preset"),
    ],
)
def test_bad_options_name_the_key(preset: str, options: dict, key: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(RulesetError) as info:
        load_ruleset(preset, options)
    assert info.value.key == key and str(info.value).startswith(key + ": ")


def test_modifiers() -> None:
    rules = load_ruleset({"preset": "yams", "modifiers": ["six_dice"]})
    assert rules.rolled_dice == 6
    with pytest.raises(RulesetError, match="modifiers"):
        load_ruleset({"preset": "yams", "modifiers": ["seven_dice"]})


def test_the_variant_key_says_which_game_it_is(tmp_path: Path) -> None:
    """One key per game: options that differ from the defaults and modifiers count, however the ruleset was
    asked for; a custom ruleset's key changes with its content."""
    assert load_ruleset("yams").variant_key() == "yams"
    assert load_ruleset("yams-fr", {"columns": 4}).variant_key() == "yams-fr"  # the default
    assert load_ruleset({"preset": "yams-fr", "options": {"columns": 4}}).variant_key() == "yams-fr"
    assert load_ruleset("yams-fr", {"max_min": False, "columns": 1}).variant_key() == "yams-fr columns=1 max_min=no"
    assert load_ruleset("yamb", {"extra": ["updown", "middle"]}).variant_key() == "yamb extra=updown+middle"
    six = load_ruleset({"preset": "yams", "modifiers": ["six_dice", "duplicate"]})
    assert six.variant_key() == "yams duplicate six_dice" and six.variant_key(duplicate=False) == "yams six_dice"
    assert load_ruleset("yams", modifiers=["duplicate"]).variant_key(duplicate=False) == "yams"
    keys = [load_ruleset(p, o).variant_key() for p, o in RULE_VARIANTS]
    assert len(set(keys)) == len(keys) and all(len(k) < 120 for k in keys)  # every option variant its own game

    path = tmp_path / "tiny.toml"
    path.write_text(USER_RULESET)
    tiny = load_ruleset_file(path)
    digest = hashlib.sha1(json.dumps(tiny.spec, sort_keys=True, default=str).encode()).hexdigest()[:8]
    assert tiny.variant_key() == f"custom:Tiny Yam:{digest}"  # the form profiles' stored results are keyed by
    path.write_text(USER_RULESET.replace("points = 12", "points = 13"))
    assert load_ruleset_file(path).variant_key() != tiny.variant_key()  # an edited file is another game
    assert load_ruleset_file(path, modifiers=["six_dice"]).variant_key() != load_ruleset_file(path).variant_key()


def test_parse_options_types_values_like_their_defaults() -> None:
    assert parse_options("yams-fr", ["columns=3", "max_min=false"]) == {"columns": 3, "max_min": False}
    assert parse_options("yamb", ["extra=updown,middle"]) == {"extra": ["updown", "middle"]}
    for bad in (["columns"], ["columns=x"], ["max_min=maybe"], ["color=red"]):
        with pytest.raises(RulesetError):
            parse_options("yams-fr", bad)


USER_RULESET = """
id = "tiny"
name = "Tiny Yam"
description = "Three rows, two columns."
rolls_per_turn = 2

[upper_bonus]
threshold = 10
points = 5

[[rows]]
id = "sixes"
kind = "upper"
face = 6
[[rows]]
id = "pair"
kind = "one_pair"
points = "matched"
bonus = 1
[[rows]]
id = "run"
kind = "straight"
runs = [[1, 2, 3], [4, 5, 6]]
points = 12

[[columns]]
id = "down"
order = "down"
[[columns]]
id = "quick"
order = "free"
rolls = 1
"""


def test_user_ruleset_file_plays(tmp_path: Path) -> None:
    path = tmp_path / "tiny.toml"
    path.write_text(USER_RULESET)
    rules = load_ruleset_file(path)
    assert rules.id == "tiny" and rules.rolls_per_turn == 2 and rules.preset is None
    s = new_game(rules, ["A"], dice=ManualDice())
    s, _ = s.apply(Roll(0, dice=(6, 6, 4, 5, 1)))
    assert s.preview() == {"down.sixes": 12, "quick.sixes": 12, "quick.pair": 13, "quick.run": 12}
    s, _ = s.apply(Score(0, "quick.run"))
    assert s.total(0) == 12


@pytest.mark.parametrize(
    "change, key",
    [
        (('kind = "straight"', 'kind = "crooked"'), "rows.run.kind"),
        (("face = 6", "face = 7"), "rows.sixes.face"),
        (('order = "down"', 'order = "sideways"'), "columns.down.order"),
        (("rolls = 1", "rolls = 3"), "columns.quick.rolls"),
        (("points = 12", 'points = "lots"'), "rows.run.points"),
        (('id = "pair"', 'id = "sixes"'), "rows"),
        (("threshold = 10", "threshold = true"), "upper_bonus.threshold"),
        (('description = "Three rows, two columns."', 'colour = "red"'), "colour"),
        (("runs = [[1, 2, 3], [4, 5, 6]]", "runs = [[1, 9]]"), "rows.run.runs[1]"),
    ],
)
def test_bad_user_rulesets_name_the_key(tmp_path: Path, change: tuple[str, str], key: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(USER_RULESET.replace(*change))
    with pytest.raises(RulesetError) as info:
        load_ruleset_file(path)
    assert info.value.key == key, str(info.value)


def test_unreadable_user_rulesets(tmp_path: Path) -> None:
    with pytest.raises(RulesetError, match="cannot read"):
        load_ruleset_file(tmp_path / "missing.toml")
    (tmp_path / "broken.toml").write_text("id = ")
    with pytest.raises(RulesetError, match="not valid TOML"):
        load_ruleset_file(tmp_path / "broken.toml")


@pytest.mark.parametrize(
    "patch, key",
    [
        ({"rows": [{"id": "yam", "kind": "yam", "points": 10**26}]}, "rows.yam.points"),
        ({"rows": [{"id": "yam", "kind": "yam", "points": [50, -(10**7)]}]}, "rows.yam.points"),
        ({"rows": [{"id": "c", "kind": "sum", "bonus": 1_000_001}]}, "rows.c.bonus"),
        ({"upper_bonus": {"threshold": 63, "points": 10**9}}, "upper_bonus.points"),
        ({"upper_bonus": {"threshold": 10**9, "points": 35}}, "upper_bonus.threshold"),
        ({"upper_bonus": {"threshold": 0, "points": 35}}, "upper_bonus.threshold"),
        ({"match": {"kind": "column_points", "total_points": float("inf")}}, "match.total_points"),
        ({"match": {"kind": "column_points", "total_points": float("nan")}}, "match.total_points"),
        ({"columns": [{"id": "free", "points": 1e7}]}, "columns.free.points"),
    ],
)
def test_point_values_are_limited(patch: dict, key: str) -> None:
    """Every number that counts points stays within POINTS_LIMIT: refused with its key named."""
    from yambak.rules import POINTS_LIMIT

    data = {"id": "x", "rows": [{"id": "c", "kind": "sum"}], "columns": [{"id": "free"}], **patch}
    with pytest.raises(RulesetError) as info:
        load_ruleset(data)
    assert info.value.key == key and (
        str(POINTS_LIMIT) in str(info.value).replace(",", "") or "at least" in str(info.value)
    )
    data = {"id": "x", "rows": [{"id": "y", "kind": "yam", "points": POINTS_LIMIT}], "columns": [{"id": "free"}]}
    assert load_ruleset(data).rows[0].points == POINTS_LIMIT


def test_ruleset_files_that_are_not_text(tmp_path) -> None:
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00" * 100)
    (tmp_path / "deep.toml").write_text("a = " + "[" * 50_000 + "]" * 50_000)
    (tmp_path / "dir.toml").mkdir()
    for name, message in (("bin.toml", "not a text file"), ("deep.toml", "nested"), ("dir.toml", "cannot read")):
        with pytest.raises(RulesetError, match=message):
            load_ruleset_file(tmp_path / name)


def test_file_options_are_typed_and_kept_in_the_record_spec(tmp_path) -> None:
    from yambak.rules import load_ruleset_arg

    path = tmp_path / "r.toml"
    path.write_text(
        'id = "r"\n[[rows]]\nid = "yam"\nkind = "yam"\npoints = 50\n[[columns]]\nid = "free"\n'
        '[options.big]\ndefault = false\nvalues.true = { set = { "rows.yam.points" = 100 } }\n'
        "values.false = { set = {} }\n"
    )
    rules = load_ruleset_arg(str(path), ["big=true"])
    assert rules.rows[0].points == 100
    assert load_ruleset(rules.spec).rows[0].points == 100  # a saved game replays with the option
    with pytest.raises(RulesetError, match="unknown option"):
        load_ruleset_arg(str(path), ["small=1"])


@pytest.mark.parametrize(
    "patch, key, says",
    [
        ({"dice": 7}, "dice", "not supported"),
        ({"sides": 8}, "sides", "not supported"),
        ({"rounds": 13}, "rounds", "not supported"),
        ({"joker": {"row": "y", "forced": False}}, "joker.forced", 'placement = "forced", "free" or "none"'),
        ({"colors": ["red"]}, "colors", "[faces] colours"),
        ({"dices": 6}, "dices", "did you mean 'dice'?"),
        ({"rows": [{"id": "y", "kind": "yam", "pionts": 50}]}, "rows.y.pionts", "did you mean 'points'?"),
        ({"rows": [{"id": "y", "kind": "yahtzee"}]}, "rows.y.kind", "not one of"),
        ({"rows": [{"kind": "yam"}]}, "rows #1.id", "is required"),
        ({"rows": [{"id": "p", "kind": "three_pairs"}]}, "rows.p.kind", "needs dice = 6"),
        ({"rows": [{"id": "f", "kind": "flush"}]}, "rows.f.kind", "needs [faces] colours"),
        ({"rows": [{"id": "k", "kind": "kind", "n": 6}]}, "rows.k.n", "must be 2 to 5"),
        ({"rows": [{"id": "a", "kind": "yam", "needs": "b"}]}, "rows.a.needs", "no other row"),
        ({"modifiers": ["six_dice"], "dice": 6}, "modifiers", "not with dice = 6"),
    ],
)
def test_errors_name_rows_by_id_suggest_and_say_not_supported(patch: dict, key: str, says: str) -> None:  # type: ignore[type-arg]
    data = {"id": "x", "rows": [{"id": "y", "kind": "yam", "points": 50}], "columns": [{"id": "free"}], **patch}
    with pytest.raises(RulesetError) as info:
        load_ruleset(data)
    assert info.value.key == key and says in str(info.value), str(info.value)


def test_an_unknown_key_lists_every_allowed_key() -> None:
    with pytest.raises(RulesetError) as info:
        load_ruleset({"id": "x", "rows": [{"id": "y", "kind": "yam"}], "columns": [{"id": "free"}], "bonus": 5})
    assert "upper_bonus" in str(info.value)  # the hint for a known concept
    with pytest.raises(RulesetError) as info:
        load_ruleset({"id": "x", "rows": [{"id": "y", "kind": "yam"}], "columns": [{"id": "free"}], "zzz": 1})
    for key in ("dice", "save_rolls", "faces", "extends", "option_defaults", "modifiers", "lobby", "win_points"):
        assert key in str(info.value), key


def _two_rows(**aliases: object) -> dict[str, object]:
    return {
        "id": "aliased",
        "name": "Aliased",
        "rows": [
            {"id": "chance", "kind": "sum", "aliases": aliases},
            {"id": "quads", "kind": "kind", "n": 4, "label": "Four of a kind"},
        ],
        "columns": [{"id": "free"}],
    }


def test_row_aliases_are_read_by_language_and_checked() -> None:
    rules = load_ruleset(_two_rows(en=["luck", "  the  sum "], fr=["chance"]))
    assert rules.rows[0].aliases == (("en", ("luck", "the sum")), ("fr", ("chance",)))
    assert load_ruleset(_two_rows()).rows[0] == rules.rows[0]  # not rules: the same row either way
    for bad, where in (
        ({"xx": ["luck"]}, "rows.chance.aliases.xx"),  # not a catalog language
        ({"en": "luck"}, "rows.chance.aliases.en"),  # a list
        ({"en": ["luck", "LUCK"]}, "rows.chance.aliases.en[1]"),  # twice
        ({"en": ["\u0000"]}, "rows.chance.aliases.en[0]"),  # nothing left once cleaned
        ({"nl": ["four of a kind"]}, "rows.chance.aliases.nl"),  # another row's label
        ({"en": ["QUADS"]}, "rows.chance.aliases.en"),  # another row's id
    ):
        with pytest.raises(RulesetError) as info:
            load_ruleset(_two_rows(**bad))
        assert info.value.key == where, (bad, info.value)


def test_the_presets_say_the_common_names() -> None:
    said = {p: {n for r in load_ruleset(p).rows for _, names in r.aliases for n in names} for p in preset_ids()}
    assert {"poker", "carré", "four of a kind"} <= said["yams"] and "yahtzee" in said["yatzy"]
    assert "generala" in said["generala"] and {"yam", "yams"} <= said["yams-fr"]


@pytest.mark.parametrize(
    "typed, allowed, meant",
    [
        ("dices", ["dice", "rows"], "dice"),
        ("pionts", ["points", "kind"], "points"),  # a swap of neighbours is one edit
        ("yatzee", ["yatzy", "yams"], "yatzy"),
        ("rows_points", ["win_points", "rows", "columns"], None),  # four edits: more than a third of 11
        ("zzz", ["dice"], None),
        ("id", ["ids"], None),  # a third of two letters is no edit at all
    ],
)
def test_a_key_is_suggested_only_within_a_third_of_its_length_in_edits(
    typed: str, allowed: list[str], meant: str | None
) -> None:
    from yambak.rules.checks import nearest

    assert nearest(typed, allowed) == meant


def test_edits_counts_inserts_deletes_replacements_and_swaps() -> None:
    from yambak.rules.checks import edits

    assert [edits("", "abc"), edits("abc", ""), edits("abc", "abc")] == [3, 3, 0]
    assert [edits("kitten", "sitting"), edits("ab", "ba"), edits("rows_points", "win_points")] == [3, 1, 4]


def test_an_unrelated_key_gets_no_suggestion_but_the_allowed_list() -> None:
    with pytest.raises(RulesetError) as info:
        load_ruleset({"id": "x", "rows": [{"id": "y", "kind": "yam"}], "columns": [{"id": "free"}], "rows_points": 1})
    assert "did you mean" not in str(info.value) and "win_points" in str(info.value)
