"""Strategy figures of the rulesets no shipped file covers (a table's house rules, a preset whose file
is not built), computed on the server in the background and kept.

One ruleset at a time, in a process of its own at idle priority (the coach's kind: `CoachPool`), which
also keeps to the grading share (`YAMBAK_GRADE_SHARE`): after each block of games it waits as long as
that block took, times (1 / share - 1). Grades and reviews keep their own process: a ruleset takes
minutes, and a game's grade would otherwise wait behind it. The figures land in the cache folder
(`strategy.keep`), so a restart or another server process finds them; while they are computed, the
worker writes how far it is into a file beside them, which every process reads for the page's progress.
"""

from __future__ import annotations

import fcntl
import json
import logging
import threading
import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ...rules import Ruleset, load_ruleset
from ..common.coach import CoachPool

__all__ = ["Progress", "StrategyJobs", "compute", "pause_after"]

log = logging.getLogger("yambak.server")

State = Literal["ready", "running", "queued", "failed"]


@dataclass(frozen=True)
class Progress:
    """How far a ruleset's figures are: `done` of `total` games, `ahead` rulesets queued before it,
    `seconds_left` estimated from the pace so far (None before the first block)."""

    state: State
    done: int = 0
    total: int = 0
    ahead: int = 0
    seconds_left: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "done": self.done, "total": self.total, "ahead": self.ahead,
                "seconds_left": self.seconds_left}  # fmt: skip


def pause_after(cpu_seconds: float, share: float) -> float:
    """The wait after `cpu_seconds` of work that keeps the work to `share` of a core."""
    share = min(1.0, max(0.01, share))
    return max(0.0, cpu_seconds) * (1 / share - 1)


def _progress_path(rules: Ruleset, folder: Path | None) -> Path:
    from ...strategy.data_files import kept_path

    return kept_path(rules, folder).with_suffix(".progress")


def compute(spec: Any, games: int | None, share: float, folder: Path | None = None) -> int:
    """Compute and keep a ruleset's figures (in the background process): returns the games played. Another
    server process computing the same ruleset holds its lock: this one waits for it and reads its figures."""
    from ...strategy.data_files import stored

    rules = load_ruleset(spec)
    lock = _progress_path(rules, folder).with_suffix(".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # released when the file closes, or the process dies
        data = stored(rules, folder)
        return data.games if data is not None else _compute(rules, games, share, folder)


def _compute(rules: Ruleset, games: int | None, share: float, folder: Path | None) -> int:
    from ...strategy.data_files import keep
    from ...strategy.report import build, has_table

    total = games if games is not None else (100_000 if has_table(rules) else 2_000)
    path = _progress_path(rules, folder)
    started = time.monotonic()
    done = 0
    cpu = time.process_time()
    written = 0.0

    def write() -> None:
        path.write_text(json.dumps({"done": done, "total": total, "seconds": time.monotonic() - started}))

    def progress(n: int) -> None:
        nonlocal done, cpu, written
        done += n
        now = time.monotonic()
        if now - written >= 0.5 or done >= total:
            write()
            written = now
        spent, cpu = time.process_time() - cpu, time.process_time()
        time.sleep(pause_after(spent, share))
        cpu = time.process_time()

    write()
    try:
        data = build(rules, total, 0, progress=progress)
        keep(rules, data, folder)
    finally:
        path.unlink(missing_ok=True)
    return data.games


class StrategyJobs:
    """The server's queue of rulesets whose figures are being computed (one at a time, first asked first)."""

    def __init__(
        self,
        processes: bool = True,
        share: float = 0.25,
        games: int | None = None,
        folder: Path | None = None,
    ) -> None:
        self.share, self.games, self.folder = share, games, folder
        self.pool = CoachPool(processes, "yambak-strategy", idle=True)  # spawned with the first ruleset
        self.runner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="yambak-strategy")
        self._lock = threading.Lock()
        self._waiting: deque[str] = deque()  # fingerprints, in the order asked
        self._rules: dict[str, Ruleset] = {}  # every ruleset asked for here, by fingerprint
        self._running: str | None = None
        self._failed: set[str] = set()
        self._figures: dict[str, Any] = {}  # StrategyData read once ready

    def figures(self, rules: Ruleset) -> Any:
        """The ruleset's figures (`StrategyData`) where they exist (shipped or kept), else None."""
        from ...strategy.data_files import stored
        from ...strategy.report import fingerprint

        key = fingerprint(rules)
        data = self._figures.get(key)
        if data is None:
            data = stored(rules, self.folder)
            if data is not None:
                self._figures[key] = data
        return data

    def known(self, key: str) -> Ruleset | None:
        """A ruleset asked for here, by its fingerprint (what the progress route is given)."""
        return self._rules.get(key)

    def request(self, rules: Ruleset) -> Progress:
        """Where the figures stand; a ruleset without them joins the queue (once: one that failed is not
        tried again until the server restarts)."""
        from ...strategy import fingerprint

        if self.figures(rules) is not None:
            return Progress("ready")
        key = fingerprint(rules)
        with self._lock:
            if key not in self._rules and key not in self._failed:
                self._rules[key] = rules
                self._waiting.append(key)
                self.runner.submit(self._next)
        return self.progress(rules)

    def progress(self, rules: Ruleset) -> Progress:
        from ...strategy import fingerprint

        if self.figures(rules) is not None:
            return Progress("ready")
        key = fingerprint(rules)
        with self._lock:
            if key in self._failed:
                return Progress("failed")
            if key in self._waiting:
                return Progress("queued", ahead=self._waiting.index(key) + (self._running is not None))
            if key != self._running:
                return Progress("queued")  # asked in another process: this one has not seen it start
        try:
            seen = json.loads(_progress_path(rules, self.folder).read_text(encoding="utf-8"))
            done, total, seconds = int(seen["done"]), int(seen["total"]), float(seen["seconds"])
        except (OSError, ValueError, KeyError, TypeError):  # not started in the worker yet
            return Progress("running")
        left = seconds / done * (total - done) if done else None
        return Progress("running", done, total, seconds_left=left)

    def _next(self) -> None:
        with self._lock:
            if not self._waiting:
                return
            key = self._running = self._waiting.popleft()
            rules = self._rules[key]
        try:
            self.pool.submit(compute, rules.spec, self.games, self.share, self.folder).result()
        except Exception:  # a ruleset the brain cannot play (or a process killed): said on the page
            log.warning("strategy figures of %s failed", rules.id, exc_info=True)
            with self._lock:
                self._failed.add(key)
        finally:
            with self._lock:
                self._running = None

    def close(self) -> None:
        self.runner.shutdown(wait=False, cancel_futures=True)
        self.pool.close()
