"""Provably fair dice: a committed server seed, players' nonces, and a verifier (docs/rules.md §11).

The scheme (`yambak-hmac-sha256/1`; `.../duplicate` on duplicate tables):

1. When a table is created, the server draws a 32-byte seed from a CSPRNG and publishes
   its commitment `SHA-256(seed)` (hex) to every player. The seed itself stays on the
   server until the game ends.
2. Until the game's first roll, each seated player may contribute one nonce (16 to 64
   hex digits) of their choosing; the server logs it as an event that every player sees.
   The nonces are mixed in order: `mix = SHA-256("yambak-nonces/1" || "seat:nonce;"...)`.
   The server committed to its seed before it saw any nonce, and the players chose
   their nonces without knowing the seed: neither side can choose the dice.
3. A roll that throws `k` dice takes them from the byte stream
   `HMAC-SHA256(key=seed, msg=mix || "|" || context || "|" || block)`, block = 0, 1, ...,
   keeping bytes below 252 and mapping each to `byte % 6 + 1` (rejection sampling: each
   face exactly 1/6). The context is `roll:SERIAL:K` (the game's SERIAL-th roll, 0-based,
   of K dice), `dup:TURN:ROLL` on duplicate tables (the player's TURN-th turn, its ROLL-th
   roll: every player holding the same dice gets the same values, docs/rules.md §8), and
   `rolloff:SERIAL` for a roll-off.
4. When the game ends, the record carries the seed; `verify` checks the commitment and
   re-derives every roll of every turn, and every roll-off.

Held dice. A record's `rolls` give all the dice after each roll, in position order. The
first roll of a turn throws every die: its dice are checked exactly. For a re-roll the
record does not say which positions were kept; its `held` (written by live tables,
optional in general) names the kept values as a multiset, which fixes the number of
thrown dice `k`. `verify` accepts the re-roll when some set of positions that kept their
value from the roll before (as many as `held` says; without `held`, any number) leaves
thrown positions that, in order, equal the `k` derived dice. Because the derivation of
a normal table depends on `k`, a changed die survives this only by a chance
coincidence: never for a first roll, and for a re-roll only when the changed value
happens to fit another choice of kept positions (rare with `held`, a few in a hundred
without it).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Any

from ..viewtypes import JSONObject, JSONValue, NonceOut
from .dice import RollContext

if TYPE_CHECKING:
    from .record import GameRecord

__all__ = [
    "SCHEME",
    "SCHEME_DUPLICATE",
    "FairDice",
    "Nonce",
    "commitment",
    "derive",
    "mix",
    "parse_fairness",
    "verify_record",
]

SCHEME = "yambak-hmac-sha256/1"
SCHEME_DUPLICATE = "yambak-hmac-sha256/1/duplicate"
SCHEMES = (SCHEME, SCHEME_DUPLICATE)
_HEX = re.compile(r"^[0-9a-f]+$")
NONCE_PATTERN = r"^[0-9a-fA-F]{16,64}$"


@dataclass(frozen=True, slots=True)
class Nonce:
    seat: int
    value: str  # hex, lower case

    def to_dict(self) -> NonceOut:
        return {"seat": self.seat, "nonce": self.value}


def commitment(seed: str) -> str:
    """The published commitment to a hex seed."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def mix(nonces: tuple[Nonce, ...]) -> bytes:
    h = hashlib.sha256(b"yambak-nonces/1")
    for n in nonces:
        h.update(f"{n.seat}:{n.value};".encode())
    return h.digest()


def derive(seed: str, mixed: bytes, context: str, k: int) -> tuple[int, ...]:
    """k dice for one context, by rejection sampling on HMAC-SHA256 blocks."""
    key = bytes.fromhex(seed)
    out: list[int] = []
    block = 0
    while len(out) < k:
        digest = hmac.new(key, mixed + f"|{context}|{block}".encode(), hashlib.sha256).digest()
        for byte in digest:
            if byte < 252:
                out.append(byte % 6 + 1)
                if len(out) == k:
                    break
        block += 1
    return tuple(out)


def _context(duplicate: bool, k: int, ctx: RollContext) -> str:
    if ctx.roll == 0:
        return f"rolloff:{ctx.serial}"
    if duplicate:
        return f"dup:{ctx.turn}:{ctx.roll}"
    return f"roll:{ctx.serial}:{k}"


@dataclass(frozen=True, slots=True)
class FairDice:
    """Live dice of a table under the scheme above: given the seed and the nonces, nothing else."""

    seed: str
    nonces: tuple[Nonce, ...] = ()
    duplicate: bool = False
    manual = False

    def draw(self, k: int, ctx: RollContext) -> tuple[int, ...]:
        return derive(self.seed, mix(self.nonces), _context(self.duplicate, k, ctx), k)

    def with_nonce(self, nonce: Nonce) -> FairDice:
        return FairDice(self.seed, self.nonces + (nonce,), self.duplicate)

    def block(self, revealed: bool) -> dict[str, Any]:  # typed by its server callers' own types
        """The record's `fairness` block; the seed only once `revealed` (the game is over)."""
        return {
            "scheme": SCHEME_DUPLICATE if self.duplicate else SCHEME,
            "commitment": commitment(self.seed),
            "seed": self.seed if revealed else None,
            "nonces": [n.to_dict() for n in self.nonces],
        }


def parse_fairness(data: object) -> JSONObject:
    """A record's `fairness` block, checked for shape; raises ValueError."""
    if not isinstance(data, Mapping):
        raise ValueError("fairness must be an object")
    unknown = set(data) - {"scheme", "commitment", "seed", "nonces"}
    if unknown:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r} in fairness")
    scheme, commit, seed, nonces = data.get("scheme"), data.get("commitment"), data.get("seed"), data.get("nonces", [])
    if not isinstance(scheme, str) or not scheme:
        raise ValueError("fairness.scheme must be a scheme id")
    if not isinstance(commit, str) or not _HEX.match(commit):
        raise ValueError("fairness.commitment must be lower-case hex")
    if seed is not None and (not isinstance(seed, str) or not _HEX.match(seed) or len(seed) % 2):
        raise ValueError("fairness.seed must be null or lower-case hex")
    if not isinstance(nonces, list) or not all(
        isinstance(n, Mapping)
        and set(n) == {"seat", "nonce"}
        and isinstance(n["seat"], int)
        and not isinstance(n["seat"], bool)
        and isinstance(n["nonce"], str)
        and re.match(NONCE_PATTERN, n["nonce"])
        for n in nonces
    ):
        raise ValueError('fairness.nonces must be a list of {"seat", "nonce"}')
    return {"scheme": scheme, "commitment": commit, "seed": seed, "nonces": [{**n} for n in nonces]}


def nonces_of(block: Mapping[str, JSONValue]) -> tuple[Nonce, ...]:
    """The nonces of a record's `fairness` block (as `parse_fairness` checked it: anything else is skipped)."""
    nonces = block.get("nonces")
    out = []
    for n in nonces if isinstance(nonces, list) else []:
        seat, value = (n.get("seat"), n.get("nonce")) if isinstance(n, dict) else (None, None)
        if isinstance(seat, int) and isinstance(value, str):
            out.append(Nonce(seat, value.lower()))
    return tuple(out)


def _rerolled(prev: tuple[int, ...], new: tuple[int, ...], fresh: tuple[int, ...]) -> bool:
    """Can `new` come from `prev` by keeping some positions and throwing the others, in order, as `fresh`?"""
    n, k = len(new), len(fresh)
    if k > n:
        return False
    for thrown in combinations(range(n), k):
        if all(new[i] == prev[i] for i in range(n) if i not in thrown) and all(
            new[i] == d for i, d in zip(thrown, fresh, strict=True)
        ):
            return True
    return False


def verify_record(record: GameRecord, n_dice: int, dice_counted: int) -> tuple[list[str], int]:
    """Re-derive every roll of a record (a GameRecord) from its revealed seed and nonces.

    Returns (problems, rolls checked); no problems means every roll, every roll-off and
    the commitment check out. `n_dice` is the ruleset's rolled dice, `dice_counted` its
    roll-off dice. The caller checks the record's legality (replay) on its own."""
    fairness = record.fairness
    if fairness is None:
        return ["the record has no fairness block: its dice cannot be verified"], 0
    if fairness.get("scheme") not in SCHEMES:
        return [f"unknown fairness scheme {fairness.get('scheme')!r}"], 0
    seed = fairness.get("seed")
    if not isinstance(seed, str):
        return ["the seed is not revealed yet (the game is not over)"], 0
    if commitment(seed) != fairness.get("commitment"):
        return ["the seed does not match the commitment published at the start"], 0
    duplicate = fairness["scheme"] == SCHEME_DUPLICATE
    dice = FairDice(seed, nonces_of(fairness), duplicate)
    players = len(record.players)
    problems: list[str] = []
    serial, checked = 0, 0
    turns_of = [0] * players
    for number, turn in enumerate(record.turns, start=1):
        seat = record.seat(number)
        if not 0 <= seat < players:
            problems.append(f"turn {number}: no seat {seat}")
            break
        prev: tuple[int, ...] | None = None
        for r, roll in enumerate(turn.rolls, start=1):
            if len(roll) != n_dice:
                problems.append(f"turn {number}, roll {r}: {len(roll)} dice, not {n_dice}")
                break
            ctx = RollContext(player=seat, turn=turns_of[seat], roll=r, serial=serial)
            if prev is None:
                ok = dice.draw(n_dice, ctx) == tuple(roll)
            else:
                kept = turn.held[r - 2] if turn.held is not None and len(turn.held) >= r - 1 else None
                thrown = [n_dice - len(kept)] if kept is not None else range(1, n_dice + 1)
                ok = any(_rerolled(prev, tuple(roll), dice.draw(k, ctx)) for k in thrown)
            if not ok:
                problems.append(f"turn {number}, roll {r}: the dice {list(roll)} do not come from the seed")
            prev = tuple(roll)
            serial += 1
            checked += 1
        turns_of[seat] += 1
    for target, rounds in record.rolloffs:
        for k, round_ in enumerate(rounds, start=1):
            for seat, rolled in round_:
                ctx = RollContext(player=seat, turn=0, roll=0, serial=serial)
                if dice.draw(dice_counted, ctx) != tuple(rolled):
                    problems.append(f"roll-off {target} round {k}, seat {seat}: the dice do not come from the seed")
                serial += 1
                checked += 1
    return problems, checked
