"""The score-keeper's core for real dice: pure Python over the engine, no I/O.

What a kept sheet does with an entry (`entries`), what a phone shows of it (`view`:
the sheet, the preview of typed dice on every box, the boxes a correction can go
to), the statistics of past sheets (`stats`) and box names as people type them
(`boxes`). The server runs this package under CPython; a phone runs the very same
files under Pyodide (`browser` is its JSON entry point), so a sheet kept offline
is computed by the same engine, and `tests/web/test_keeper_engine.py` checks that
both give every number alike.
"""

from .boxes import resolve_box
from .entries import Refusal, apply_entry, check_rebase, new_sheet, record_dict, rolloffs_due, unique_names
from .stats import statistics
from .view import fix_options, preview, sheet_view, zero_boxes

__all__ = [
    "Refusal",
    "apply_entry",
    "check_rebase",
    "fix_options",
    "new_sheet",
    "preview",
    "record_dict",
    "resolve_box",
    "rolloffs_due",
    "sheet_view",
    "statistics",
    "unique_names",
    "zero_boxes",
]
