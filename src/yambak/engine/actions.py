"""The actions a player can take. Each names the seat acting for it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Action", "Roll", "Hold", "Release", "Announce", "Withdraw", "Score", "Undo"]


@dataclass(frozen=True, slots=True)
class Roll:
    """Throw every die not held. `held`, when given, first replaces the held set
    (die positions, 0-based). `dice` gives the values for manual dice (all of them,
    held ones included) and is refused for any other dice source."""

    player: int
    held: tuple[int, ...] | None = None
    dice: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Hold:
    """Set dice aside (positions, 0-based) so the next roll keeps them."""

    player: int
    dice: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Release:
    """Put held dice back in the cup."""

    player: int
    dice: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Announce:
    """After roll 1: commit this turn to one box of an announce column."""

    player: int
    box: str


@dataclass(frozen=True, slots=True)
class Withdraw:
    """Take an announcement back before roll 2 (where the column allows it)."""

    player: int


@dataclass(frozen=True, slots=True)
class Score:
    """End the turn in a box. `strike` writes 0 (strike_any rulesets); `use` gives the
    values of the five dice that count (six_dice; the engine picks the best five if absent)."""

    player: int
    box: str
    strike: bool = False
    use: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Undo:
    """Take back one's last entry before anybody rolls again (tables that allow it: solo, hot-seat).
    The turn is back where it was before the box was chosen: same dice, same rolls left."""

    player: int


Action = Roll | Hold | Release | Announce | Withdraw | Score | Undo
