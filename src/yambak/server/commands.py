"""`yambak serve`: the web table on uvicorn."""

from __future__ import annotations

import argparse
import os
import tempfile

from .logs import setup as setup_logs


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app
    from .settings import Settings

    settings = Settings()
    if args.db:
        settings.database_url = args.db
    if args.bot_delay is not None:
        settings.bot_delay = args.bot_delay
    if args.redis:
        settings.redis_url = args.redis
    os.environ.setdefault("YAMBAK_GC_FULL_SECONDS", "300")  # a long-lived server: see app.tune_gc
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
        ws_max_size=65536,
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )
    return 0


def _serve_workers(args: argparse.Namespace, settings: object) -> int:
    """`--workers N`: N processes on one port (uvicorn's), sharing PostgreSQL and Redis like separate hosts."""
    import uvicorn

    from ..cli import UserError

    database, redis_url = getattr(settings, "database_url", ""), getattr(settings, "redis_url", "")
    if database.startswith("sqlite"):
        raise UserError("--workers needs PostgreSQL (--db or YAMBAK_DATABASE_URL): SQLite serves one process")
    if not redis_url:
        raise UserError("--workers needs Redis (--redis or YAMBAK_REDIS_URL) to share tables between processes")
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
        ws_max_size=65536,
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="start the web table (lobby, tables, WebSocket play)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", default=None, help="database URL (default $YAMBAK_DATABASE_URL or sqlite:///var/yambak.db)")
    p.add_argument("--bot-delay", type=float, default=None, help="seconds a bot waits before each action")
    p.add_argument(
        "--redis", default=None, help="Redis URL shared by several processes (default $YAMBAK_REDIS_URL; none: alone)"
    )
    p.add_argument(
        "--workers", type=int, default=None, help="processes on this port (needs PostgreSQL and Redis; default 1)"
    )
    p.add_argument("--log-format", choices=["text", "json"], default=None, help="log lines (default text)")
    p.set_defaults(func=_serve)
