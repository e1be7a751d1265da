"""`yambak serve`: the web table on uvicorn."""

from __future__ import annotations

import argparse
import logging


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app
    from .settings import Settings

    settings = Settings()
    if args.db:
        settings.database_url = args.db
    if args.bot_delay is not None:
        settings.bot_delay = args.bot_delay
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
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


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="start the web table (lobby, tables, WebSocket play)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--db", default=None, help="database URL (default $YAMBAK_DATABASE_URL or sqlite:///var/yambak.db)")
    p.add_argument("--bot-delay", type=float, default=None, help="seconds a bot waits before each action")
    p.set_defaults(func=_serve)
