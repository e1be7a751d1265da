"""The FastAPI application: routes, error handlers, startup (migrate, resume tables, resume bots)."""

from __future__ import annotations

import asyncio
import logging
import threading
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..store import Store
from ..web import STATIC
from ..web.i18n import localize_error
from .deps import get_lang
from .keeper.manager import KeeperManager
from .limits import ClientLimiter
from .live import RequestError
from .routes import api, keeper, pages, ws
from .settings import Settings
from .tables.manager import TableManager

log = logging.getLogger("yambak.server")


WARM_PRESETS = ("yams", "yatzy")


def _warm(presets: tuple[str, ...]) -> None:
    for preset in presets:
        try:
            from ..solver import solve

            strategy = solve(preset)
            log.info("strategy table for %s ready (%s)", preset, "loaded" if strategy.loaded else "computed")
        except Exception:  # a cold first move is slower, never a broken server
            log.exception("strategy table for %s could not be prepared", preset)


def warm_strategies(presets: tuple[str, ...] = WARM_PRESETS) -> threading.Thread:
    """Load (or compute once, then cached on disk) the hard bots' strategy tables in the background,
    so that the first hard-bot move of a fresh server does not wait for them. Never blocks startup."""
    thread = threading.Thread(target=_warm, args=(presets,), name="yambak-warm-strategies", daemon=True)
    thread.start()
    return thread


async def _tick(manager: TableManager) -> None:
    """The turn clocks: once a second, turns whose clock ran out go to a bot."""
    while True:
        await asyncio.sleep(1.0)
        try:
            manager.tick()
        except Exception:  # a clock must never stop the server
            log.exception("turn clock")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        store = Store(settings.database_url)
        manager = TableManager(store, settings)
        manager.loop = asyncio.get_running_loop()
        n = manager.load_unfinished()
        log.info("resumed %d unfinished tables", n)
        app.state.store = store
        app.state.manager = manager
        app.state.keeper = KeeperManager(store, settings)
        manager.start_bots()
        if settings.warm_strategies:
            warm_strategies()
        ticker = asyncio.create_task(_tick(manager))
        yield
        ticker.cancel()
        for table in manager.tables.values():
            if table.bot_task:
                table.bot_task.cancel()
        store.close()

    app = FastAPI(title="yambak", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    app.state.limiter = ClientLimiter(settings.http_rate, settings.http_burst)

    @app.middleware("http")
    async def limit_body(request: Request, call_next: Any) -> Any:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > settings.max_body_bytes):
            return JSONResponse({"code": "input/too-large", "message": "request body too large"}, status_code=413)
        if request.method in ("POST", "PUT") and length is None and request.headers.get("transfer-encoding"):
            return JSONResponse({"code": "input/length-required", "message": "send a Content-Length"}, status_code=411)
        return await call_next(request)

    @app.exception_handler(RequestError)
    async def refused(request: Request, exc: RequestError) -> JSONResponse:
        return JSONResponse(localize_error(exc.to_dict(), get_lang(request)), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()))
        return JSONResponse(
            {"code": "input/invalid", "message": f"{where}: {first.get('msg', 'invalid')}"}, status_code=422
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "http/not-found", 405: "http/method-not-allowed"}.get(exc.status_code, "http/error")
        return JSONResponse({"code": code, "message": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return JSONResponse({"code": "server/error", "message": "something went wrong on the server"}, status_code=500)

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(
            (STATIC / "keeper-icon.svg").read_bytes(),
            media_type="image/svg+xml",
            headers={"Cache-Control": "max-age=86400"},
        )

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(ws.router)
    app.include_router(keeper.router)
    return app
