"""Logs as operators read them: plain lines, or one JSON object per line (`YAMBAK_LOG_FORMAT=json`).

An error is one line in either format, never a traceback of a thousand frames (a RecursionError's
would be ~400 kB): its type, message and the innermost frames (`one_line`). An unexpected error
in a request also gets an id (`log_unexpected`) that the client is told, to find its line.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import socket
import traceback
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

_NODE = f"{socket.gethostname()}-{os.getpid()}"
FRAMES = 4  # the innermost frames a logged error shows
ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None] | tuple[None, None, None]


def one_line(exc_info: ExcInfo) -> str:
    """`Type: message at file:line function < ...` (innermost first), on one line, at most ~1 kB."""
    kind, value, tb = exc_info
    if kind is None:
        return ""
    frames = traceback.extract_tb(tb)
    where = " < ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames[-FRAMES:]))
    more = f" (+{len(frames) - FRAMES} frames)" if len(frames) > FRAMES else ""
    message = " ".join(str(value).split())[:400]
    return f"{kind.__name__}: {message}" + (f" at {where}{more}" if where else "")


def log_unexpected(log: logging.Logger, what: str, exc: BaseException) -> str:
    """Log an error nobody expected as one line with a fresh id; returns the id (for the client)."""
    error_id = secrets.token_hex(4)
    log.error("error %s in %s: %s", error_id, what, one_line((type(exc), exc, exc.__traceback__)))
    return error_id


class LineFormatter(logging.Formatter):
    """The plain format, with any traceback folded into the same line (`one_line`)."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{record.levelname} {record.name}: {record.getMessage()}"
        if record.exc_info:
            line += f" [{one_line(record.exc_info)}]"
        return line.replace("\n", " ")


class JsonFormatter(logging.Formatter):
    """`{"ts", "level", "logger", "msg", "node", "pid"}` and an error as `exc` (`one_line`), one line each."""

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
            out["exc"] = one_line(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def setup(fmt: str | None = None) -> None:
    """Configure the root logger once: `fmt` "json" or "text" (default: $YAMBAK_LOG_FORMAT, else text)."""
    fmt = fmt or os.environ.get("YAMBAK_LOG_FORMAT", "text")
    handler = logging.StreamHandler()
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(LineFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
