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

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..lazy import loader

if TYPE_CHECKING:  # the type checker sees the names; at run time they load on first use
    from ._induction import box_values
    from ._layout import MAX_TABLE_STATES, SolverRules, UnsupportedRuleset, solver_rules
    from .advisor import Advice, Choice, Position, PositionError, advise
    from .objective import MeanScore, Objective, TargetProbability
    from .simulate import SimulationResult, simulate, simulate_blocks
    from .table import TABLE_VERSION, Strategy, cache_dir, solve, table_states

# Imported on first use (PEP 562): `yambak.solver.commands` (and `yambak solve --help`) loads without
# numpy or numba; `from yambak.solver import dice` and the other submodules import as usual.
_LAZY = {
    "box_values": "_induction",
    "MAX_TABLE_STATES": "_layout",
    "SolverRules": "_layout",
    "UnsupportedRuleset": "_layout",
    "solver_rules": "_layout",
    "Advice": "advisor",
    "Choice": "advisor",
    "Position": "advisor",
    "PositionError": "advisor",
    "advise": "advisor",
    "MeanScore": "objective",
    "Objective": "objective",
    "TargetProbability": "objective",
    "SimulationResult": "simulate",
    "simulate": "simulate",
    "simulate_blocks": "simulate",
    "TABLE_VERSION": "table",
    "Strategy": "table",
    "cache_dir": "table",
    "solve": "table",
    "table_states": "table",
}

__all__ = [
    "Advice",
    "Choice",
    "MAX_TABLE_STATES",
    "MeanScore",
    "Objective",
    "Position",
    "PositionError",
    "SimulationResult",
    "SolverRules",
    "Strategy",
    "TABLE_VERSION",
    "TargetProbability",
    "UnsupportedRuleset",
    "advise",
    "box_values",
    "cache_dir",
    "simulate",
    "simulate_blocks",
    "solve",
    "solver_rules",
    "table_states",
]


__getattr__ = loader(__name__, _LAZY, globals())


class _Package(ModuleType):
    """`simulate` names both a submodule and its function: importing the submodule sets the package's
    attribute to the module, so here it sets the function instead (what the eager import left)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "simulate" and isinstance(value, ModuleType):
            value = value.simulate
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
