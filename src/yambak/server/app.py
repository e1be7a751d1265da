"""The FastAPI application: routes, error handlers, startup (migrate, resume tables, resume bots),
and what operators watch: `/healthz` (the process answers), `/readyz` (its database and Redis
answer), `/metrics` (Prometheus text format)."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import threading
import time
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..inputs import InputError, ascii_int, parse_json
from ..store import Store
from ..web import STATIC
from ..web.i18n import localize_error
from . import metrics
from .cluster import Cluster, RedisLimiter, SharedSocketCaps
from .common.events import Events, TurnSignal
from .daily.clubs import ClubManager
from .daily.manager import DealManager, keep_dealing
from .deps import get_lang
from .keeper.manager import KeeperManager
from .limits import ClientLimiter, SocketCaps
from .live import RequestError
from .logs import log_unexpected
from .profiles.manager import ProfileManager
from .push import PushManager
from .ranked.manager import RankedManager
from .routes import api, daily, keeper, pages, profiles, push, ranked, trainer, ws
from .security import SecurityHeaders, security_headers
from .settings import Settings
from .tables.manager import TableManager

log = logging.getLogger("yambak.server")


BIG_BODIES = frozenset({"/api/me/kept"})  # routes that take a whole game record


def _warm(presets: tuple[str, ...]) -> None:
    for preset in presets:
        try:
            from ..solver import solve

            strategy = solve(preset)
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


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        # Threads that touch the database (reads, SQLite's writes, the grader's) hand the GIL back and forth
        # with the event loop at every round trip: a short switch interval keeps a busy loop from delaying
        # each by 5 ms.
        sys.setswitchinterval(0.001)
        store = Store(settings.database_url, synchronous=settings.synchronous_commit)
        if settings.gc_full_seconds:
            tune_gc()
        cluster = Cluster(settings.redis_url, settings.lease_seconds) if settings.redis_url else None
        events = Events()  # where the features below hear of each other
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
        app.state.deals = DealManager(store, settings, manager, background=profile_manager.grader.run)
        app.state.ranked = RankedManager(store, settings, manager, events)
        app.state.push = push_manager = PushManager(store, settings)  # makes the VAPID key at the first start
        events.on_async(TurnSignal, push_manager.on_turn)

        def admit(table: Any) -> Any:  # a ranked game waits for its players; a deal's tables stop at its close
            app.state.ranked.admit(table)
            return app.state.deals.admit(table)

        manager.admit = admit
        app.state.clubs = ClubManager(app.state.deals)
        manager.start_bots()
        if settings.warm_strategies:
            warm_strategies()
        gauges = asyncio.create_task(_gauges(manager, keeper_manager))
        ticker = asyncio.create_task(_tick(manager))
        dealer = asyncio.create_task(keep_dealing(app.state.deals))
        collector = (
            asyncio.create_task(_collect_garbage(settings.gc_full_seconds)) if settings.gc_full_seconds else None
        )
        yield
        gauges.cancel()
        ticker.cancel()
        dealer.cancel()
        if collector is not None:
            collector.cancel()
        for table in manager.sessions.values():
            manager.bots.stop(table)
        if cluster is not None:
            await cluster.stop()
        push_manager.close()
        profile_manager.grader.close()
        manager.coach.close()
        await store.aclose()

    app = FastAPI(title="yambak", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    app.state.limiter = (
        RedisLimiter(settings.redis_url, settings.http_rate, settings.http_burst)
        if settings.redis_url
        else ClientLimiter(settings.http_rate, settings.http_burst)
    )
    app.state.profile_limiter = (
        RedisLimiter(settings.redis_url, settings.profile_rate, settings.profile_burst)
        if settings.redis_url
        else ClientLimiter(settings.profile_rate, settings.profile_burst)
    )

    @app.middleware("http")
    async def bound_body(request: Request, call_next: Any) -> Any:
        """Every body is bounded before any route reads it: its size, and a JSON body's shape (nesting,
        numbers: `inputs.check_shape`), so that no handler ever meets a 5,000-digit number or a deep nest."""
        length = request.headers.get("content-length")
        limit = settings.max_record_bytes if request.url.path in BIG_BODIES else settings.max_body_bytes
        if length is not None and ascii_int(length, limit) is None:
            return JSONResponse({"code": "input/too-large", "message": "request body too large"}, status_code=413)
        if request.method in ("POST", "PUT") and length is None and request.headers.get("transfer-encoding"):
            return JSONResponse({"code": "input/length-required", "message": "send a Content-Length"}, status_code=411)
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if length not in (None, "0") and (not kind or kind == "application/json" or kind.endswith("+json")):
            try:
                parse_json(await request.body())  # kept by Starlette for the route's own read
            except InputError as exc:
                return JSONResponse({"code": "input/invalid", "message": f"body: {exc}"}, status_code=422)
        return await call_next(request)

    @app.exception_handler(RequestError)
    async def refused(request: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse(localize_error(exc.to_dict(), get_lang(request)), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()))
        return JSONResponse(
            {"code": "input/invalid", "message": f"{where}: {first.get('msg', 'invalid')}"}, status_code=422
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "http/not-found", 405: "http/method-not-allowed"}.get(exc.status_code, "http/error")
        return JSONResponse({"code": code, "message": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        error_id = log_unexpected(log, f"{request.method} {request.url.path}", exc)
        message = f"something went wrong on the server (error {error_id})"
        headers = security_headers(request.url.path, settings.https)  # sent from outside the middleware
        return JSONResponse({"code": "server/error", "message": message, "id": error_id}, 500, headers)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(
            (STATIC / "keeper-icon.svg").read_bytes(),
            media_type="image/svg+xml",
            headers={"Cache-Control": "max-age=86400"},
        )

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> dict[str, Any]:
        return {"ok": True}

    @app.get("/readyz", include_in_schema=False)
    async def readyz(request: Request) -> JSONResponse:
        checks: dict[str, bool] = {}
        store: Store | None = getattr(request.app.state, "store", None)
        try:
            checks["database"] = store is not None and await store.read(store.ping)
        except Exception:
            checks["database"] = False
        cluster: Cluster | None = getattr(request.app.state, "cluster", None)
        if cluster is not None:
            try:
                checks["redis"] = await asyncio.wait_for(cluster.ping(), 2)
            except Exception:
                checks["redis"] = False
        ready = all(checks.values())
        return JSONResponse({"ready": ready, **checks}, status_code=200 if ready else 503)

    @app.get("/metrics", include_in_schema=False)
    def metrics_text() -> Response:
        body, content_type = metrics.render()
        return Response(body, media_type=content_type)

    app.add_middleware(SecurityHeaders, https=settings.https)  # the outermost of ours: every response
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(ws.router)
    app.include_router(keeper.router)
    app.include_router(profiles.router)
    app.include_router(daily.router)
    app.include_router(ranked.router)
    app.include_router(push.router)
    app.include_router(trainer.router)
    return app


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


def app_from_env() -> FastAPI:
    """The app of one `yambak serve --workers N` process: settings and log format from the environment."""
    from .logs import setup

    setup()
    return create_app(Settings())
