"""Prometheus metrics of one server process (`/metrics`, text format).

With `yambak serve --workers N` the workers share one multiprocess directory
(`PROMETHEUS_MULTIPROC_DIR`, set by the command), and `/metrics` adds them up.
"""

from __future__ import annotations

import os
import time
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

__all__ = [
    "ACTIONS",
    "CPU",
    "LOOP_CPU",
    "PHASES",
    "CONNECTIONS",
    "CONTENT_TYPE",
    "FORWARDED",
    "GC_PAUSE",
    "HANDOFFS",
    "LATENCY",
    "LEASE_MOVES",
    "PUSHES",
    "QUIET",
    "REREAD",
    "TABLES",
    "render",
]

CONTENT_TYPE = CONTENT_TYPE_LATEST

ACTIONS = Counter("yambak_actions", "Accepted actions committed by this process (table actions and sheet entries)")
LATENCY = Histogram(
    "yambak_action_seconds",
    "From an action reaching its table's owner to its event being committed and broadcast",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
FORWARDED = Counter("yambak_forwarded", "Requests forwarded to the process that owns their table or sheet")
LEASE_MOVES = Counter("yambak_lease_moves", "Tables and sheets this process took over from another (dead) owner")
HANDOFFS = Counter("yambak_handoffs", "Tables handed to this process by an owner none of whose sockets sat at them")
PUSHES = Counter("yambak_pushes", "Web Push messages sent, by outcome (delivered, gone, failed)", ["outcome"])
REREAD = Counter(
    "yambak_reread", "Tables and sheets read again from the log: their copy here was behind it (events lost on the way)"
)
QUIET = Counter("yambak_quiet_events", "Events not sent to Redis: no other process followed their table or sheet")
TABLES = Gauge("yambak_tables", "Tables and sheets in memory", ["role"], multiprocess_mode="livesum")
CONNECTIONS = Gauge("yambak_connections", "Open WebSocket connections", multiprocess_mode="livesum")
GC_PAUSE = Histogram(
    "yambak_gc_pause_seconds",
    "Pauses of Python's cyclic garbage collector (the event loop waits for them)",
    ["generation"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0),
)


# Where an action's CPU goes on its owner (bench/load.py reads them): the engine's move, the views made for
# its followers, the commit's part on the event loop (the snapshot, the write handed to the writer), the
# store's writer thread (SQLite's; PostgreSQL's transactions run on the event loop), and the broadcast (JSON
# texts, sockets' queues, the publish to Redis). Summed in plain floats on the way (`cpu_add`) and added to
# the counter once a second (`flush_cpu`).
PHASES = ("engine", "view", "commit", "store", "broadcast")
CPU = Counter("yambak_action_cpu_seconds", "CPU time of the actions' path on their owner, by phase", ["phase"])
LOOP_CPU = Counter("yambak_loop_cpu_seconds", "CPU time of the event loop's thread (everything an action costs there)")
_cpu = dict.fromkeys(PHASES, 0.0)
_loop_seen: list[float | None] = [None]


def cpu_add(phase: str, seconds: float) -> None:
    _cpu[phase] += seconds


def cpu_now(phase: str) -> float:
    """What was summed for a phase since the last flush (a caller subtracts a part it timed twice)."""
    return _cpu[phase]


def flush_cpu(store_seconds: float = 0.0) -> None:
    """Add what was summed since the last call (run on the event loop's thread: its CPU is measured here
    too); `store_seconds`: the writer thread's CPU since the last call."""
    _cpu["store"] += store_seconds
    for phase, seconds in _cpu.items():
        if seconds:
            CPU.labels(phase).inc(seconds)
            _cpu[phase] = 0.0
    now, before = time.thread_time(), _loop_seen[0]
    if before is not None:
        LOOP_CPU.inc(max(0.0, now - before))
    _loop_seen[0] = now


def render() -> tuple[bytes, str]:
    """The metrics text of this process, or of every worker when they share a multiprocess directory."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry: Any = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # prometheus_client's, untyped
        return generate_latest(registry), CONTENT_TYPE
    return generate_latest(), CONTENT_TYPE
