"""The FastAPI application: what guards every request (body bounds, security headers), the error
handlers, the routes, and what operators watch: `/healthz` (the process answers), `/readyz` (its
database and Redis answer), `/metrics` (Prometheus text format). Startup and shutdown (migrate,
resume tables and bots, the background loops) are `lifespan.py`'s."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount

from ..inputs import InputError, ascii_int, parse_json
from ..store import Store
from ..web import STATIC
from ..web.i18n import localize_error
from . import metrics
from .cluster import Cluster, RedisLimiter
from .deps import get_lang
from .lifespan import lifespan_of
from .limits import ClientLimiter
from .live import RequestError, database_unavailable
from .logs import log_unexpected
from .openapi import document
from .routes import api, daily, keeper, pages, profiles, push, ranked, trainer, ws
from .security import SecurityHeaders, security_headers
from .settings import Settings

log = logging.getLogger("yambak.server")


BIG_BODIES = frozenset({"/api/me/kept"})  # routes that take a whole game record


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    app = FastAPI(title="yambak", lifespan=lifespan_of(settings), docs_url=None, redoc_url=None, openapi_url=None)
    app.state.settings = settings
    app.state.limiter = _limiter(settings, settings.http_rate, settings.http_burst)
    app.state.profile_limiter = _limiter(settings, settings.profile_rate, settings.profile_burst)
    _bound_bodies(app, settings)
    _error_handlers(app, settings)
    _operator_routes(app)
    app.add_middleware(SecurityHeaders, https=settings.https)  # the outermost of ours: every response
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for feature in (api, pages, ws, keeper, profiles, daily, ranked, push, trainer):
        app.include_router(feature.router)
    document(app)
    return app


def _limiter(settings: Settings, rate: float, burst: int) -> RedisLimiter | ClientLimiter:
    """A rate limit shared by the cluster's processes when there is Redis, else this process's own."""
    if settings.redis_url:
        return RedisLimiter(settings.redis_url, rate, burst)
    return ClientLimiter(rate, burst)


def _bound_bodies(app: FastAPI, settings: Settings) -> None:
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


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """The methods the app answers at the request's path: each one a route matches in full (included
    routers keep their routes to themselves, so each method is tried rather than the routes listed); the
    static files answer GET, and HEAD goes wherever GET does (`security.py`)."""
    scope = {"type": "http", "path": request.scope["path"], "root_path": request.scope.get("app_root_path", "")}

    def answers(method: str) -> bool:
        for route in app.router.routes:
            if route.matches({**scope, "method": method})[0] == Match.FULL:
                return method == "GET" if isinstance(route, Mount) else True
        return False

    found = [m for m in ("GET", "POST", "PUT", "PATCH", "DELETE") if answers(m)]
    return found[:1] + ["HEAD"] + found[1:] if "GET" in found else found


def _error_handlers(app: FastAPI, settings: Settings) -> None:
    """Every error a client meets as `{"code", "message"}` JSON; a crash logged with an id it is told."""

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
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "http/not-found", 405: "http/method-not-allowed"}.get(exc.status_code, "http/error")
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # every method of every route at this path (Starlette names the first's)
            headers["Allow"] = ", ".join(allowed_methods(app, request))
        body = {"code": code, "message": str(exc.detail)}
        return JSONResponse(body, status_code=exc.status_code, headers=headers or None)

    @app.exception_handler(Exception)
    async def crash(request: Request, exc: Exception) -> JSONResponse:
        if database_unavailable(exc):  # a restart of the database: try again, nothing to report
            first = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            log.warning("%s %s waits for the database: %s", request.method, request.url.path, first)
            headers = {**security_headers(request.url.path, settings.https), "Retry-After": "2"}
            body = {"code": "server/busy", "message": "the database is restarting: try again in a moment"}
            return JSONResponse(localize_error(body, get_lang(request)), 503, headers)
        error_id = log_unexpected(log, f"{request.method} {request.url.path}", exc)
        message = f"something went wrong on the server (error {error_id})"
        headers = security_headers(request.url.path, settings.https)  # sent from outside the middleware
        return JSONResponse({"code": "server/error", "message": message, "id": error_id}, 500, headers)


def _operator_routes(app: FastAPI) -> None:
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


def app_from_env() -> FastAPI:
    """The app of one `yambak serve --workers N` process: settings and log format from the environment."""
    from .logs import setup

    setup()
    return create_app(Settings())
