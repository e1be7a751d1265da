"""Shared helpers for server tests: an in-process app and a real server process."""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import redis


def browser(server: Any, **kwargs: Any) -> Any:
    """Another browser on the server that the client `server` runs (its own cookies, headers and address).
    It shares the running server's event loop, as every request does on a real server: a client of its
    own would run each request on a loop of its own, and a task one request starts (a bot's move) would
    die with that loop, holding the table's lock (the join that hung in CI)."""
    from fastapi.testclient import TestClient  # here: the bench scripts import this module too

    assert server.portal is not None, "the server's client runs inside its `with` block"
    other = TestClient(server.app, base_url="http://127.0.0.1", **kwargs)
    other.portal = server.portal
    return other


def free_port() -> int:
    """A port free now, below the kernel's range for outgoing connections (32768 and up on Linux): the
    server binds it a second or two later, and a port the kernel handed out could meanwhile be taken by
    a connection of the other test worker's."""
    rng = random.SystemRandom()
    for _ in range(100):
        port = rng.randrange(20000, 32000)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and 32000")


class OwnRedis:
    """A redis-server of this test's own: started, stopped and started again by its pid."""

    def __init__(self, folder: Path) -> None:
        self.port, self.folder = free_port(), folder
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        exe = shutil.which("redis-server")
        assert exe, "redis-server is not installed (scripts/test-services.sh installs it)"
        args = [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.proc = subprocess.Popen([*args, "--dir", str(self.folder)], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                redis.Redis.from_url(self.url, socket_timeout=1).ping()
                return
            except redis.RedisError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def stop(self) -> None:
        assert self.proc is not None
        self.proc.terminate()
        self.proc.wait(10)


class ServerProcess:
    """A real `yambak serve` process on 127.0.0.1 (one of a cluster when `redis` is given)."""

    def __init__(
        self,
        db_url: str,
        bot_delay: float = 0.0,
        env: dict[str, str] | None = None,
        redis: str | None = None,
        port: int | None = None,
        log_path: str | None = None,
        workers: int | None = None,
    ) -> None:
        self.db_url, self.bot_delay, self.redis, self.workers = db_url, bot_delay, redis, workers
        self.env = env or {}
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, wait: float = 30) -> ServerProcess:
        exe = Path(sys.executable).with_name("yambak")
        args = [str(exe), "serve", "--host", "127.0.0.1", "--port", str(self.port), "--db", self.db_url]
        args += ["--bot-delay", str(self.bot_delay)]
        if self.redis:
            args += ["--redis", self.redis]
        if self.workers:
            args += ["--workers", str(self.workers)]
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            args,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={
                **os.environ,
                "YAMBAK_WARM_STRATEGIES": "0",
                "YAMBAK_HTTP_RATE": "100",
                "YAMBAK_HTTP_BURST": "1000",
                **self.env,
            },
        )
        if out is not subprocess.DEVNULL:
            out.close()
        deadline = time.monotonic() + wait
        with httpx.Client(timeout=1) as http:  # one client: httpx.get makes one (and its TLS context) per call
            while True:
                try:
                    if http.get(self.base + "/readyz").status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("the server did not start")
                time.sleep(0.1)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def kill(self) -> None:
        """SIGKILL: no goodbye, its leases stay until the others notice."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@contextmanager
def server_process(
    db_url: str, bot_delay: float = 0.0, env: dict[str, str] | None = None, redis: str | None = None
) -> Iterator[str]:
    """`yambak serve` in its own process on 127.0.0.1; yields the base URL."""
    server = ServerProcess(db_url, bot_delay, env, redis).start()
    try:
        yield server.base
    finally:
        server.stop()


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

    def next(self) -> dict[str, Any]:
        """The next message other than a `state` (the table as it is now, sent when somebody comes or goes)."""
        while (out := self.recv())["type"] == "state":
            pass
        return out

    def act(self, **msg: Any) -> dict[str, Any]:
        """Send an action; return its answer (the event, or an error), past the table as it is now that
        another client's coming or going sends (a `state`)."""
        self.send(msg)
        return self.next()


def legal(turn: dict) -> list[str]:
    """The boxes a turn view offers now (the engine's outlook), in sheet order."""
    return [box for box, o in turn["boxes"].items() if o["legal"]]
