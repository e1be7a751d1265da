"""The server's start and stop: the store, the cluster, the features (tables, kept sheets, profiles,
deals, ranked games, push) made and wired through their events, and the loops that run beside them
(turn clock, gauges, dealer, full garbage collections), stopped in turn at the end."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from ..store import Store
from . import metrics
from .cluster import Cluster, SharedSocketCaps
from .common.events import Events, TurnSignal
from .daily.clubs import ClubManager
from .daily.manager import DealManager, keep_dealing
from .keeper.manager import KeeperManager
from .limits import SocketCaps
from .profiles.manager import ProfileManager
from .push import PushManager
from .ranked.manager import RankedManager
from .settings import Settings
from .tables.manager import TableManager

__all__ = ["lifespan_of", "tune_gc", "warm_presets", "warm_strategies"]

log = logging.getLogger("yambak.server")


@dataclass(frozen=True)
class Running:
    """What `stop` closes: the features that hold threads, processes or connections, and the loops."""

    store: Store
    cluster: Cluster | None
    manager: TableManager
    profiles: ProfileManager
    push: PushManager
    loops: tuple[asyncio.Task[None], ...]


def lifespan_of(settings: Settings) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan: every feature started before the first request, stopped after the last."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        running = await start(app, settings)
        yield
        await stop(running, app)

    return lifespan


async def start(app: FastAPI, settings: Settings) -> Running:
    """Make the features, resume what a restart left (tables, bots, grades) and put them on `app.state`."""
    # Threads that touch the database (reads, SQLite's writes, the grader's) hand the GIL back and forth
    # with the event loop at every round trip: a short switch interval keeps a busy loop from delaying
    # each by 5 ms.
    sys.setswitchinterval(0.001)
    store = Store(settings.database_url, synchronous=settings.synchronous_commit)
    if settings.gc_full_seconds:
        tune_gc()
    cluster = Cluster(settings.redis_url, settings.lease_seconds) if settings.redis_url else None
    events = Events()  # where the features below hear of each other
    manager, keeper_manager = await _sessions(store, settings, cluster, events)
    profile_manager = ProfileManager(store, settings, app.state.profile_limiter, events, keeper_manager.live_record)
    profile_manager.grader.warm()
    profile_manager.grader.submit(store.ungraded())  # results a restart left without their grade
    app.state.store = store
    app.state.manager = manager
    app.state.keeper = keeper_manager
    app.state.profiles = profile_manager
    app.state.cluster = cluster
    caps = (settings.sockets_per_address_session, settings.sockets_per_address, settings.sockets_per_session)
    app.state.sockets = SharedSocketCaps(cluster, *caps) if cluster is not None else SocketCaps(*caps)
    push_manager = _games(app, store, settings, manager, events, profile_manager)
    manager.start_bots()
    if settings.warm_strategies:
        warm_strategies()
    loops = [
        asyncio.create_task(_gauges(manager, keeper_manager)),
        asyncio.create_task(_tick(manager)),
        asyncio.create_task(keep_dealing(app.state.deals)),
    ]
    if settings.gc_full_seconds:
        loops.append(asyncio.create_task(_collect_garbage(settings.gc_full_seconds)))
    return Running(store, cluster, manager, profile_manager, push_manager, tuple(loops))


async def _sessions(
    store: Store, settings: Settings, cluster: Cluster | None, events: Events
) -> tuple[TableManager, KeeperManager]:
    """The live tables and the kept sheets on this loop, in the cluster if there is one, the unfinished
    tables resumed."""
    manager = TableManager(store, settings, cluster, events)
    manager.loop = asyncio.get_running_loop()
    keeper_manager = KeeperManager(store, settings, cluster, events)
    keeper_manager.loop = manager.loop
    if cluster is not None:
        cluster.owners = {"table": manager.replica, "sheet": keeper_manager.replica}
        cluster.orphans = manager.orphans
        await cluster.start()
    n = manager.load_unfinished()
    log.info("resumed %d unfinished tables", n)
    return manager, keeper_manager


def _games(
    app: FastAPI,
    store: Store,
    settings: Settings,
    manager: TableManager,
    events: Events,
    profile_manager: ProfileManager,
) -> PushManager:
    """The features that open tables of their own (deals, clubs, ranked games) and push's turn signals."""
    app.state.deals = DealManager(store, settings, manager, background=profile_manager.grader.run)
    app.state.ranked = RankedManager(store, settings, manager, events)
    app.state.push = push_manager = PushManager(store, settings)  # makes the VAPID key at the first start
    events.on_async(TurnSignal, push_manager.on_turn)

    def admit(table: Any) -> Any:  # a ranked game waits for its players; a deal's tables stop at its close
        app.state.ranked.admit(table)
        return app.state.deals.admit(table)

    manager.admit = admit
    app.state.clubs = ClubManager(app.state.deals)
    return push_manager


async def stop(running: Running, app: FastAPI | None = None) -> None:
    """The loops cancelled, the bots stopped, then the cluster, push, grader, coaches and store closed (the
    trainer's coach and the strategy figures' process where a request made them: `app.state.trainer` and
    `app.state.strategy_jobs`, made by their routes)."""
    for loop in running.loops:
        loop.cancel()
    manager = running.manager
    for table in manager.sessions.values():
        manager.bots.stop(table)
    if running.cluster is not None:
        await running.cluster.stop()
    running.push.close()
    running.profiles.grader.close()
    manager.coach.close()
    for made in ("trainer", "strategy_jobs"):
        service = getattr(app.state, made, None) if app is not None else None
        if app is not None and service is not None:
            service.close()
            setattr(app.state, made, None)  # an app started again makes them anew, on its own store
    await running.store.aclose()


def _warm(presets: tuple[str, ...]) -> None:
    for preset in presets:
        try:
            from ..solver import solve

            strategy = solve(preset, lean=True)  # what the bots and the coach read (bots.optimal)
            log.info("strategy table for %s ready (%s)", preset, "loaded" if strategy.loaded else "computed")
        except Exception:  # a cold first move is slower, never a broken server
            log.exception("strategy table for %s could not be prepared", preset)


def warm_presets() -> tuple[str, ...]:
    """The daily presets (the registry) the exact solver takes: their tables are loaded at start."""
    from ..rules import load_ruleset
    from ..rules.registry import daily_presets
    from ..solver import UnsupportedRuleset, table_states

    out = []
    for preset in daily_presets():
        try:
            table_states(load_ruleset(preset))
        except UnsupportedRuleset:
            continue
        out.append(preset)
    return tuple(out)


def warm_strategies(presets: tuple[str, ...] | None = None) -> threading.Thread:
    """Load (or compute once, then cached on disk) the hard bots' strategy tables in the background,
    so that the first hard-bot move of a fresh server does not wait for them. Never blocks startup."""
    if presets is None:  # the registry: the daily presets the solver takes
        presets = warm_presets()
    thread = threading.Thread(target=_warm, args=(presets,), name="yambak-warm-strategies", daemon=True)
    thread.start()
    return thread


async def _tick(manager: TableManager) -> None:
    """Once a second: the turns the stand-in plays now go to a bot (a clock ran out, a player is away),
    and seats held on processes that died leave."""
    while True:
        await asyncio.sleep(1.0)
        try:
            manager.tick()
            await manager.sweep()
        except Exception:  # a clock must never stop the server
            log.exception("turn clock")


_gc_started = [0.0]


def _gc_pause(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _gc_started[0] = time.perf_counter()
    else:
        metrics.GC_PAUSE.labels(str(info.get("generation", "?"))).observe(time.perf_counter() - _gc_started[0])


def tune_gc() -> None:
    """A server's heap is mostly long-lived game states: Python's automatic full collections scan all of it
    (hundreds of milliseconds with a thousand tables, every few seconds under load). Freeze what startup
    made, leave the young collections as they are, and run the full one on a timer instead."""
    if _gc_pause not in gc.callbacks:
        gc.callbacks.append(_gc_pause)
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 1_000_000)  # full collections: `_collect_garbage` only


async def _collect_garbage(every: float) -> None:
    while True:
        await asyncio.sleep(every)
        gc.collect()


async def _gauges(manager: TableManager, keeper_manager: KeeperManager) -> None:
    """Keep the tables and connections gauges current (and drop mirrors nobody here watches), and add up
    where the actions' CPU went."""
    writer_seen = manager.store.writer_cpu()
    while True:
        await asyncio.sleep(1.0)
        try:
            writer_now = manager.store.writer_cpu()
            metrics.flush_cpu(max(0.0, writer_now - writer_seen))
            writer_seen = writer_now
            if manager.cluster is not None:
                manager.evict_idle_mirrors()
                keeper_manager.evict_idle_mirrors()
            sessions = [*manager.sessions.values(), *keeper_manager.sessions.values()]
            owned = sum(s.owned for s in sessions)
            metrics.TABLES.labels("owned").set(owned)
            metrics.TABLES.labels("mirror").set(len(sessions) - owned)
            metrics.CONNECTIONS.set(sum(len(s.conns) for s in sessions))
        except Exception:
            log.exception("gauges")
