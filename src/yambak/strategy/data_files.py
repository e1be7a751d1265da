"""The presets' strategy data shipped in the package (`data/<preset>.json`), found by fingerprint.

Built by `python -m yambak.strategy.make_data [PRESET...]`; a file is used only while
its fingerprint is the ruleset's, so a changed preset falls back to computing until it is rebuilt.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..rules import Ruleset
from .report import StrategyData, fingerprint

__all__ = ["DATA_DIR", "data_path", "shipped"]

DATA_DIR = Path(__file__).resolve().parent / "data"


def data_path(ruleset: Ruleset) -> Path | None:
    """Where a preset's data file lives (None for a ruleset that is no plain preset)."""
    if ruleset.preset is None or ruleset.variant_key(duplicate=False) != ruleset.preset:
        return None
    return DATA_DIR / f"{ruleset.preset}.json"


def shipped(ruleset: Ruleset) -> StrategyData | None:
    """The shipped data of this ruleset, or None where there is none or it was built from other rules."""
    path = data_path(ruleset)
    if path is None or not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("fingerprint") != fingerprint(ruleset):
        return None
    return StrategyData.from_json(data, ruleset)
