"""Puzzle ratings with OpenSkill (Plackett-Luce, the model ranked games use): every answer is a game
between the player and the position, won by the player when the answer solves it; both ratings move.

A rating is (mu, sigma); a new player and a new position start at the model's defaults. The shown
rating is OpenSkill's ordinal, mu - 3 sigma. No formula of our own: the library rates.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

__all__ = ["MODEL", "Rating", "initial", "rate"]

MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return float(MODEL.rating(mu=self.mu, sigma=self.sigma).ordinal())

    def to_dict(self) -> dict[str, float]:
        return {"mu": self.mu, "sigma": self.sigma, "rating": round(self.ordinal, 2)}


def initial() -> Rating:
    return Rating(float(MODEL.mu), float(MODEL.sigma))


def rate(player: Rating, position: Rating, solved: bool) -> tuple[Rating, Rating]:
    """The player's and the position's ratings after one answer (a solved one wins)."""
    teams = MODEL.rate(
        [[MODEL.rating(mu=player.mu, sigma=player.sigma)], [MODEL.rating(mu=position.mu, sigma=position.sigma)]],
        ranks=[1, 2] if solved else [2, 1],
    )
    (p,), (q,) = teams
    return Rating(float(p.mu), float(p.sigma)), Rating(float(q.mu), float(q.sigma))
