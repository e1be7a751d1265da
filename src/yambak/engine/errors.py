"""Typed errors with stable codes (sent to clients as they are) and human messages."""

from __future__ import annotations

import json

__all__ = ["YambakError", "IllegalAction", "RecordError", "shown"]


def shown(value: object) -> str:
    """A value inside an error message as a user typed it (JSON: "x", [1, 2], true), never a Python repr."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


class YambakError(ValueError):
    """Base of every error a user can cause. `code` is stable; `message` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class IllegalAction(YambakError):
    """An action the rules refuse; the state it was applied to is unchanged."""


class RecordError(YambakError):
    """A game record that cannot be replayed. `turn` is 1-based in the record's turn list."""

    def __init__(self, code: str, message: str, turn: int | None = None) -> None:
        super().__init__(code, message)
        self.turn = turn

    def __str__(self) -> str:
        return f"turn {self.turn}: {self.message}" if self.turn is not None else f"record: {self.message}"
