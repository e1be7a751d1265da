"""What every phone following a kept sheet sees: the keeper core's view of the engine's state."""

from __future__ import annotations

from ...keeper import record_dict, sheet_view
from ...viewtypes import SheetView
from ..session.model import Session

__all__ = ["keeper_view", "record_dict"]


def keeper_view(sheet: Session) -> SheetView:
    """What every phone following the sheet sees (`yambak.keeper.sheet_view`: the same dict a phone
    computes offline with its own copy of the engine)."""
    return sheet_view(sheet.state, id=sheet.id, name=sheet.name, v=sheet.version)
