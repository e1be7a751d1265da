"""`yambak serve`: the web table on uvicorn."""

from __future__ import annotations

import argparse
import os
import tempfile

from ..commandline import UserError, bounded_float, bounded_int
from .logs import setup as setup_logs


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app
    from .settings import Settings

    try:
        settings = Settings()
    except ValueError as exc:
        raise UserError(f"a YAMBAK_* setting in the environment is not a number ({exc})") from None
    if args.db is not None:
        settings.database_url = args.db
    if args.redis is not None:
        settings.redis_url = args.redis
    if settings.redis_url:
        _check_redis_url(settings.redis_url)
    if args.workers is not None and args.workers > 1:
        _check_workers(settings.database_url, settings.redis_url)
    _check_database_url(settings.database_url)
    _check_listen(args.host, args.port)
    if args.bot_delay is not None:
        settings.bot_delay = args.bot_delay
    os.environ.setdefault("YAMBAK_GC_FULL_SECONDS", "300")  # a long-lived server: see lifespan.tune_gc
    settings.gc_full_seconds = float(os.environ["YAMBAK_GC_FULL_SECONDS"])
    if args.workers is not None and args.workers > 1:
        return _serve_workers(args, settings)
    setup_logs(args.log_format)
    print(
        f"yambak: serving on http://{args.host}:{args.port} (database {settings.database_url.split('@')[-1]})",
        flush=True,
    )
    uvicorn.run(
        create_app(settings),
        host=args.host,
        port=args.port,
        log_level="warning",
        log_config=None,  # uvicorn's loggers go to ours (`setup_logs`): an error is one line there too
        ws_max_size=65536,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        proxy_headers=True,  # X-Forwarded-For from these proxies names the client the limits count
        forwarded_allow_ips=settings.forwarded_allow_ips,
    )
    return 0


def _check_database_url(url: str) -> None:
    """Refuse a database URL SQLAlchemy cannot read, or whose driver is not installed, before serving."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        make_url(url).get_dialect()
    except (ArgumentError, NoSuchModuleError, ValueError) as exc:
        raise UserError(f"--db: {url.split('@')[-1]!r} is not a database URL this server can use ({exc})") from None


def _check_redis_url(url: str) -> None:
    """Refuse a Redis URL the client cannot read before serving (whether Redis answers is `/readyz`'s)."""
    import redis

    try:
        redis.Redis.from_url(url)
    except (ValueError, TypeError) as exc:
        raise UserError(f"--redis: {url.split('@')[-1]!r} is not a Redis URL ({exc})") from None


def _check_listen(host: str, port: int) -> None:
    """Refuse an address that does not resolve, or a port already taken, before anything starts."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UserError(f"--host {host!r}: not an address of this machine ({exc})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def _check_workers(database: str, redis_url: str) -> None:
    if database.startswith("sqlite"):
        raise UserError("--workers needs PostgreSQL (--db or YAMBAK_DATABASE_URL): SQLite serves one process")
    if not redis_url:
        raise UserError("--workers needs Redis (--redis or YAMBAK_REDIS_URL) to share tables between processes")


def _serve_workers(args: argparse.Namespace, settings: object) -> int:
    """`--workers N`: N processes on one port (uvicorn's), sharing PostgreSQL and Redis like separate hosts."""
    import uvicorn

    database, redis_url = getattr(settings, "database_url", ""), getattr(settings, "redis_url", "")
    os.environ.update(
        YAMBAK_DATABASE_URL=database,
        YAMBAK_REDIS_URL=redis_url,
        YAMBAK_BOT_DELAY=str(getattr(settings, "bot_delay", 0.6)),
        YAMBAK_LOG_FORMAT=args.log_format or os.environ.get("YAMBAK_LOG_FORMAT", "text"),
    )
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="yambak-metrics-"))
    setup_logs(args.log_format)
    print(
        f"yambak: serving on http://{args.host}:{args.port} with {args.workers} processes "
        f"(database {database.split('@')[-1]}, redis {redis_url.split('@')[-1]})",
        flush=True,
    )
    uvicorn.run(
        "yambak.server.app:app_from_env",
        factory=True,
        workers=args.workers,
        host=args.host,
        port=args.port,
        log_level="warning",
        log_config=None,  # uvicorn's loggers go to ours (`setup_logs`): an error is one line there too
        ws_max_size=65536,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        proxy_headers=True,
        forwarded_allow_ips=getattr(settings, "forwarded_allow_ips", "127.0.0.1"),
    )
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="start the web table (lobby, tables, WebSocket play)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=bounded_int(1, 65535), default=8000, help="port, 1 to 65535 (default 8000)")
    p.add_argument("--db", default=None, help="database URL (default $YAMBAK_DATABASE_URL or sqlite:///var/yambak.db)")
    p.add_argument(
        "--bot-delay", type=bounded_float(0, 60), default=None, help="seconds a bot waits before each action (0 to 60)"
    )
    p.add_argument(
        "--redis", default=None, help="Redis URL shared by several processes (default $YAMBAK_REDIS_URL; none: alone)"
    )
    p.add_argument(
        "--workers",
        type=bounded_int(1, 64),
        default=None,
        help="processes on this port, 1 to 64 (more than 1 needs PostgreSQL and Redis; default 1)",
    )
    p.add_argument("--log-format", choices=["text", "json"], default=None, help="log lines (default text)")
    p.set_defaults(func=_serve)
