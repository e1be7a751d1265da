"""Strategy and odds of a ruleset, computed by the exact brain: what a strategy page and `yambak strategy`
show. Pure computation (no server, no I/O but the shipped data files).

    >>> from yambak.rules import load_ruleset
    >>> from yambak.strategy import odds
    >>> yam = {b.box: b for b in odds(load_ruleset("yams"))}["yam"]
    >>> round(yam.chances[2], 6)                 # Yahtzee in three rolls, going for it
    0.046029

`odds` (`chance.py`) is exact per box and instant; `build` (`report.py`) adds what the best play scores
and the opening table, from the solver's table and simulated games (minutes: the presets' are shipped,
`shipped` reads them; `python -m yambak.strategy.make_data` rebuilds them; any other ruleset's are
kept in the cache once computed, `stored` reads either).
"""

from __future__ import annotations

from ..lazy import loader

# Imported on first use (PEP 562): `yambak strategy`'s arguments load without numpy or the solver.
_LAZY = {
    "BoxOdds": "chance",
    "box_ids": "chance",
    "calculator": "chance",
    "low_rows": "chance",
    "odds": "chance",
    "Opening": "openings",
    "OpeningRule": "openings",
    "opening_rules": "openings",
    "BoxStats": "report",
    "Par": "report",
    "ScoreSummary": "report",
    "StrategyData": "report",
    "build": "report",
    "fingerprint": "report",
    "has_table": "report",
    "data_path": "data_files",
    "keep": "data_files",
    "kept_path": "data_files",
    "shipped": "data_files",
    "stored": "data_files",
}

__all__ = list(_LAZY)


__getattr__ = loader(__name__, _LAZY, globals())
