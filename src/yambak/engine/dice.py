"""Dice sources: where a roll's values come from.

The engine asks a source for `k` values with a `RollContext` saying whose roll
it is. Seeded sources are counter-based (a hash of seed and context), so a
source holds no mutable state and game states stay immutable and replayable.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Protocol

__all__ = ["RollContext", "DiceSource", "SeededDice", "SecureDice", "ManualDice", "DuplicateDice"]


@dataclass(frozen=True, slots=True)
class RollContext:
    player: int  # seat
    turn: int  # the player's own turn number, 0-based
    roll: int  # roll number within the turn, 1-based (0 for a roll-off)
    serial: int  # rolls made so far in the whole game (roll-offs included)


class DiceSource(Protocol):
    manual: bool

    def draw(self, k: int, ctx: RollContext) -> tuple[int, ...]:
        """k values in 1..6."""
        ...


def _hashed_dice(key: str, k: int) -> tuple[int, ...]:
    """k uniform dice from a hash of `key`, by rejection sampling on bytes (< 252 = 42 x 6)."""
    out: list[int] = []
    block = 0
    while len(out) < k:
        digest = hashlib.blake2b(f"{key}#{block}".encode(), digest_size=32).digest()
        for byte in digest:
            if byte < 252:
                out.append(byte % 6 + 1)
                if len(out) == k:
                    break
        block += 1
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SeededDice:
    """Reproducible dice for simulation and tests: the n-th roll of the game depends on seed and n."""

    seed: int | str
    manual = False

    def draw(self, k: int, ctx: RollContext) -> tuple[int, ...]:
        return _hashed_dice(f"{self.seed}:{ctx.serial}", k)


@dataclass(frozen=True, slots=True)
class DuplicateDice:
    """docs/rules.md §8: roll r of every player's t-th turn draws from one sequence D[t][r]."""

    seed: int | str
    manual = False

    def draw(self, k: int, ctx: RollContext) -> tuple[int, ...]:
        if ctx.roll == 0:  # roll-offs are not part of the shared stream
            return _hashed_dice(f"{self.seed}:rolloff:{ctx.serial}", k)
        return _hashed_dice(f"{self.seed}:dup:{ctx.turn}:{ctx.roll}", k)


@dataclass(frozen=True, slots=True)
class SecureDice:
    """Live play: a CSPRNG, nothing to predict."""

    manual = False

    def draw(self, k: int, _ctx: RollContext) -> tuple[int, ...]:
        return tuple(secrets.randbelow(6) + 1 for _ in range(k))


@dataclass(frozen=True, slots=True)
class ManualDice:
    """Score-keeping and replay: every roll states its values."""

    manual = True

    def draw(self, _k: int, _ctx: RollContext) -> tuple[int, ...]:
        raise LookupError("manual dice: the roll must give its values")
