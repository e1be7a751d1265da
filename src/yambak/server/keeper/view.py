"""What every phone following a kept sheet sees: read from the engine, nothing computed here."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...engine import GameState, state_to_record
from ..tables.view import rules_view, sheet_columns


def record_dict(state: GameState) -> dict[str, Any]:
    return replace(state_to_record(state), pending=()).to_dict()


def keeper_view(sheet: Any) -> dict[str, Any]:
    """What every phone following the sheet sees: read from the engine, nothing computed here."""
    state = sheet.state
    rules = state.rules
    points = state.match_points()
    players = [
        {
            "seat": p,
            "name": state.players[p],
            "total": state.total(p),
            "match_points": points[p] if points else None,
            "extra_bonus": state.sheets[p].extra_bonus if rules.joker is not None else None,
            "columns": sheet_columns(state, p),
            "full": state.sheets[p].full,
            # boxes the sheet can take after each roll number (before the dice are known)
            "fillable": {str(r): state.fillable(r, p) for r in range(1, rules.rolls_per_turn + 1)},
        }
        for p in range(len(state.players))
    ]
    history = []
    for n, t in enumerate(state.history, start=1):
        box = rules.parse_box(t.box)
        written = state.sheets[t.player].written[box] if box is not None else None
        # a scratch's dice are stand-ins (docs/decisions.md): show none
        history.append(
            {
                "n": n,
                "player": t.player,
                "dice": None if t.scratch else list(t.rolls[-1]),
                "roll": len(t.rolls),
                "box": t.box,
                "strike": t.strike,
                "scratch": t.scratch,
                "written": written,
            }
        )
    view: dict[str, Any] = {
        "id": sheet.id,
        "code": sheet.code,
        "name": sheet.name,
        "v": sheet.version,
        "rules": rules_view(rules),
        "players": players,
        "current": state.current,
        "finished": state.finished,
        "history": history,
    }
    if state.finished:
        view["winners"] = state.winners()
        view["column_winners"] = state.column_winners()
    return view
