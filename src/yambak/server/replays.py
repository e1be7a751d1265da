"""A finished game, turn by turn: what the replay viewer steps through.

`frame(record, n)` is the game as it stood after the record's turn n (0: before the first):
every player's sheet (the engine's column scores, as the table shows them), turn n itself
(its rolls, what was held before each reroll where the record says, the box and what it wrote)
and the seat of every turn of the game (the engine's, so that a page finds a player's turns).
The same for a table's record and a kept sheet's.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..engine import GameRecord, replay
from ..gameview import outright_view, sheet_columns

__all__ = ["frame"]


def frame(record: dict[str, Any], n: int, simultaneous: bool = False) -> dict[str, Any]:
    """The game after turn n (clamped to 0..the number of turns); RecordError for a broken record."""
    rec = GameRecord.from_dict(record)
    n = max(0, min(int(n), len(rec.turns)))
    done = n == len(rec.turns)
    part = replace(rec, turns=rec.turns[:n], rolloffs=rec.rolloffs if done else (), pending=(), outright=None)
    state = replay(part, simultaneous=simultaneous)
    out: dict[str, Any] = {
        "n": n,
        "turns": len(rec.turns),
        "round": rec.round(n) if n else 0,  # turn n as its player counts it
        "rounds": state.rules.n_boxes,  # the turns of each player in a whole game
        "players": [
            {"seat": p, "name": name, "total": state.total(p), "columns": sheet_columns(state, p)}
            for p, name in enumerate(rec.players)
        ],
        "turn": None,
        "seats": [rec.seat(k) for k in range(1, len(rec.turns) + 1)],  # the seat of every turn
    }
    if state.outright is not None:  # this turn (or an earlier one) won the game at once: docs/rules.md §7
        out["outright"] = outright_view(state)
    if n:
        t = rec.turns[n - 1]
        box = state.rules.parse_box(t.box)
        seat = state.history[-1].player
        out["turn"] = {
            "player": seat,
            "rolls": [list(r) for r in t.rolls],
            "held": [list(h) for h in t.held] if t.held is not None else None,
            "announce": t.announce,
            "box": state.rules.box_id(box) if box is not None else t.box,
            "strike": t.strike,
            "scratch": t.scratch,
            "written": state.sheets[seat].written[box] if box is not None else None,
        }
    return out
