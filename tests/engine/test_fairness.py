"""Provably fair dice (engine/fairness.py): the commitment, the nonces, and a verifier that catches a changed die."""

from __future__ import annotations

import random

import pytest

from yambak.bots import random_policy
from yambak.engine import (
    FairDice,
    GameRecord,
    Nonce,
    RecordError,
    new_game,
    replay,
    state_to_record,
    verify_record,
)
from yambak.engine.dice import RollContext
from yambak.engine.fairness import SCHEME, commitment, derive
from yambak.rules import load_ruleset

SEED = "5e" * 32


def _game(preset: str = "yams", duplicate: bool = False, players: int = 2, seed: int = 1) -> dict:
    dice = FairDice(SEED, (Nonce(0, "00ff" * 8), Nonce(1, "abcdef0123456789")), duplicate)
    rules = load_ruleset(preset)
    state = new_game(rules, [f"P{i}" for i in range(players)], dice=dice, simultaneous=duplicate)
    rng = random.Random(seed)
    while not state.finished:
        seat = state.to_act()[0]
        state, _ = state.apply(random_policy(state, seat, rng))
    record = state_to_record(state).to_dict()
    record["fairness"] = dice.block(revealed=True)
    return record


def _verify(record: dict) -> list[str]:
    """What `yambak verify` finds wrong: an illegal record (a kept die that changed), or dice not from the seed."""
    parsed = GameRecord.from_dict(record)
    try:
        rules = replay(parsed).rules
    except RecordError as exc:
        return [str(exc)]
    return verify_record(parsed, rules.rolled_dice, rules.rolloff_dice)[0]


def test_dice_are_uniform_and_reproducible():
    ctx = RollContext(player=0, turn=0, roll=1, serial=7)
    dice = FairDice(SEED)
    assert dice.draw(5, ctx) == dice.draw(5, ctx)
    assert dice.draw(5, ctx) != FairDice(SEED, (Nonce(0, "1" * 16),)).draw(5, ctx)  # a nonce changes the dice
    counts = [0] * 6
    for serial in range(3000):
        for d in derive(SEED, b"", f"roll:{serial}:5", 5):
            counts[d - 1] += 1
    assert all(abs(c - 2500) < 250 for c in counts), counts


def test_duplicate_tables_stay_duplicate():
    dice = FairDice(SEED, (), duplicate=True)
    ann = RollContext(player=0, turn=3, roll=2, serial=10)
    bram = RollContext(player=1, turn=3, roll=2, serial=17)
    assert dice.draw(5, ann) == dice.draw(5, bram)  # the same dice for everyone's t-th turn, r-th roll
    assert dice.draw(3, ann) == dice.draw(5, bram)[:3]  # fewer dice thrown: the first of the same sequence


def test_the_commitment_is_the_seed_hash_and_the_seed_stays_hidden_until_the_end():
    block = FairDice(SEED).block(revealed=False)
    assert block == {"scheme": SCHEME, "commitment": commitment(SEED), "seed": None, "nonces": []}
    assert len(block["commitment"]) == 64 and SEED not in str(block)


@pytest.mark.parametrize("preset, duplicate", [("yams", False), ("yams", True), ("yammen", False), ("yams-fr", False)])
def test_a_fair_game_verifies(preset, duplicate):
    record = _game(preset, duplicate)
    assert _verify(record) == []
    assert GameRecord.from_dict(record).to_dict()["fairness"] == record["fairness"]  # parse and dump round trip


def test_one_changed_die_is_caught():
    record = _game()
    first_rolls, rerolls = 0, []
    for t, turn in enumerate(record["turns"]):
        for r, roll in enumerate(turn["rolls"]):
            for i in range(len(roll)):
                changed = [dict(x, rolls=[list(y) for y in x["rolls"]]) for x in record["turns"]]
                changed[t]["rolls"][r][i] = roll[i] % 6 + 1
                problems = _verify({**record, "turns": changed})
                if r == 0:
                    assert problems, (t, r, i)  # a turn's first roll throws every die: always caught
                    first_rolls += 1
                else:
                    rerolls.append(bool(problems))
    assert first_rolls == 5 * 26
    assert rerolls and sum(rerolls) / len(rerolls) > 0.95, sum(rerolls) / len(rerolls)
    # without the record's `held` (a record that never had it), most changed re-rolled dice are still caught
    bare = [{k: v for k, v in t.items() if k != "held"} for t in record["turns"]]
    assert _verify({**record, "turns": bare}) == []


def test_what_verify_refuses():
    record = _game()
    assert "commitment" in _verify({**record, "fairness": {**record["fairness"], "seed": "00" * 32}})[0]
    assert "not revealed" in _verify({**record, "fairness": {**record["fairness"], "seed": None}})[0]
    nonces = [{"seat": 0, "nonce": "1" * 16}]
    assert _verify({**record, "fairness": {**record["fairness"], "nonces": nonces}})  # another nonce: other dice
    assert "no fairness" in _verify({k: v for k, v in record.items() if k != "fairness"})[0]
