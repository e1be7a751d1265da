"""A player's sheet as every face shows it, read from the engine: one vocabulary for the web table, the
kept sheet (on the server and on a phone, under Pyodide), the replay and the review.

Per column: each box's `score` (null while open), its `written` value where the rules made the score
differ, and `why` a box does not simply count what was written: `zeroed` (a relation zeroed it),
`minimax` (Yamb's min and max count through the (max - min) x ones line), `struck` (struck for 0);
a box another player may not see yet is `{"hidden": true}`. Then the upper sum, the bonus and the
points it still needs, the total, and Yamb's minimax line with the written values it multiplies.
Nothing is computed here that the engine does not say.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from .engine import GameState

__all__ = ["sheet_columns"]


def sheet_columns(state: GameState, p: int, hidden: Collection[str] = ()) -> dict[str, Any]:
    """Player `p`'s sheet by column (`hidden`: box ids shown as hidden, totals withheld with them)."""
    rules = state.rules
    written = state.sheets[p].written
    struck = {t.box for t in state.history if t.player == p and t.strike}
    factors = rules.minimax_rows
    shown = not hidden
    columns: dict[str, Any] = {}
    for ci, c in enumerate(state.column_scores(p)):
        boxes: dict[str, Any] = {}
        for ri, row in enumerate(rules.rows):
            box = ci * rules.n_rows + ri
            box_id = rules.box_id(box)
            if box_id in hidden:
                boxes[row.id] = {"hidden": True}
                continue
            cell: dict[str, Any] = {"score": c.boxes[row.id]}
            w = written[box]
            if box_id in struck:
                cell["why"] = "struck"
            elif w is not None and w != c.boxes[row.id]:
                cell["written"] = w  # shown beside the score (docs/rules.md, the sheet)
                cell["why"] = "minimax" if row.id in c.folded else "zeroed"
            boxes[row.id] = cell
        column: dict[str, Any] = {
            "boxes": boxes,
            "upper": c.upper if shown else None,
            "bonus": c.bonus if shown else None,
            "bonus_to_go": c.bonus_to_go if shown else None,
            "total": c.total if shown else None,
        }
        if factors:
            column["minimax"] = c.minimax if shown else None
            if shown and c.minimax is not None:  # (max - min) x ones, from the written values it multiplies
                column["minimax_of"] = [written[ci * rules.n_rows + rules.row_index[r]] for r in factors]
        columns[c.id] = column
    return columns
