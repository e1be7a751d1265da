"""What the backward induction maximises, as a small pluggable interface.

The induction never adds points itself: it asks the objective to combine the
points a box writes with the value of the state the box leads to. Each state
carries a vector of `width` numbers, and every max and expectation of the turn
widget runs on each component independently, so

* `MeanScore` (width 1) is the expected number of points still to come;
* `TargetProbability(t)` (width t+1, component k = "k points still needed") is
  the chance of scoring at least k more points, maximised separately for every
  k, which is exactly the policy that maximises the chance to reach a target.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

__all__ = ["Objective", "MeanScore", "TargetProbability"]


class Objective(Protocol):
    """How values are built; see the module docstring."""

    @property
    def key(self) -> str:
        """A short id for cache file names."""
        ...

    @property
    def width(self) -> int:
        """Numbers of value components per state."""
        ...

    def terminal(self) -> np.ndarray:
        """Value of a finished sheet, shape (width,)."""
        ...

    def after_box(self, points: np.ndarray, future: np.ndarray) -> np.ndarray:
        """Value of writing `points` (shape P) then being in a state worth `future` (shape F + (width,)).

        Returns shape broadcast(P, F) + (width,).
        """
        ...


class MeanScore:
    """Maximise the expected final score."""

    key = "mean"
    width = 1

    def terminal(self) -> np.ndarray:
        return np.zeros(1)

    def after_box(self, points: np.ndarray, future: np.ndarray) -> np.ndarray:
        return future + np.asarray(points, dtype=np.float64)[..., None]


class TargetProbability:
    """Maximise the chance that the points still to come reach each k in 0..target."""

    def __init__(self, target: int) -> None:
        if target < 0:
            raise ValueError("target must be at least 0")
        self.target = int(target)
        self.width = self.target + 1
        self.key = f"target{self.target}"

    def terminal(self) -> np.ndarray:
        out = np.zeros(self.width)
        out[0] = 1.0  # nothing more needed: reached
        return out

    def after_box(self, points: np.ndarray, future: np.ndarray) -> np.ndarray:
        points = np.asarray(points)
        shape = np.broadcast_shapes(points.shape, future.shape[:-1]) + (self.width,)
        need = np.clip(np.arange(self.width) - points[..., None], 0, None)
        return np.take_along_axis(np.broadcast_to(future, shape), np.broadcast_to(need, shape), axis=-1)
