"""Names people type, as the server takes them: `yambak.names.normalize_name`, refused with a coded
`input/name` that faces translate."""

from __future__ import annotations

from ...names import NAME_MAX, InvalidName, normalize_name
from ..live import RequestError

__all__ = ["NAME_MAX", "TABLE_NAME_MAX", "clean_name"]

TABLE_NAME_MAX = 60  # tables, sheets, tournaments


def clean_name(name: object, what: str = "name", limit: int = NAME_MAX) -> str:
    """A player's, table's or sheet's name as others will see it (`yambak.names`), or `input/name`."""
    try:
        return normalize_name(name, what, limit)
    except InvalidName as exc:
        raise RequestError("input/name", exc.message, limit=limit) from None
