"""What every phone following a kept sheet sees: the keeper core's view of the engine's state."""

from __future__ import annotations

from typing import Any, cast

from ...keeper import record_dict, sheet_view

__all__ = ["keeper_view", "record_dict"]


def keeper_view(sheet: Any) -> dict[str, Any]:
    """What every phone following the sheet sees (`yambak.keeper.sheet_view`: the same dict a phone
    computes offline with its own copy of the engine)."""
    # the session core passes every kind's view on as JSON data (`SessionKind.view`)
    return cast(dict[str, Any], sheet_view(sheet.state, id=sheet.id, name=sheet.name, v=sheet.version))
