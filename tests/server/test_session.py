"""A live table and a kept sheet are one game session: what both managers did alike lives once, in
`server/session` (issue 20: the 26 method names both defined before the session core existed)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from yambak.server.keeper.manager import KeeperManager
from yambak.server.session import Replica, SessionFront, SessionKind, SessionManager
from yambak.server.tables.manager import TableManager

ROOT = Path(__file__).resolve().parents[2]
SHARED_BEFORE = {
    "__init__", "_apply", "_build", "_demoted", "_drain", "_enter", "_forget", "_load", "_make_room",
    "_plausible", "_refresh_locked", "aget", "create", "evict_finished", "evict_idle_mirrors", "get",
    "handle_rpc", "lost_lease", "on_message", "owned_ids", "promote", "refresh", "release",
    "reload_names", "take_over", "watched_ids",
}  # fmt: skip


def _defined(cls: type) -> set[str]:
    """The methods a class's own body defines (not inherited)."""
    path = Path(__import__(cls.__module__, fromlist=["x"]).__file__)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__).body
    return {f.name for f in body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _documented_differences() -> set[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = text.split("<!-- differences:", 1)[1].split("<!-- /differences -->", 1)[0]
    return set(re.findall(r"^- `([A-Za-z_]+)`", block, re.M))


def test_what_both_managers_did_alike_is_implemented_once() -> None:
    differences = _documented_differences()
    assert differences == {"__init__", "create"}
    for cls in (TableManager, KeeperManager):
        assert issubclass(cls, SessionFront)  # it holds the one session core, as `core`
        again = (_defined(cls) & SHARED_BEFORE) - differences
        assert not again, f"{cls.__name__} defines {sorted(again)} again"
    # the core has each of them (`_apply`, how a logged event changes the state, is the hook `apply_logged`;
    # the ones a feature's manager calls are public now, under these names)
    renamed = {"_build": "build", "_forget": "drop", "_load": "load", "_make_room": "make_room"}
    core = _defined(SessionManager) | _defined(Replica)
    wanted = {renamed.get(name, name) for name in SHARED_BEFORE - differences - {"_apply"}}
    assert wanted <= core, wanted - core
    assert "apply_logged" in _defined(SessionKind)  # a hook of the kind's, no method of a manager


def test_the_session_core_is_one_final_class_that_each_manager_holds() -> None:
    """What differs between a table and a sheet is their `SessionKind` (issue 31: 21 hook overrides before):
    no class extends the core, and a feature's manager passes the core's requests through unchanged."""
    assert getattr(SessionManager, "__final__", False)
    for cls in (TableManager, KeeperManager):
        assert not issubclass(cls, SessionManager)
        overridden = (_defined(cls) & (_defined(SessionFront) | _defined(SessionManager))) - {"__init__"}
        assert not overridden, f"{cls.__name__} defines {sorted(overridden)} of the core again"
