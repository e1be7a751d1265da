"""The within-turn expectimax over dice multisets, for any number of value columns.

Reuses the solver's keep lattice (`yambak.solver.dice`, read-only). Values are
arrays shaped (multiset, ...): the trailing axes let one pass evaluate several
"turn plans" at once (for example one per box that could be announced).

    roll R:   V_R[h] = T_R[h]                     (best box after the last roll)
    keep:     E_k[k] = mean over d of E_k[k + d]  (down pass from V_{k+1})
    roll k:   V_k[h] = max(T_k[h], max over proper sub-keeps k of h of E_k[k])

`T_m[h]` is the value of ending the turn in the best box fillable right after
roll m with hand h (-inf where no box may be filled then). Keeping all five dice
is not a roll (docs/rules.md §1), so a hand's own entry is left out of its keeps.
"""

from __future__ import annotations

import numpy as np

from ..solver import dice as D

__all__ = ["HAND_DICE", "N_HANDS", "best_keep", "follow_values", "keep_transition", "turn_ends", "turn_stages"]

N_HANDS = D.N_ROLLS
HAND_DICE: tuple[tuple[int, ...], ...] = tuple(D.MULTISETS[D.FULL + r] for r in range(N_HANDS))
# Proper sub-keeps of every full hand: SUBKEEPS without the hand itself (padded with the empty keep).
_PROPER = np.where(D.SUBKEEPS == (D.FULL + np.arange(N_HANDS))[:, None], 0, D.SUBKEEPS)


def best_keep(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each full hand: (value, global keep index) of the best proper sub-keep under keep values `e`."""
    cand = e[_PROPER]  # (252, 32, ...)
    arg = cand.argmax(axis=1)
    value = np.take_along_axis(cand, arg[:, None], axis=1)[:, 0]
    keep = np.take_along_axis(_PROPER.reshape((N_HANDS, 32) + (1,) * (e.ndim - 1)), arg[:, None], axis=1)[:, 0]
    return value, keep


def turn_stages(terminal: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """From T_1..T_R (each (252, ...)) build (V, E): V[m] the hand values after roll m (m = 1..R) and
    E[m] the (462, ...) keep values after roll m (m = 1..R-1); index 0 unused (None-like zeros)."""
    rolls = len(terminal)
    shape = terminal[0].shape[1:]
    values: list[np.ndarray] = [np.zeros(0)] * (rolls + 1)
    keeps: list[np.ndarray] = [np.zeros(0)] * (rolls + 1)
    values[rolls] = terminal[rolls - 1]
    for m in range(rolls - 1, 0, -1):
        x = np.empty((len(D.MULTISETS),) + shape)
        x[D.FULL :] = values[m + 1]
        with np.errstate(invalid="ignore"):
            D.down(x)
        keeps[m] = x
        go_on, _ = best_keep(x)
        values[m] = np.maximum(terminal[m - 1], go_on)
    return values, keeps


_TRANSITION: np.ndarray | None = None


def keep_transition() -> np.ndarray:
    """(462, 252): probability that holding keep k and rolling the rest gives full hand h."""
    global _TRANSITION
    if _TRANSITION is None:
        x = np.zeros((len(D.MULTISETS), N_HANDS))
        x[D.FULL :] = np.eye(N_HANDS)
        D.down(x)
        _TRANSITION = x
    return _TRANSITION


def turn_ends(terminal: list[np.ndarray], keeps: list[np.ndarray], start: np.ndarray, roll: int) -> np.ndarray:
    """Where a turn played by (terminal, keeps) (as `turn_stages` builds them) ends: (R + 1, 252), the
    chance of stopping right after roll m with hand h, from the hand distribution `start` after roll
    `roll`. A hand stops when its best box is worth at least its best proper keep (ties: scoring
    first, as the bots choose), and always after the last roll."""
    rolls = len(terminal)
    out = np.zeros((rolls + 1, N_HANDS))
    p = np.asarray(start, dtype=float)
    trans = keep_transition()
    for m in range(roll, rolls + 1):
        if m == rolls:
            out[m] = p
            break
        go_on, keep = best_keep(keeps[m])
        with np.errstate(invalid="ignore"):
            stop = terminal[m - 1] >= go_on
        out[m] = np.where(stop, p, 0.0)
        p = np.where(stop, 0.0, p) @ trans[keep]
    return out


def follow_values(
    terminal: list[np.ndarray], keeps: list[np.ndarray], reported: list[np.ndarray]
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The expectation of another value of the turn's end, `reported` (R_m[h]: what ending after roll m
    with hand h is worth in it), when the turn is played by (terminal, keeps) as `turn_ends` plays it:
    (V, E) shaped like `turn_stages`' (hand values after roll m, keep values after roll m)."""
    rolls = len(terminal)
    values: list[np.ndarray] = [np.zeros(0)] * (rolls + 1)
    out: list[np.ndarray] = [np.zeros(0)] * (rolls + 1)
    values[rolls] = reported[rolls - 1]
    for m in range(rolls - 1, 0, -1):
        x = np.empty(len(D.MULTISETS))
        x[D.FULL :] = values[m + 1]
        with np.errstate(invalid="ignore"):
            D.down(x)
        out[m] = x
        go_on, keep = best_keep(keeps[m])
        with np.errstate(invalid="ignore"):
            stop = terminal[m - 1] >= go_on
        values[m] = np.where(stop, reported[m - 1], x[keep])
    return values, out
