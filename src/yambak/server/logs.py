"""Logs as operators read them: plain lines, or one JSON object per line (`YAMBAK_LOG_FORMAT=json`)."""

from __future__ import annotations

import json
import logging
import os
import socket
from datetime import UTC, datetime

_NODE = f"{socket.gethostname()}-{os.getpid()}"


class JsonFormatter(logging.Formatter):
    """`{"ts", "level", "logger", "msg", "node", "pid"}` and the traceback as `exc`, one line each."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "node": _NODE,
            "pid": os.getpid(),
        }
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def setup(fmt: str | None = None) -> None:
    """Configure the root logger once: `fmt` "json" or "text" (default: $YAMBAK_LOG_FORMAT, else text)."""
    fmt = fmt or os.environ.get("YAMBAK_LOG_FORMAT", "text")
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
