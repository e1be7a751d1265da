"""Shared helpers for server tests: an in-process app and a real server process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def server_process(db_url: str, bot_delay: float = 0.0, env: dict[str, str] | None = None) -> Iterator[str]:
    """`yambak serve` in its own process on 127.0.0.1; yields the base URL."""
    port = free_port()
    exe = Path(sys.executable).with_name("yambak")
    log = open(os.devnull, "w")
    proc = subprocess.Popen(
        [str(exe), "serve", "--host", "127.0.0.1", "--port", str(port), "--db", db_url, "--bot-delay", str(bot_delay)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={
            **os.environ,
            "YAMBAK_WARM_STRATEGIES": "0",
            "YAMBAK_HTTP_RATE": "100",
            "YAMBAK_HTTP_BURST": "1000",
            **(env or {}),
        },
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(base + "/api/tables", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def create(
    client: Any,
    preset: str = "yams",
    seats: list[dict[str, Any]] | None = None,
    keep_cookies: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """Create a table over the API; the tests then name their seat tokens explicitly (cookies cleared)."""
    body = {"name": "Test table", "preset": preset, "seats": seats or [{"name": "Ann"}, {"name": "Bram"}], **extra}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    if not keep_cookies:
        client.cookies.clear()
    return r.json()


class WS:
    """A thin synchronous wrapper over Starlette's test WebSocket session."""

    def __init__(self, session: Any) -> None:
        self.s = session

    def send(self, msg: dict[str, Any]) -> None:
        self.s.send_json(msg)

    def recv(self) -> dict[str, Any]:
        return self.s.receive_json()

    def hello(self, tokens: list[str] = (), since: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        msg: dict[str, Any] = {"type": "hello", "tokens": list(tokens)}
        if since is not None:
            msg["since"] = since
        self.send(msg)
        welcome = self.recv()
        assert welcome["type"] == "welcome", welcome
        return welcome, self.recv()

    def act(self, **msg: Any) -> dict[str, Any]:
        """Send an action; return the next message (the event, or an error)."""
        self.send(msg)
        return self.recv()


def legal(turn: dict) -> list[str]:
    """The boxes a turn view offers now (the engine's outlook), in sheet order."""
    return [box for box, o in turn["boxes"].items() if o["legal"]]
