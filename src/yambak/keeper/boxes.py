"""Box names as people type them: any case, short forms, the face number of an upper row.

`free.sixes`, `FREE.Sixes`, `f.6`, `fr.si` and `endeux.straight` all name a box; a
bare row (`sixes`, `6`) names it where one column can take it. A prefix that fits
several names is refused with the candidates listed.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..rules import Ruleset
from .entries import Refusal

__all__ = ["box_names", "resolve_box"]


def _norm(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch not in "_- ")


def _match(text: str, ids: list[str], faces: dict[str, str] | None = None) -> list[str]:
    """The ids `text` names: an exact id, a face number, else every id it is a prefix of."""
    key = _norm(text)
    if not key:
        return []
    if faces and key in faces:
        return [faces[key]]
    exact = [i for i in ids if _norm(i) == key]
    return exact or [i for i in ids if _norm(i).startswith(key)]


def _refuse(text: str, candidates: list[str]) -> Refusal:
    if not candidates:
        return Refusal("illegal/box-unknown", f"there is no box {text[:40]!r} on this sheet")
    listed = ", ".join(candidates[:12])
    return Refusal("input/box-ambiguous", f"{text[:40]!r} could be {listed}: type more of it", candidates=candidates)


def resolve_box(rules: Ruleset, text: str, fits: Iterable[str] | None = None) -> str:
    """The box id `text` names. `fits`: the boxes that can take the entry now, which a bare row
    name picks from when several columns hold that row."""
    words = text.strip()
    columns = [c.id for c in rules.columns]
    rows = [r.id for r in rules.rows]
    faces = {str(r.face): r.id for r in rules.rows if r.is_upper and r.face}
    column_part, dot, row_part = words.rpartition(".")
    if dot and column_part:
        found_columns = _match(column_part, columns)
        if len(found_columns) != 1:
            raise _refuse(words, [f"{c}.{r}" for c in found_columns for r in _match(row_part, rows, faces)] or [])
        column_ids = found_columns
    else:
        column_ids = columns
    found_rows = _match(row_part, rows, faces)
    candidates = [f"{c}.{r}" for c in column_ids for r in found_rows]
    if len(candidates) == 1:
        return candidates[0]
    fitting = [b for b in candidates if b in set(fits or ())]
    if len(found_rows) == 1 and len(fitting) == 1:
        return fitting[0]
    raise _refuse(words, fitting or candidates)  # the boxes that can take the entry first


def box_names(rules: Ruleset) -> list[str]:
    """Every box id of the sheet (what tab completion offers), bare rows too on one-column sheets."""
    ids = [f"{c.id}.{r.id}" for c in rules.columns for r in rules.rows]
    if len(rules.columns) == 1:
        ids += [r.id for r in rules.rows]
    return ids
