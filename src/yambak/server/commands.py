"""`yambak serve`: the web table on uvicorn."""

from __future__ import annotations

import argparse
import logging

from ..commandline import UserError, bounded_float, bounded_int


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
    _check_database_url(settings.database_url)
    _check_listen(args.host, args.port)
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


def _check_database_url(url: str) -> None:
    """Refuse a database URL SQLAlchemy cannot read, or whose driver is not installed, before serving."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        make_url(url).get_dialect()
    except (ArgumentError, NoSuchModuleError, ValueError) as exc:
        raise UserError(f"--db: {url.split('@')[-1]!r} is not a database URL this server can use ({exc})") from None


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


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("serve", help="start the web table (lobby, tables, WebSocket play)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=bounded_int(1, 65535), default=8000, help="port, 1 to 65535 (default 8000)")
    p.add_argument("--db", default=None, help="database URL (default $YAMBAK_DATABASE_URL or sqlite:///var/yambak.db)")
    p.add_argument(
        "--bot-delay", type=bounded_float(0, 60), default=None, help="seconds a bot waits before each action (0 to 60)"
    )
    p.set_defaults(func=_serve)
