"""Request dependencies: the table manager, the seat tokens of a browser, its language."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from ..web.i18n import pick_language
from .limits import ClientLimiter
from .live import RequestError
from .settings import Settings
from .tables.manager import TableManager

TOKEN_COOKIE = "yambak_tokens"
LANG_COOKIE = "yambak_lang"
MAX_TOKENS = 40


def get_manager(request: Request) -> TableManager:
    return request.app.state.manager


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def parse_tokens(raw: str | None) -> list[str]:
    if not raw:
        return []
    return [t for t in raw.split(".") if 8 <= len(t) <= 64 and t.replace("-", "").replace("_", "").isalnum()][
        -MAX_TOKENS:
    ]


def get_tokens(request: Request) -> list[str]:
    return parse_tokens(request.cookies.get(TOKEN_COOKIE))


def get_lang(request: HTTPConnection) -> str:
    return pick_language(
        request.query_params.get("lang"), request.cookies.get(LANG_COOKIE), request.headers.get("accept-language")
    )


def add_tokens(response: Any, existing: list[str], new: list[str], secure: bool = False) -> None:
    tokens = [t for t in existing if t not in new] + new
    response.set_cookie(
        TOKEN_COOKIE,
        ".".join(tokens[-MAX_TOKENS:]),
        max_age=60 * 60 * 24 * 365,
        httponly=True,
        samesite="lax",
        secure=secure,
    )


Manager = Annotated[TableManager, Depends(get_manager)]
AppSettings = Annotated[Settings, Depends(get_settings)]
Tokens = Annotated[list[str], Depends(get_tokens)]
Lang = Annotated[str, Depends(get_lang)]


def check_rate(request: Request) -> None:
    """Create and join routes: a coded 429 once a client address has spent its bucket."""
    limiter: ClientLimiter = request.app.state.limiter
    client = request.client.host if request.client else "unknown"
    if not limiter.take(client):
        raise RequestError("rate/limited", "too many requests: slow down and try again in a moment", 429)
