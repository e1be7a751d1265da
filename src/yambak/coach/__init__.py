"""The coach: advice on every ruleset (exact where the solver has a table, the strong bot's
estimate elsewhere), each option an engine action with its chance to win, and the review of a
finished game. See `advice.py` (and `chances.py` for the win chances).

Loaded on first use, so that `yambak hint` on a typed position does not pay for the bots."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the types, for the checker; the module itself loads on first use
    from .advice import Advice, CoachError, Decision, Option, Review, action_dict, advise, measure_of, review

__all__ = ["Advice", "CoachError", "Decision", "Option", "Review", "action_dict", "advise", "measure_of", "review"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import advice

        return getattr(advice, name)
    raise AttributeError(name)
