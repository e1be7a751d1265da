"""Write the socket protocol's JSON Schema, from its pydantic models, for the page scripts' types.

    make types      # src/yambak/web/static/protocol.schema.json, then protocol.d.ts (json-schema-to-typescript)

One document with every message of both directions, for a table's socket and a sheet's
(`server/session/protocol.py`, `server/session/views.py`, `server/tables/schema.py`,
`server/keeper/schema.py`). `tests/server/test_protocol.py` checks the file in the tree is this.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from yambak.server.keeper import schema as sheet
from yambak.server.tables import schema as table

OUT = Path(__file__).resolve().parents[1] / "src" / "yambak" / "web" / "static" / "protocol.schema.json"


class Protocol(BaseModel):
    """Every message of the game sockets: what the client sends and what the server answers."""

    model_config = ConfigDict(title="Protocol")
    table_client: table.ClientMessage
    table_server: table.ServerMessage
    sheet_client: sheet.ClientMessage
    sheet_server: sheet.ServerMessage


def _untitled(node: Any) -> Any:
    """Titles only on models: a field's own title would become a TypeScript alias of its own."""
    if isinstance(node, list):
        return [_untitled(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {key: _untitled(value) for key, value in node.items()}
    if isinstance(node.get("properties"), dict):
        fields = node["properties"].items()
        out["properties"] = {name: {k: v for k, v in _untitled(f).items() if k != "title"} for name, f in fields}
    return out


def schema() -> dict[str, Any]:
    return _untitled(Protocol.model_json_schema())


def text() -> str:
    return json.dumps(schema(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:  # make lint: the file in the tree is the models' schema
        if OUT.read_text(encoding="utf-8") != text():
            sys.exit(f"{OUT.name} is stale: make types")
    else:
        OUT.write_text(text(), encoding="utf-8")
