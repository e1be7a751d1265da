"""Exact optimal play for single-column rulesets: strategy tables, advisor, simulator.

    >>> from yambak.solver import solve, advise, Position
    >>> strategy = solve("yams")                 # computed once, then loaded from the cache
    >>> round(strategy.expected_score, 4)
    254.5877
    >>> advise(strategy, Position(filled={}, dice=(6, 6, 6, 2, 3), roll=1)).best.label()
    'keep 6 6 6'

The solver is driven by the ruleset data (row kinds, upper bonus, joker,
strike_any); see `dice` for the dice lattice (public: the bots' turn widget
shares it), `_layout` for the state layout, `_induction` for the backward
induction, `_kernels` for its compiled (numba) turn widget and `warm` for
compiling those kernels ahead of time.
"""

from ._layout import MAX_TABLE_STATES, UnsupportedRuleset
from .advisor import Advice, Choice, Position, PositionError, advise
from .objective import MeanScore, Objective, TargetProbability
from .simulate import SimulationResult, simulate, simulate_blocks
from .table import TABLE_VERSION, Strategy, cache_dir, solve, table_states

__all__ = [
    "Advice",
    "Choice",
    "MAX_TABLE_STATES",
    "MeanScore",
    "Objective",
    "Position",
    "PositionError",
    "SimulationResult",
    "Strategy",
    "TABLE_VERSION",
    "TargetProbability",
    "UnsupportedRuleset",
    "advise",
    "cache_dir",
    "simulate",
    "simulate_blocks",
    "solve",
    "table_states",
]
