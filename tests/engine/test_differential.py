"""The engine against an independent, hard-coded implementation of docs/rules.md (oracle.py)
on random legal games of every preset and option combination, with five and six dice."""

from __future__ import annotations

import pytest

from tests.conftest import RULE_VARIANTS, play_random, variant_id
from tests.engine import oracle
from yambak.engine import state_to_record, summary
from yambak.rules import load_ruleset

GAMES = 4
# The presets oracle.py spells out (the family's newer games have their own, family_oracle.py); the
# free joker of yams is family_oracle's too.
OLD = [v for v in RULE_VARIANTS if v[0] in oracle.BONUS or v[0] == "yamb-6"]
OLD = [v for v in OLD if v[1].get("joker", "forced") == "forced"]


@pytest.mark.parametrize("six_dice", [False, True], ids=["5dice", "6dice"])
@pytest.mark.parametrize("variant", OLD, ids=variant_id)
def test_engine_agrees_with_the_oracle(variant, six_dice) -> None:  # type: ignore[no-untyped-def]
    preset, options = variant
    rules = load_ruleset(preset, options, ["six_dice"] if six_dice else None)
    for seed in range(GAMES):
        state = play_random(rules, 1 + seed % 3, seed)
        record = state_to_record(state).to_dict()  # six dice: `use` names the five the engine chose
        assert summary(state) == oracle.replay(record), f"seed {seed}"


@pytest.mark.parametrize("variant", OLD[::2], ids=variant_id)
def test_broken_records_fail_at_the_same_turn_with_the_same_code(variant) -> None:  # type: ignore[no-untyped-def]
    """Random damage to legal records: the engine and the oracle name the same first bad turn
    and, for damage to dice and boxes, the same reason."""
    import copy
    import random

    from yambak.engine import RecordError, replay

    preset, options = variant
    rules = load_ruleset(preset, options)
    boxes = [rules.box_id(b) for b in range(rules.n_boxes)]
    for seed in range(3):
        record = state_to_record(play_random(rules, 2, seed)).to_dict()
        for t in record["turns"]:  # the oracle reads rolls only (`held` is checked in test_record_held)
            t.pop("held", None)
        rng = random.Random(seed)
        for _ in range(12):
            damaged = copy.deepcopy(record)
            turn = rng.choice(damaged["turns"])
            kind = rng.randrange(4)
            if kind == 0:
                turn["box"] = rng.choice(boxes)
            elif kind == 1:
                turn["rolls"].append([rng.randint(1, 6) for _ in range(5)])
            elif kind == 2:
                turn["rolls"] = turn["rolls"][:1]
            else:
                turn["rolls"][-1] = [rng.randint(1, 6) for _ in range(5)]
            try:
                replay(damaged)
                mine = None
            except RecordError as exc:
                mine = (exc.turn, exc.code)
            expected = oracle.replay(damaged)
            theirs = (expected["error"]["turn"], expected["error"]["code"]) if "error" in expected else None
            assert mine == theirs, turn
