"""The FastAPI application: routes, error handlers, startup (migrate, resume tables, resume bots)."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..store import Store
from ..web import STATIC
from .keeper import KeeperManager
from .routes import api, keeper, pages, ws
from .settings import Settings
from .tables import TableError, TableManager

log = logging.getLogger("yambak.server")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> Any:
        store = Store(settings.database_url)
        manager = TableManager(store, settings)
        n = manager.load_unfinished()
        log.info("resumed %d unfinished tables", n)
        app.state.store = store
        app.state.manager = manager
        app.state.keeper = KeeperManager(store, settings)
        manager.start_bots()
        yield
        for table in manager.tables.values():
            if table.bot_task:
                table.bot_task.cancel()
        store.close()

    app = FastAPI(title="yambak", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings

    @app.middleware("http")
    async def limit_body(request: Request, call_next: Any) -> Any:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > settings.max_body_bytes):
            return JSONResponse({"code": "input/too-large", "message": "request body too large"}, status_code=413)
        if request.method in ("POST", "PUT") and length is None and request.headers.get("transfer-encoding"):
            return JSONResponse({"code": "input/length-required", "message": "send a Content-Length"}, status_code=411)
        return await call_next(request)

    @app.exception_handler(TableError)
    async def table_error(request: Request, exc: TableError) -> JSONResponse:
        return JSONResponse(exc.to_dict(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()))
        return JSONResponse({"code": "input/invalid", "message": f"{where}: {first.get('msg', 'invalid')}"},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "http/not-found", 405: "http/method-not-allowed"}.get(exc.status_code, "http/error")
        return JSONResponse({"code": code, "message": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return JSONResponse({"code": "server/error", "message": "something went wrong on the server"},
                            status_code=500)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(api.router)
    app.include_router(pages.router)
    app.include_router(ws.router)
    app.include_router(keeper.router)
    return app
