"""The score-keeper's core (yambak.keeper): entries, rebasing, zeros and strikes, roll-offs, previews
that say what an entry does, corrections, statistics and box names people type."""

from __future__ import annotations

import ast
import dataclasses
import random
from itertools import combinations_with_replacement
from pathlib import Path

import pytest

from tests.conftest import play_random
from yambak.engine import IllegalAction, ManualDice, Roll, new_game, play_turn, replay, scratch_turn, state_to_record
from yambak.engine.record import GameRecord
from yambak.gameview import end_words
from yambak.keeper import (
    Refusal,
    apply_entry,
    check_rebase,
    fix_options,
    new_sheet,
    preview,
    record_dict,
    resolve_box,
    rolloffs_due,
    sheet_view,
    statistics,
    unique_names,
    zero_boxes,
)
from yambak.keeper.browser import call
from yambak.keeper.entries import apply_all, zero_turn
from yambak.keeper.view import decided
from yambak.rules import RulesetError, load_ruleset, preset_ids

CORE = Path(__file__).resolve().parents[2] / "src" / "yambak" / "keeper"


def sheet(preset="yams", players=("Ann", "Bram"), **options):
    return new_sheet({"preset": preset, "options": options, "players": list(players)})


def dice(state, d, box, roll=1, **extra):
    p = state.current
    return apply_entry(
        state,
        {"kind": "dice", "seat": p, "filled": state.sheets[p].turns, "dice": d, "roll": roll, "box": box, **extra},
    )


def test_the_core_is_pure_python_for_the_phone():
    """Pyodide runs these files: stdlib, rules, engine, names, inputs and the sheet view and its types only (no
    numpy, pydantic, server); the bundle holds the same (server/keeper/bundle.py)."""
    allowed = {"yambak.engine", "yambak.rules", "yambak.names", "yambak.gameview", "yambak.viewtypes", "yambak.inputs"}
    for path in CORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                target = "yambak." + (node.module or "") if node.level == 2 else "yambak.keeper"
                assert target == "yambak.keeper" or target.split(".")[:2] in ([a.split(".") for a in allowed]), (
                    path.name,
                    target,
                )
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                for name in names:
                    assert name.split(".")[0] in {
                        "__future__",
                        "json",
                        "tomllib",
                        "collections",
                        "dataclasses",
                        "typing",
                    }, name


def test_names_are_checked_once_and_never_twice():
    assert unique_names([" Ann ", "Bram"]) == ["Ann", "Bram"]
    for bad, code in ((["Ann", "ann"], "keeper/same-name"), ([], "input/players"), (["\u200b"], "input/name")):
        with pytest.raises(Refusal) as exc:
            unique_names(bad)
        assert exc.value.code == code
    with pytest.raises(Refusal) as exc:
        unique_names(["A"] * 17)
    assert exc.value.code == "input/players"
    with pytest.raises(Refusal) as exc:
        new_sheet({"preset": "nope", "players": ["Ann"]})
    assert exc.value.code == "input/rules"


def test_a_late_entry_is_rebased_only_while_it_is_that_players_same_turn():
    s = sheet()
    ann = {"kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 1, 2], "box": "sixes"}
    after = apply_entry(s, ann)
    with pytest.raises(Refusal) as exc:  # another phone's Ann entry for the same turn
        check_rebase(after, {**ann, "box": "chance"})
    assert exc.value.code == "stale/overtaken" and exc.value.extra["current"] == 1
    check_rebase(after, {"kind": "dice", "seat": 1, "filled": 0})  # Bram's turn: still his
    with pytest.raises(Refusal) as exc:
        check_rebase(after, {"kind": "undo", "count": 1})
    assert exc.value.code == "stale/version"
    with pytest.raises(Refusal) as exc:  # never filed under the next player
        apply_entry(after, {**ann, "box": "chance"})
    assert exc.value.code == "illegal/not-your-turn" and exc.value.extra["current"] == 1
    solo = sheet(players=("Ann",))
    once = apply_entry(solo, ann)
    with pytest.raises(Refusal) as exc:  # one player: the same turn twice is refused by its number
        apply_entry(once, {**ann, "box": "chance"})
    assert exc.value.code == "stale/overtaken"


def test_a_strike_without_dice_shows_no_dice_and_the_record_marks_it():
    s = sheet("yams-fr", players=("Ann",))
    s = apply_entry(s, {"kind": "scratch", "seat": 0, "box": "free.chance"})  # chance always scores: a strike
    turn = s.history[-1]
    assert turn.strike and turn.scratch and s.sheets[0].written[s.rules.parse_box("free.chance")] == 0
    view = sheet_view(s)
    assert view["history"][0]["dice"] is None and view["history"][0]["strike"]
    record = record_dict(s)
    assert record["turns"][0]["strike"] is True and record["turns"][0]["scratch"] is True
    assert replay(record).totals() == s.totals()


def test_scratch_turn_finds_the_same_stand_in_dice_as_a_plain_search():
    """The engine's scratch search skips dice that cannot score 0; the dice it picks are unchanged."""

    def plain(state, box):
        rules = state.rules
        index = rules.parse_box(box)
        roll = rules.columns[index // rules.n_rows].rolls or 1
        for d in combinations_with_replacement(range(1, 7), rules.rolled_dice):
            from yambak.engine import typed_turn

            turn = typed_turn(state, d, roll, box)
            try:
                after = play_turn(state, turn)
            except IllegalAction:
                continue
            if after.sheets[state.current].written[index] == 0:
                return turn.rolls
        return None

    for preset in preset_ids():
        for modifiers in ([], ["six_dice"]) if preset in ("yams", "yamb") else ([],):
            rules = load_ruleset({"preset": preset, "modifiers": modifiers})
            state = play_random(rules, 1, seed=3, steps=9)
            state = replay(state_to_record(state).__class__(rules.spec, state.players, state_to_record(state).turns))
            for box in [rules.box_id(b) for b in range(rules.n_boxes)]:
                try:
                    fast = scratch_turn(state, box).rolls
                except IllegalAction:
                    fast = None
                assert fast == plain(state, box), (preset, modifiers, box)


@pytest.mark.parametrize("preset", sorted(preset_ids()))
def test_previews_and_zeros_say_what_the_entry_does(preset):
    rng = random.Random(preset)
    rules = load_ruleset(preset)
    state = new_game(rules, ["Ann", "Bram"], dice=ManualDice())
    for _ in range(24):
        if state.finished:
            break
        d = [rng.randint(1, 6) for _ in range(rules.rolled_dice)]
        roll = rng.randint(1, rules.rolls_per_turn)
        shown = preview(state, d, roll)["boxes"]
        zeros = zero_boxes(state)["boxes"]
        p = state.current
        for box, o in shown.items():
            try:
                after = dice(state, d, box, roll)
            except Refusal as exc:
                assert not o["legal"] and o["code"] == exc.code, (box, o, exc.code)
                continue
            assert o["legal"], box
            assert o["written"] == after.sheets[p].written[rules.parse_box(box)]
            assert o["gain"] == after.total(p) - state.total(p)
        for box, o in zeros.items():
            try:
                after = apply_entry(state, {"kind": "scratch", "seat": p, "box": box})
            except Refusal:
                assert not o["legal"], box
                continue
            assert o["legal"] and o["gain"] == after.total(p) - state.total(p), box
        legal = [b for b, o in shown.items() if o["legal"]]
        if legal:
            state = dice(state, d, rng.choice(legal), roll)
        else:
            state = apply_entry(
                state, {"kind": "scratch", "seat": p, "box": rng.choice([b for b, o in zeros.items() if o["legal"]])}
            )


def test_corrections_offer_the_boxes_that_can_take_the_entry_and_drop_roll_offs():
    s = sheet()
    s = dice(s, [6, 6, 6, 1, 2], "sixes")
    s = dice(s, [1, 2, 3, 4, 5], "large_straight")
    s = dice(s, [5, 5, 5, 5, 5], "yam")
    options = fix_options(s, 1, [3, 3, 3, 1, 2], 1)["boxes"]
    assert options["free.threes"] == {"legal": True, "written": 9, "gain": 9} and options["free.yam"]["legal"]
    assert "free.sixes" not in [b for b, o in fix_options(s, 3, [2, 2, 2, 2, 2], 1)["boxes"].items() if o["legal"]]
    zeros = fix_options(s, 1, None)["boxes"]
    assert not zeros["free.chance"]["legal"] and zeros["free.yam"]["legal"]
    fixed = apply_entry(s, {"kind": "fix", "turn": 1, "dice": [3, 3, 3, 1, 2], "roll": 1, "box": "threes"})
    assert fixed.totals() == [9 + 50, 40]


def test_roll_offs_are_entered_on_the_sheet_undone_first_and_kept_through_a_correction():
    rules = load_ruleset("yammen")
    s = new_game(rules, ["Ann", "Bram"], dice=ManualDice())
    while not s.finished:  # both players score the same everywhere: every column ties
        p = s.current
        zeros = [b for b, o in zero_boxes(s)["boxes"].items() if o["legal"]]
        if zeros:
            s = apply_entry(s, {"kind": "scratch", "seat": p, "box": zeros[0]})
            continue
        for roll in (1, 2):
            legal = [b for b, o in preview(s, [1, 1, 1, 2, 2], roll)["boxes"].items() if o["legal"]]
            if legal:
                s = dice(s, [1, 1, 1, 2, 2], legal[0], roll)
                break
    due = rolloffs_due(s)
    assert due and all(seats == [0, 1] for seats in due.values()) and "total" in due
    assert sheet_view(s)["rolloff_due"] == due and s.match_points() == [12.5, 12.5]
    assert decided(s) == {"by": "shared", "next": None}
    target = next(iter(due))
    with pytest.raises(Refusal) as exc:
        apply_entry(s, {"kind": "rolloff", "target": target, "rolloff": {"0": [6] * 5}})
    assert exc.value.code == "input/invalid"
    tied = apply_entry(s, {"kind": "rolloff", "target": target, "rolloff": {"0": [3] * 5, "1": [3] * 5}})
    assert rolloffs_due(tied)[target] == [0, 1]  # still tied: roll again
    won = apply_entry(tied, {"kind": "rolloff", "target": target, "rolloff": {"0": [6] * 5, "1": [1] * 5}})
    assert target not in rolloffs_due(won) and won.column_winners()[target] == [0]
    assert won.match_points()[0] > 12.5
    assert sheet_view(won)["decided"] == {"by": "rolloff", "next": 1}  # level but for the roll-off
    points = won.match_points()
    assert points[0] + points[1] == 25 and points[0] > points[1]  # every column's points, Ann's the more
    assert sheet_view(won)["end"] == [  # the words the page and the terminal both show
        {"text": "{name} wins", "args": {"name": "Ann"}},
        {
            "text": "On match points, after a roll-off: {points} to {other_points}.",
            "args": {"points": points[0], "other_points": points[1]},
        },
    ]
    view = sheet_view(won)
    assert view["rolloffs"][target][1]["0"] == {"dice": [6] * 5, "pips": 30}
    assert len(record_dict(won)["rolloffs"][target]) == 2
    undone = apply_entry(won, {"kind": "undo", "count": 1})  # the last round goes first
    assert rolloffs_due(undone)[target] == [0, 1] and len(undone.history) == len(won.history)
    both = apply_entry(won, {"kind": "rolloff", "target": "free", "rolloff": {"0": [2] * 5, "1": [5] * 5}})
    assert target == "down" and s.history[0].box == "down.ones"
    same = apply_entry(both, {"kind": "fix", "turn": 1, "box": "down.ones"})  # the 0 again: every tie stands
    assert same.rolloffs == both.rolloffs and same.match_points() == both.match_points()
    # Ann's ones now score 3: down and the total are hers, the free column's roll-off still stands
    fixed = apply_entry(both, {"kind": "fix", "turn": 1, "box": "down.ones", "dice": [1, 1, 1, 2, 2], "roll": 1})
    assert [t for t, _ in fixed.rolloffs] == ["free"] and fixed.column_winners()["free"] == [1]
    assert "down" not in rolloffs_due(fixed) and "total" not in rolloffs_due(fixed) and "up" in rolloffs_due(fixed)
    assert decided(fixed) == {"by": "match_points", "next": 1}  # down and the total: no roll-off needed


def test_what_decided_a_game_on_points_and_announced_turns_in_the_history():
    def finish(state, first):  # each player's first box from `first`, then a 0 wherever one goes
        while not state.finished:
            p = state.current
            if p in first:
                state = dice(state, first.pop(p), "chance")
                continue
            box = next(b for b, o in zero_boxes(state)["boxes"].items() if o["legal"])
            state = apply_entry(state, {"kind": "scratch", "seat": p, "box": box})
        return state

    assert decided(sheet()) is None  # not over yet
    won = finish(sheet(), {0: [6, 6, 6, 6, 5], 1: [6, 6, 6, 6, 4]})
    assert won.totals() == [29, 28] and sheet_view(won)["decided"] == {"by": "points", "next": 1}
    assert [(s["text"], s["args"]) for s in sheet_view(won)["end"]] == [
        ("{name} wins", {"name": "Ann"}),
        ("On points: {total} to {other}.", {"total": 29, "other": 28}),
    ]
    level = finish(sheet(players=("Ann", "Bram", "Cas")), {0: [6, 6, 6, 6, 5], 1: [6, 6, 6, 5, 6], 2: [1] * 5})
    assert decided(level) == {"by": "shared", "next": 2}  # Ann and Bram at 29: never "Ann wins"
    assert [(s["text"], s["args"]) for s in end_words(level)] == [
        ("{names} share the win", {"names": "Ann, Bram"}),
        ("Level on points: {total} each.", {"total": 29}),
    ]
    assert decided(finish(sheet(players=("Ann",)), {0: [1] * 5}))["by"] == "alone"
    served = dice(dice(sheet("generala"), [1, 2, 3, 4, 6], "ones"), [4] * 5, "yam", 1)  # Bram's served generala
    assert served.finished and decided(served) == {
        "by": "outright", "next": 0, "seats": [1], "turn": 1, "box": "free.yam", "by_roll": 1,
    }  # fmt: skip
    assert end_words(served) == [
        {"text": "{name} wins", "args": {"name": "Bram"}},
        {"text": "Won outright: served {box}.", "args": {"box": "free.yam"}},
    ]
    s = sheet("yammen", ("Ann", "Bram"))
    s = dice(s, [6, 6, 6, 6, 6], "annonce.yam", 3)  # an announce box after roll 1: announced at the table
    s = dice(s, [6, 6, 6, 6, 6], "annonce.yam", 1)  # on roll 1: announced and scored at once, not marked
    assert [h["announced"] for h in sheet_view(s)["history"]] == [True, False]


def test_undo_counts_and_refusals():
    s = dice(sheet(), [6, 6, 6, 1, 2], "sixes")
    with pytest.raises(Refusal) as exc:
        apply_entry(s, {"kind": "undo", "count": 2})
    assert exc.value.code == "keeper/nothing-to-undo" and exc.value.extra["available"] == 1
    assert apply_entry(s, {"kind": "undo", "count": 1}).history == ()
    for bad in ({"kind": "teleport"}, {"kind": "dice", "seat": 0, "box": "chance"}, {"kind": "fix", "turn": 9}):
        with pytest.raises(Refusal):
            apply_entry(s, bad)


def test_minimax_and_zeroed_boxes_keep_their_written_values():
    s = sheet("yamb", players=("Ana",))
    for d, box in (([1, 1, 1, 2, 3], "down.ones"), ([1, 1, 2, 2, 2], "up.yam")):
        s = dice(s, d, box)
    for d, box in (([2, 2, 2, 2, 3], "free.ones"), ([6, 6, 6, 5, 5], "free.max"), ([1, 1, 2, 2, 3], "free.min")):
        s = dice(s, d, box)
    free = sheet_view(s)["players"][0]["columns"]["free"]
    assert free["boxes"]["max"] == {"score": 0, "written": 28, "why": "minimax"}
    assert free["boxes"]["min"] == {"score": 0, "written": 9, "why": "minimax"}
    assert free["minimax_of"] == [28, 9, 0] and free["minimax"] == 0
    fr = sheet("yams-fr", players=("Ann",), columns=1)
    fr = dice(fr, [6, 6, 5, 5, 4], "max")
    fr = dice(fr, [6, 6, 6, 5, 5], "min")  # max <= min: both score 0, their written sums stay readable
    boxes = sheet_view(fr)["players"][0]["columns"]["free"]["boxes"]
    assert boxes["max"] == {"score": 0, "written": 26, "why": "zeroed"}
    assert boxes["min"] == {"score": 0, "written": 28, "why": "zeroed"}


def test_statistics_per_player_and_ruleset():
    records = []
    for seed in range(3):
        state = play_random(load_ruleset("yams"), 2, seed=seed)
        record = state_to_record(state)
        records.append(GameRecord(record.rules, ("Ann", "Bram" if seed else "bram"), record.turns).to_dict())
    yammen = play_random(load_ruleset("yammen"), 2, seed=1)
    records.append(state_to_record(yammen).to_dict())
    records.append({"format": "nope"})
    stats = statistics(records)
    assert stats["games"] == 4 and stats["skipped"] == 1
    yams = next(g for g in stats["groups"] if g["preset"] == "yams")
    assert yams["games"] == 3
    bram = next(p for p in yams["players"] if p["name"].casefold() == "bram")
    assert bram["games"] == 3 and bram["name"] == "Bram" and len(bram["totals"]) == 3
    assert bram["best"] == max(bram["totals"]) and abs(bram["mean"] - sum(bram["totals"]) / 3) < 0.06
    assert 0 <= bram["bonus_rate"] <= 1 and 0 <= bram["yam_rate"] <= 1
    assert sum(p["wins"] for p in yams["players"]) >= 3


def test_statistics_keep_six_dice_sheets_apart():
    """A six-dice sheet is another game than yams: its own group, never merged into yams' figures."""
    plain = state_to_record(play_random(load_ruleset("yams"), 2, seed=1)).to_dict()
    six = state_to_record(play_random(load_ruleset("yams", modifiers=["six_dice"]), 2, seed=2)).to_dict()
    stats = statistics([plain, six])
    groups = {g["rules"]: g for g in stats["groups"]}
    assert sorted(groups) == ["yams", "yams six_dice"]
    assert groups["yams"]["games"] == groups["yams six_dice"]["games"] == 1
    assert groups["yams six_dice"]["modifiers"] == ["six_dice"] and groups["yams"]["modifiers"] == []


def test_box_names_as_people_type_them():
    yammen = load_ruleset("yammen")
    assert resolve_box(yammen, "free.sixes") == "free.sixes"
    assert resolve_box(yammen, "FREE.Sixes") == "free.sixes"
    assert resolve_box(yammen, "f.6") == "free.sixes"
    assert resolve_box(yammen, "fr.si") == "free.sixes"
    assert resolve_box(yammen, "endeux.straight") == "en_deux.straight"
    assert resolve_box(yammen, "sixes", fits=["free.sixes", "free.ones"]) == "free.sixes"
    with pytest.raises(Refusal) as exc:
        resolve_box(yammen, "sixes", fits=["free.sixes", "poot.sixes"])
    assert exc.value.code == "input/box-ambiguous" and exc.value.extra["candidates"] == ["free.sixes", "poot.sixes"]
    with pytest.raises(Refusal) as exc:
        resolve_box(yammen, "free.f")
    assert set(exc.value.extra["candidates"]) == {"free.fours", "free.fives", "free.full_house"}
    with pytest.raises(Refusal) as exc:
        resolve_box(yammen, "nowhere")
    assert exc.value.code == "illegal/box-unknown"
    yams = load_ruleset("yams")
    assert resolve_box(yams, "ch") == "free.chance" and resolve_box(yams, "6") == "free.sixes"
    yamb = load_ruleset("yamb", {"extra": ["updown"]})
    assert resolve_box(yamb, "up.yam") == "up.yam"  # an exact name wins over a longer one (updown)
    with pytest.raises(Refusal):
        resolve_box(yamb, "u.yam")


def test_the_browser_entry_point_never_raises_and_caches_the_queue():
    made = __import__("json").loads(call('{"op": "new", "spec": {"preset": "yams", "players": ["Ann", "Bram"]}}'))
    assert made["ok"] and made["players"] == ["Ann", "Bram"]
    import json

    sheet_ = {"id": "local-1", "v": 0, "name": "S", "record": made["record"]}
    queue = [
        {"id": "e1", "kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 1, 2], "roll": 1, "box": "sixes"},
        {"id": "e2", "kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 1, 2], "roll": 1, "box": "sixes"},
        {"id": "e3", "kind": "dice", "seat": 1, "filled": 0, "dice": [5, 5, 5, 1, 2], "roll": 1, "box": "fives"},
    ]
    out = json.loads(call(json.dumps({"op": "view", "sheet": sheet_, "queue": queue})))
    assert [r["ok"] for r in out["results"]] == [True, False, True]
    assert out["results"][1]["error"]["code"] == "illegal/not-your-turn"
    assert [p["total"] for p in out["view"]["players"]] == [18, 15]
    again = json.loads(call(json.dumps({"op": "view", "sheet": sheet_, "queue": queue})))
    assert again == out
    for bad in ("", "[]", '{"op": "nope"}', '{"op": "view"}', '{"op": "preview", "sheet": {"record": 3}}'):
        assert json.loads(call(bad))["ok"] is False


def test_saved_rolls_open_later_roll_numbers_on_the_pad() -> None:
    """Maxi Yatzy kept for real dice: a turn of one roll saves two, so that player's next turn may be typed
    with up to five rolls (and is checked against it)."""
    from yambak.engine import ManualDice, new_game, play_turn, typed_turn

    s = new_game(load_ruleset("maxi-yatzy"), ["Ann", "Bram"], dice=ManualDice())
    s = play_turn(s, typed_turn(s, (1, 2, 3, 4, 5, 6), 1, "full_straight"))
    view = sheet_view(s)
    assert sorted(view["players"][0]["fillable"], key=int) == ["1", "2", "3", "4", "5"]
    assert view["players"][0]["saved_rolls"] == 2 and view["players"][1]["saved_rolls"] == 0
    s = play_turn(s, typed_turn(s, (2, 2, 3, 3, 5, 5), 3, "three_pairs"))
    s = play_turn(s, typed_turn(s, (6, 6, 6, 6, 6, 6), 5, "yam"))  # Ann's saved rolls used
    assert s.sheets[0].saved == 0 and s.total(0) == 121


def test_a_game_won_outright_is_decided_outright_not_on_points():
    """The headline's `decided` (docs/rules.md §7): a served generala wins at once, alone or not, and says
    the box and the roll it had to be made by, so that no face shows a total as the reason."""
    two = dice(sheet("generala", ("Ann", "Bram")), [1, 2, 3, 4, 6], "ones")
    two = dice(two, [5, 5, 5, 5, 5], "yam")
    assert two.finished and two.totals() == [1, 50]
    assert decided(two) == {"by": "outright", "next": 0, "seats": [1], "turn": 1, "box": "free.yam", "by_roll": 1}
    alone = dice(sheet("generala", ("Ann",)), [2, 2, 2, 2, 2], "yam")
    assert decided(alone) == {"by": "outright", "next": None, "seats": [0], "turn": 1, "box": "free.yam", "by_roll": 1}
    late = dice(sheet("generala", ("Ann",)), [2, 2, 2, 2, 2], "yam", 2)  # on roll 2: 50 points, no win
    assert not late.finished and decided(late) is None


def test_a_correction_is_previewed_on_the_sheet_before_that_entry():
    """`fix_options` answers as `preview` (or `zero_boxes`) would on the sheet as it was before the entry,
    with the roll number typed, and names the entry; an entry that is not there is refused."""
    fresh = sheet("yams-fr", ("Ann", "Bram"))
    s = dice(dice(fresh, [6, 6, 6, 1, 2], "free.sixes"), [1, 2, 3, 4, 5], "free.chance")
    for roll in (1, 2):  # the dry column takes only a first roll's dice
        fix = fix_options(s, 1, [3, 3, 3, 1, 2], roll)
        assert fix["turn"] == 1 and fix["seat"] == 0
        assert fix["boxes"] == preview(fresh, [3, 3, 3, 1, 2], roll)["boxes"]
        assert fix["boxes"]["dry.threes"]["legal"] is (roll == 1)
    assert fix_options(s, 1, [3, 3, 3, 1, 2]) == fix_options(s, 1, [3, 3, 3, 1, 2], 1)  # no roll typed: the first
    assert preview(fresh, [3, 3, 3, 1, 2]) == preview(fresh, [3, 3, 3, 1, 2], 1)
    zeros = fix_options(s, 2, None)
    assert zeros["turn"] == 2 and zeros["seat"] == 1
    assert zeros["boxes"] == zero_boxes(dice(fresh, [6, 6, 6, 1, 2], "free.sixes"))["boxes"]
    for turn in (0, 3, "1", None):
        with pytest.raises(Refusal) as exc:
            fix_options(s, turn, [3, 3, 3, 1, 2])
        assert exc.value.code == "keeper/no-entry" and str(exc.value) == f"there is no entry {turn} to correct"


def test_a_game_won_outright_can_still_be_corrected():
    """Generala served on Bram's first roll ends the game at once; correcting that entry previews it on the
    sheet before it, where the game is not over (the record's outright win left out)."""
    served = dice(dice(sheet("generala"), [1, 2, 3, 4, 6], "ones"), [4] * 5, "yam", 1)
    assert served.finished and served.current == 0  # Ann would be next
    assert preview(served, [4] * 5) == zero_boxes(served) == {"seat": 0, "boxes": {}}  # nothing more to enter
    fix = fix_options(served, 2, [4] * 5, 1)
    assert fix["seat"] == 1 and fix["boxes"]["free.fours"] == {"legal": True, "written": 20, "gain": 20}


def test_the_history_lists_every_entry_as_entered():
    s = dice(sheet(), [6, 6, 6, 1, 2], "sixes", 2)  # Ann, on her second roll
    s = apply_entry(s, {"kind": "scratch", "seat": 1, "box": "ones"})  # Bram's 0 without dice
    first, second = sheet_view(s)["history"]
    assert first == {
        "n": 1,
        "player": 0,
        "dice": [6, 6, 6, 1, 2],
        "roll": 2,
        "box": "free.sixes",
        "strike": False,
        "scratch": False,
        "announced": False,
        "written": 18,
    }
    assert second["n"] == 2 and second["player"] == 1 and second["box"] == "free.ones"
    assert second["dice"] is None and second["scratch"] is True and second["written"] == 0


def test_the_sheet_view_names_the_sheet_and_each_players_own_fillable_boxes():
    """French Yams, Ann's ones down: her down column goes on with twos, Bram's still starts at ones; the dry
    column takes a first roll only. The sheet's id, name and version are what the caller gives (none: blank)."""
    s = dice(sheet("yams-fr"), [1, 1, 2, 3, 4], "down.ones")
    bare = sheet_view(s)
    assert (bare["id"], bare["name"], bare["v"]) == ("", "", 0)
    named = sheet_view(s, id="s1", name="Friday", v=7)
    assert (named["id"], named["name"], named["v"]) == ("s1", "Friday", 7) and named["record"] == record_dict(s)
    ann, bram = (p["fillable"] for p in named["players"])
    assert sorted(ann) == sorted(bram) == ["1", "2", "3"]
    assert "down.twos" in ann["1"] and "down.ones" not in ann["1"]
    assert "down.ones" in bram["1"] and "down.twos" not in bram["1"]
    assert "dry.ones" in ann["1"] and not [b for b in ann["2"] + ann["3"] if b.startswith("dry.")]


def _refused(call, *args, **kwargs) -> Refusal:  # type: ignore[no-untyped-def]
    with pytest.raises(Refusal) as exc:
        call(*args, **kwargs)
    return exc.value


def test_a_new_sheets_refusals_say_what_is_wrong():
    """The code, the message and the fields a phone words its own message from, for each thing a new sheet
    can get wrong; and a sheet made from a ruleset object (a record's `rules`), options applied."""
    fr = new_sheet({"rules": {"preset": "yams-fr", "options": {"columns": 1}}, "players": ["Ann"]})
    assert [c.id for c in fr.rules.columns] == ["free"] and fr.players == ("Ann",)
    some = [f"P{i}" for i in range(16)]
    assert unique_names(some) == some  # 16 players: the most a sheet has
    assert unique_names(some[:3], limit=3) == some[:3]
    for players, limit in ((some + ["P16"], 16), (some[:3], 2), ([], 16), ("Ann", 16), (5, 16)):
        refusal = _refused(unique_names, players, limit)
        assert refusal.to_dict() == {"code": "input/players", "message": f"a sheet has 1 to {limit} players"}
        assert refusal.status == 422 and str(refusal) == refusal.message  # unprocessable input, said as itself
    refusal = _refused(new_sheet, {"preset": "yams", "players": ["Ann", "Bram", "Cas"]}, limit=2)
    assert refusal.message == "a sheet has 1 to 2 players"
    refusal = _refused(unique_names, ["Ann", " "])
    assert refusal.to_dict() == {"code": "input/name", "message": "player 2 name must not be empty", "seat": 1,
                                 "limit": 24}  # fmt: skip
    assert _refused(unique_names, ["Ann", "B" * 25]).message == "player 2 name is at most 24 characters"
    refusal = _refused(unique_names, ["Ann", "Bram", " bram "])
    assert refusal.to_dict() == {"code": "keeper/same-name", "message": "two players are called bram", "name": "bram",
                                 "seat": 2}  # fmt: skip
    for spec, message in (
        ({"preset": "yams", "options": 5}, "not a ruleset: options must be a table"),
        ({"rules": 5}, "rules: must be a preset id or a table"),
        ({}, "choose a ruleset"),
    ):
        refusal = _refused(new_sheet, {**spec, "players": ["Ann"]})
        assert refusal.to_dict() == {"code": "input/rules", "message": message}, spec
    with pytest.raises(RulesetError) as unknown:
        load_ruleset("nope")
    assert _refused(new_sheet, {"preset": "nope", "players": ["Ann"]}).message == str(unknown.value)


def test_a_stale_entry_is_refused_with_the_player_to_enter_now():
    after = dice(sheet(), [6, 6, 6, 1, 2], "sixes")
    refusal = _refused(check_rebase, after, {"kind": "dice", "seat": 0, "filled": 0, "box": "chance"})
    assert (refusal.code, refusal.status, refusal.extra) == ("stale/overtaken", 409, {"current": 1})
    assert refusal.message == "another phone entered this turn first: it is Bram's turn now"
    over = dice(dice(sheet("generala"), [1, 2, 3, 4, 6], "ones"), [4] * 5, "yam", 1)  # won outright: over
    refusal = _refused(check_rebase, over, {"kind": "dice", "seat": 0, "filled": 1, "box": "chance"})
    assert refusal.code == "stale/overtaken" and refusal.extra == {}  # nobody is to enter
    refusal = _refused(check_rebase, after, {"kind": "fix", "turn": 1})
    assert (refusal.code, refusal.status) == ("stale/version", 409)
    assert refusal.message == "the sheet changed on another phone: this change was not applied"


def test_a_queue_of_entries_reports_each_by_its_id():
    s = sheet()
    queue = [
        {"id": "q1", "kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 1, 2], "box": "sixes"},
        {"id": "q2", "kind": "dice", "seat": 0, "filled": 1, "dice": [1] * 5, "box": "ones"},  # Bram's turn now
        {"id": "q3", "kind": "scratch", "seat": 1, "box": "ones"},
    ]
    state, results = apply_all(s, queue)
    assert [t.box for t in state.history] == ["free.sixes", "free.ones"]
    error = {"code": "illegal/not-your-turn", "message": "it is Bram's turn (seat 1)", "current": 1}
    assert results == [{"id": "q1", "ok": True}, {"id": "q2", "ok": False, "error": error}, {"id": "q3", "ok": True}]


def test_a_correction_that_would_break_later_entries_names_them():
    """French Yams' down column fills from the top: Ann's ones moved out of it leave her later twos and threes
    there out of order. The refusal names both, each with the engine's own refusal of such an entry."""
    s = sheet("yams-fr")
    for d, box in (
        ([1, 1, 2, 3, 4], "down.ones"),
        ([1, 1, 1, 2, 2], "free.ones"),
        ([2, 2, 3, 4, 5], "down.twos"),
        ([2, 2, 2, 2, 2], "free.twos"),
        ([3, 3, 3, 4, 5], "down.threes"),
    ):
        s = dice(s, d, box)
    twos, threes = (
        _refused(dice, sheet("yams-fr"), d, box) for d, box in (([2] * 5, "down.twos"), ([3] * 5, "down.threes"))
    )
    refusal = _refused(
        apply_entry, s, {"kind": "fix", "turn": 1, "dice": [1, 1, 2, 3, 4], "roll": 1, "box": "free.ones"}
    )
    assert (refusal.code, refusal.status) == ("keeper/breaks-later", 409)
    assert refusal.message == "this correction would make entries 3, 5 illegal: not applied"
    assert refusal.extra == {"invalid": [{"turn": 3, "code": twos.code, "message": twos.message},
                                         {"turn": 5, "code": threes.code, "message": threes.message}]}  # fmt: skip
    assert twos.code == threes.code == "illegal/box-order"
    for turn, extra in ((9, {"turn": 9}), ("x", {})):
        refusal = _refused(apply_entry, s, {"kind": "fix", "turn": turn, "box": "free.ones"})
        assert (refusal.code, refusal.message) == ("keeper/no-entry", f"there is no entry {turn} to correct")
        assert refusal.extra == extra


def test_the_entry_that_won_outright_can_be_corrected():
    served = dice(dice(sheet("generala"), [1, 2, 3, 4, 6], "ones"), [4] * 5, "yam", 1)  # Bram's served generala
    fixed = apply_entry(served, {"kind": "fix", "turn": 2, "dice": [4] * 5, "roll": 1, "box": "fours"})
    assert not fixed.finished and fixed.totals() == [1, 20] and fixed.current == 0


def test_a_roll_off_for_nothing_tied_is_refused_naming_the_target_cut_short():
    refusal = _refused(apply_entry, sheet(), {"kind": "rolloff", "target": "t" * 30, "rolloff": {"0": [6] * 5}})
    assert (refusal.code, refusal.message) == ("keeper/no-rolloff", f"no roll-off is due for {'t' * 20!r}")


def test_an_undo_of_no_entries_or_of_a_count_not_a_whole_number_is_refused():
    s = dice(sheet(), [6, 6, 6, 1, 2], "sixes")
    for count in (0, -1, "1", 1.0, True, None):
        refusal = _refused(apply_entry, s, {"kind": "undo", "count": count})
        assert refusal.to_dict() == {"code": "input/invalid", "message": "undo takes back 1 or more entries"}, count
    assert apply_entry(s, {"kind": "undo"}).history == ()  # one by default


def test_the_record_of_a_sheet_holds_completed_turns_only():
    """A kept sheet's record (record_dict): the turns done, never one in progress (a live game's roll)."""
    state = new_game(load_ruleset("yams"), ["Ann"], dice=ManualDice())
    state = play_turn(state, scratch_turn(state, "free.ones"))
    rolling, _ = state.apply(Roll(0, dice=(6, 6, 6, 1, 2)))
    assert state_to_record(rolling).pending  # the engine's own record keeps the roll
    record = record_dict(rolling)
    assert "pending" not in record and [t["box"] for t in record["turns"]] == ["free.ones"]
    assert record == record_dict(state)


def test_an_entrys_refusals_say_what_is_wrong_and_whose_turn_it_is():
    """Each refusal of a turn entry with its code, message, status and the fields a phone words its own
    message from; the sheet is never changed (a refused entry raises)."""
    s = dice(sheet(), [6, 6, 6, 1, 2], "sixes")  # Ann has entered once: Bram's turn
    cases = [
        ({"kind": "teleport"}, {"code": "input/invalid", "message": "no entry of kind 'teleport'"}, 422),
        ({"kind": "k" * 30}, {"code": "input/invalid", "message": f"no entry of kind {'k' * 20!r}"}, 422),
        ({"seat": 1, "box": "chance"}, {"code": "input/invalid", "message": "no entry of kind 'None'"}, 422),
        ({"kind": "dice", "seat": 0, "dice": [1] * 5, "box": "ones"},
         {"code": "illegal/not-your-turn", "message": "it is Bram's turn (seat 1)", "current": 1}, 409),
        ({"kind": "dice", "seat": 1, "filled": 1, "dice": [1] * 5, "box": "ones"},
         {"code": "stale/overtaken", "message": "this turn of Bram was entered already", "current": 1}, 409),
        ({"kind": "scratch", "seat": 1, "filled": 1, "box": "ones"},
         {"code": "stale/overtaken", "message": "this turn of Bram was entered already", "current": 1}, 409),
        ({"kind": "dice", "seat": 1, "dice": [1] * 5}, {"code": "input/invalid", "message": "an entry names its box"},
         422),
        ({"kind": "dice", "seat": 1, "dice": [1] * 5, "box": ""},
         {"code": "input/invalid", "message": "an entry names its box"}, 422),
        ({"kind": "dice", "seat": 1, "dice": [1] * 5, "box": 3},
         {"code": "input/invalid", "message": "an entry names its box"}, 422),
        ({"kind": "dice", "seat": 1, "dice": [1] * 4, "box": "ones"},
         {"code": "input/dice", "message": "type all 5 dice", "n": 5}, 422),
        ({"kind": "dice", "seat": 1, "dice": 11111, "box": "ones"},
         {"code": "input/dice", "message": "type all 5 dice", "n": 5}, 422),
        ({"kind": "dice", "seat": 1, "box": "ones"}, {"code": "input/dice", "message": "type all 5 dice", "n": 5}, 422),
    ]  # fmt: skip
    for bad in ([1, 1, 1, 1, 7], [0, 1, 1, 1, 1], [1, 1, 1, 1, True], [1, 1, 1, 1, 1.0], [1, 1, 1, 1, "1"]):
        cases.append(({"kind": "dice", "seat": 1, "dice": bad, "box": "ones"},
                      {"code": "input/invalid", "message": "dice are 1 to 6"}, 422))  # fmt: skip
    for entry, said, status in cases:
        refusal = _refused(apply_entry, s, entry)
        assert (refusal.to_dict(), refusal.status) == (said, status), entry
    # the engine's refusals come back as the keeper's, with the engine's code and message
    refusal = _refused(apply_entry, s, {"kind": "dice", "seat": 1, "dice": [1] * 5, "box": "nope"})
    assert refusal.to_dict() == {"code": "illegal/box-unknown", "message": 'there is no box "nope" on this sheet'}


def test_an_entry_without_filled_is_taken_for_the_seat_to_act_with_its_roll_and_strike():
    s = sheet("yams-fr", players=("Ann",))
    s = apply_entry(s, {"kind": "dice", "seat": 0, "dice": [6, 6, 6, 6, 2], "box": "free.sixes"})  # roll 1 by default
    assert s.history[-1].rolls == ((6, 6, 6, 6, 2),) and s.totals() == [24]
    s = apply_entry(s, {"kind": "dice", "seat": 0, "filled": 1, "dice": [1, 2, 3, 4, 6], "box": "free.chance",
                        "strike": True})  # fmt: skip
    assert s.history[-1].strike and s.totals() == [24]  # struck: 0 in chance
    s = apply_entry(s, {"kind": "dice", "seat": 0, "dice": [5, 5, 5, 1, 2], "roll": 2, "box": "free.fives"})
    assert len(s.history[-1].rolls) == 2 and s.totals() == [24 + 15]
    refusal = _refused(apply_entry, s, {"kind": "dice", "seat": 0, "dice": [5] * 5, "roll": "2", "box": "free.ones"})
    # a roll number that is not a number is taken as roll 0, which the engine refuses (3 rolls a turn)
    assert (refusal.code, refusal.message) == ("illegal/no-rolls-left", "the roll number is 1 to 3, not 0")
    finished = sheet(players=("Ann",))
    for row in finished.rules.rows:
        finished = dice(finished, [1, 2, 3, 4, 6], row.id)
    refusal = _refused(apply_entry, finished, {"kind": "scratch", "seat": 0, "box": "ones"})
    assert (refusal.to_dict(), refusal.status) == (
        {"code": "illegal/game-over", "message": "the game is over: undo or correct an entry"}, 422)  # fmt: skip


def test_a_0_without_dice_is_a_scratch_where_one_is_possible_else_a_strike_on_the_columns_rolls():
    """Stand-in dice for a 0: a scratch (dice that score 0 there) where some exist; else, where any box may be
    struck, a strike with ones on every roll the column plays (yammen's en deux plays two), marked as such."""
    rules = dataclasses.replace(load_ruleset("yammen"), strike_any=True)
    s = new_game(rules, ["Ann"], dice=ManualDice())
    ones = (1,) * 5
    assert zero_turn(s, "en_deux.plus").rolls == (ones, ones)  # every roll scores in plus: struck
    assert zero_turn(s, "poot.plus").rolls == zero_turn(s, "free.plus").rolls == (ones,)
    assert all(zero_turn(s, box).strike and zero_turn(s, box).scratch for box in ("en_deux.plus", "free.plus"))
    scratch = zero_turn(s, "free.ones")  # dice without a one score 0 there: no strike
    assert not scratch.strike and scratch.scratch and 1 not in scratch.rolls[-1]
    with pytest.raises(IllegalAction) as unknown:
        zero_turn(s, "free.nope")
    assert unknown.value.code == "illegal/box-unknown"
    refusal = _refused(apply_entry, sheet(), {"kind": "scratch", "seat": 0, "box": "chance"})  # yams: no strikes
    assert refusal.code == "illegal/no-scratch"
    assert refusal.message == "free.chance cannot be scratched: every roll scores there"
    fr = sheet("yams-fr", players=("Ann",))
    fixed = apply_entry(apply_entry(fr, {"kind": "scratch", "seat": 0, "box": "dry.chance"}),
                        {"kind": "fix", "turn": 1, "box": "dry.sixes"})  # fmt: skip
    assert fixed.history[0].box == "dry.sixes" and fixed.history[0].scratch and fixed.totals() == [0]


def test_a_correction_with_every_roll_typed_keeps_the_rolls():
    s = sheet("yams-fr", players=("Ann",))
    s = apply_entry(s, {"kind": "dice", "seat": 0, "dice": [6, 6, 6, 1, 2], "box": "free.sixes"})
    rolls = [[6, 6, 1, 2, 3], [6, 6, 6, 2, 3], [6, 6, 6, 6, 3]]
    fixed = apply_entry(s, {"kind": "fix", "turn": 1, "rolls": rolls, "box": "free.sixes"})
    assert fixed.history[0].rolls == tuple(tuple(r) for r in rolls) and fixed.totals() == [24]
    one = apply_entry(s, {"kind": "fix", "turn": 1, "rolls": [[5, 5, 5, 5, 2]], "box": "free.fives"})
    assert one.history[0].rolls == ((5, 5, 5, 5, 2),) and one.totals() == [20]
    refusal = _refused(apply_entry, s, {"kind": "fix", "turn": 1, "rolls": [[6, 6, 6]], "box": "free.sixes"})
    assert refusal.to_dict() == {"code": "input/dice", "message": "type all 5 dice", "n": 5}
    as_text = apply_entry(s, {"kind": "fix", "turn": 1, "rolls": "66612", "dice": [5] * 5, "box": "free.fives"})
    assert as_text.history[0].rolls == ((5,) * 5,) and as_text.totals() == [25]  # rolls as text: not rolls
