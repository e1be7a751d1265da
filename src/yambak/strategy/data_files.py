"""Where a ruleset's strategy data is kept: the presets' shipped in the package (`data/<preset>.json`),
any other ruleset's (a table's house rules, a ruleset file) in the cache folder beside the solver's
tables once computed (`$YAMBAK_CACHE_DIR/strategy/<fingerprint>.json`, or a folder of the caller's:
the server's `YAMBAK_STRATEGY_DIR`). Both are found by fingerprint.

Shipped files are built by `python -m yambak.strategy.make_data [PRESET...]`; a file is used only while
its fingerprint is the ruleset's, so a changed preset falls back to computing until it is rebuilt.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from ..rules import Ruleset
from .report import StrategyData, fingerprint

__all__ = ["DATA_DIR", "data_path", "keep", "kept_path", "shipped", "stored"]

DATA_DIR = Path(__file__).resolve().parent / "data"


def data_path(ruleset: Ruleset) -> Path | None:
    """Where a preset's data file lives (None for a ruleset that is no plain preset)."""
    if ruleset.preset is None or ruleset.variant_key(duplicate=False) != ruleset.preset:
        return None
    return DATA_DIR / f"{ruleset.preset}.json"


def _read(path: Path | None, ruleset: Ruleset) -> StrategyData | None:
    if path is None or not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # a file cut short by a full disk: computed again
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint(ruleset):
        return None
    try:
        return StrategyData.from_json(data, ruleset)
    except (KeyError, TypeError, ValueError):  # a file of another shape: computed again
        return None


def shipped(ruleset: Ruleset) -> StrategyData | None:
    """The shipped data of this ruleset, or None where there is none or it was built from other rules."""
    return _read(data_path(ruleset), ruleset)


def kept_path(ruleset: Ruleset, folder: Path | None = None) -> Path:
    """Where the figures computed for this ruleset here are kept (`folder`, else the solver's cache's)."""
    if folder is None:
        from ..solver.table import cache_dir  # the cache's one definition (imports numpy: only when asked)

        folder = cache_dir() / "strategy"
    return folder / f"{fingerprint(ruleset)}.json"


def stored(ruleset: Ruleset, folder: Path | None = None) -> StrategyData | None:
    """The ruleset's figures where they exist: shipped, else computed here before; None otherwise."""
    return shipped(ruleset) or _read(kept_path(ruleset, folder), ruleset)


def keep(ruleset: Ruleset, data: StrategyData, folder: Path | None = None) -> Path:
    """Keep figures computed with the default games and seed (what `stored` reads back), written whole
    or not at all (a rename), so a reader never sees half a file."""
    path = kept_path(ruleset, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".strategy-", suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(data.to_json(), separators=(",", ":")) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
