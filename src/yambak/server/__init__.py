"""The web table: FastAPI app, WebSocket protocol, live tables over the store.

`create_app` and `Settings` load on first use, so that `yambak --help` and the
other commands do not pay for importing the web stack.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    if name == "Settings":
        from .settings import Settings

        return Settings
    raise AttributeError(name)
