"""What the terminal takes from a server it does not trust: messages checked against the socket protocol's
JSON Schema (`web/static/protocol.schema.json`, written from the server's models, so the terminal needs
none of the server's code) and every text cleaned of control and escape sequences before it can reach the
terminal (a name or a message could otherwise write the clipboard, retitle the window or clear the screen).
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib.resources import files
from typing import Any, TypeGuard

from ..viewtypes import CoachAdvice, JSONObject, JSONValue, TableView

__all__ = [
    "ProtocolError",
    "check_server_message",
    "check_table_view",
    "clean",
    "clean_text",
    "is_coach_advice",
    "is_table_view",
]

# Escape sequences, removed whole: OSC (clipboard, title, hyperlinks) to BEL or ST, CSI, the string
# controls (DCS, SOS, PM, APC) to ST, and any other ESC sequence; 8-bit C1 forms too. An unterminated one
# runs to the end of the text.
_SEQUENCE = re.compile(
    r"(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?"
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
)
# What is left of the controls (C0, DEL, C1) and the bidirectional overrides that reorder what is shown.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class ProtocolError(ValueError):
    """A server message the protocol does not allow."""


def clean_text(text: str) -> str:
    """`text` without escape sequences or control characters; a tab or line break becomes a space."""
    text = _SEQUENCE.sub("", text)
    return _CONTROL.sub(lambda m: " " if m.group() in "\t\n\r" else "", text)


def clean(value: JSONValue) -> JSONValue:
    """Every string in a decoded JSON value cleaned (`clean_text`), keys included."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, list):
        return [clean(v) for v in value]
    if isinstance(value, dict):
        return _clean_object(value)
    return value


def _clean_object(value: JSONObject) -> JSONObject:
    return {clean_text(k): clean(v) for k, v in value.items()}


@cache
def _schema() -> dict[str, Any]:
    text = files("yambak").joinpath("web/static/protocol.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

    defs = _schema()["$defs"]
    return Draft202012Validator({"$defs": defs, "$ref": f"#/$defs/{name}"})


def _check(value: object, name: str) -> JSONObject:
    if not isinstance(value, dict):
        raise ProtocolError(f"a JSON {type(value).__name__}, not an object")
    error = next(iter(_validator(name).iter_errors(value)), None)
    if error is not None:
        where = "/".join(map(str, error.absolute_path)) or "the message"
        raise ProtocolError(f"{clean_text(where)[:80]}: {clean_text(error.message)[:160]}")
    return _clean_object(value)


def check_server_message(text: str | bytes) -> JSONObject:
    """One socket message from a table's server, decoded, checked against the protocol's schema and
    cleaned; ProtocolError when it is not JSON or not a message the protocol allows."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ProtocolError(f"not JSON ({exc.__class__.__name__})") from None
    kinds = _schema()["properties"]["table_server"]["discriminator"]["mapping"]  # type -> its definition
    kind = value.get("type") if isinstance(value, dict) else None
    if isinstance(value, dict) and not (isinstance(kind, str) and kind in kinds):
        raise ProtocolError(f"no message type {clean_text(str(kind))[:40]!r} in the protocol")
    return _check(value, str(kinds.get(kind, "")).rsplit("/", 1)[-1] or "Welcome")


def is_table_view(value: JSONValue) -> TypeGuard[TableView]:
    """Whether `value` is a table's view by the protocol's schema (whose `TableView` the TypedDict of that
    name mirrors: tests/test_viewtypes.py): a view in a message `check_server_message` passed is one."""
    return isinstance(value, dict) and bool(_validator("TableView").is_valid(value))


def is_coach_advice(value: JSONValue) -> TypeGuard[CoachAdvice]:
    """Whether `value` is the coach's advice by the protocol's schema (an advice message's, or the local
    coach's own `Advice.to_dict`)."""
    return isinstance(value, dict) and bool(_validator("CoachAdvice").is_valid(value))


def check_table_view(value: object) -> TableView:
    """A table's view as `GET /api/tables/{id}` answers it, checked and cleaned like a socket message."""
    view = _check(value, "TableView")
    if not is_table_view(view):  # cleaning keeps the shape: never, but read as the type it was checked to be
        raise ProtocolError("the table's view lost its shape when cleaned")
    return view
