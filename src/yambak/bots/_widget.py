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

Five dice by default; arrays of six dice's hands (462) and keeps (924) run on the
six-dice lattice (`dice.lattice(6)`, rulesets with `dice = 6`).
"""

from __future__ import annotations

import numpy as np

from ..solver import dice as D

__all__ = [
    "HAND_DICE",
    "N_HANDS",
    "best_keep",
    "follow_values",
    "hand_dice",
    "keep_transition",
    "lattice_for",
    "turn_ends",
    "turn_stages",
]

N_HANDS = D.N_ROLLS
HAND_DICE: tuple[tuple[int, ...], ...] = tuple(D.MULTISETS[D.FULL + r] for r in range(N_HANDS))
_BY_HANDS = {D.N_ROLLS: 5, D.lattice(6).N_ROLLS: 6}  # full hands -> dice
_BY_KEEPS = {len(D.MULTISETS): 5, len(D.lattice(6).MULTISETS): 6}  # keeps -> dice


def lattice_for(dice: int) -> D.Lattice:
    return D.lattice(dice)


def hand_dice(dice: int) -> tuple[tuple[int, ...], ...]:
    """The full hands of `dice` dice, by hand index."""
    L = D.lattice(dice)
    return tuple(L.MULTISETS[L.FULL + r] for r in range(L.N_ROLLS))


_PROPERS: dict[int, np.ndarray] = {}


def _proper(L: D.Lattice) -> np.ndarray:
    """Proper sub-keeps of every full hand: SUBKEEPS without the hand itself (padded with the empty keep)."""
    if L.DICE not in _PROPERS:
        _PROPERS[L.DICE] = np.where(L.SUBKEEPS == (L.FULL + np.arange(L.N_ROLLS))[:, None], 0, L.SUBKEEPS)
    return _PROPERS[L.DICE]


def best_keep(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each full hand: (value, global keep index) of the best proper sub-keep under keep values `e`."""
    L = D.lattice(_BY_KEEPS[e.shape[0]])
    proper = _proper(L)
    cand = e[proper]  # (hands, subkeeps, ...)
    arg = cand.argmax(axis=1)
    value = np.take_along_axis(cand, arg[:, None], axis=1)[:, 0]
    width = proper.shape[1]
    keep = np.take_along_axis(proper.reshape((L.N_ROLLS, width) + (1,) * (e.ndim - 1)), arg[:, None], axis=1)[:, 0]
    return value, keep


def turn_stages(terminal: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """From T_1..T_R (each (252, ...)) build (V, E): V[m] the hand values after roll m (m = 1..R) and
    E[m] the (462, ...) keep values after roll m (m = 1..R-1); index 0 unused (None-like zeros)."""
    rolls = len(terminal)
    shape = terminal[0].shape[1:]
    L = D.lattice(_BY_HANDS[terminal[0].shape[0]])
    values: list[np.ndarray] = [np.zeros(0)] * (rolls + 1)
    keeps: list[np.ndarray] = [np.zeros(0)] * (rolls + 1)
    values[rolls] = terminal[rolls - 1]
    for m in range(rolls - 1, 0, -1):
        x = np.empty((len(L.MULTISETS),) + shape)
        x[L.FULL :] = values[m + 1]
        with np.errstate(invalid="ignore"):
            L.down(x)
        keeps[m] = x
        go_on, _ = best_keep(x)
        values[m] = np.maximum(terminal[m - 1], go_on)
    return values, keeps


_TRANSITIONS: dict[int, np.ndarray] = {}


def keep_transition(dice: int = D.DICE) -> np.ndarray:
    """(462, 252) for five dice: probability that holding keep k and rolling the rest gives full hand h."""
    if dice not in _TRANSITIONS:
        L = D.lattice(dice)
        x = np.zeros((len(L.MULTISETS), L.N_ROLLS))
        x[L.FULL :] = np.eye(L.N_ROLLS)
        L.down(x)
        _TRANSITIONS[dice] = x
    return _TRANSITIONS[dice]


def turn_ends(terminal: list[np.ndarray], keeps: list[np.ndarray], start: np.ndarray, roll: int) -> np.ndarray:
    """Where a turn played by (terminal, keeps) (as `turn_stages` builds them) ends: (R + 1, 252), the
    chance of stopping right after roll m with hand h, from the hand distribution `start` after roll
    `roll`. A hand stops when its best box is worth at least its best proper keep (ties: scoring
    first, as the bots choose), and always after the last roll."""
    rolls = len(terminal)
    n_hands = terminal[0].shape[0]
    out = np.zeros((rolls + 1, n_hands))
    p = np.asarray(start, dtype=float)
    trans = keep_transition(_BY_HANDS[n_hands])
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
    L = D.lattice(_BY_HANDS[terminal[0].shape[0]])
    values: list[np.ndarray] = [np.zeros(0)] * (rolls + 1)
    out: list[np.ndarray] = [np.zeros(0)] * (rolls + 1)
    values[rolls] = reported[rolls - 1]
    for m in range(rolls - 1, 0, -1):
        x = np.empty(len(L.MULTISETS))
        x[L.FULL :] = values[m + 1]
        with np.errstate(invalid="ignore"):
            L.down(x)
        out[m] = x
        go_on, keep = best_keep(keeps[m])
        with np.errstate(invalid="ignore"):
            stop = terminal[m - 1] >= go_on
        values[m] = np.where(stop, reported[m - 1], x[keep])
    return values, out
