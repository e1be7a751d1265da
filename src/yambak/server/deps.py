"""Request dependencies: the table manager, the seat tokens of a browser, its language."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from ..web.i18n import pick_language
from .common.pages import LANG_COOKIE
from .limits import ClientLimiter
from .live import RequestError
from .profiles.devices import device_label
from .profiles.manager import ProfileError, ProfileManager, hash_secret, valid_token
from .settings import Settings
from .tables.manager import TableManager

# What a JSON route answers, as its annotation tells FastAPI: an object serialised as it is (the schema's
# `type: object`), read by no Python code after. Not `JSONObject`: pydantic cannot resolve that alias's
# recursive references (a route so annotated fails at its first request); `object` values, unlike `Any`,
# let mypy pass nothing unchecked, and `Mapping` takes a `JSONObject` or a `TypedDict` as it is.
Answer = Mapping[str, object]
TOKEN_COOKIE = "yambak_tokens"
PROFILE_COOKIE = "yambak_profile"
# a random id a browser keeps across the profiles it carries (signing out keeps it): profiles made or
# moved on one browser never rate each other (`ranked.manager.RankedManager.note`)
DEVICE_COOKIE = "yambak_device"
MAX_TOKENS = 40
# Routes of the browser's HTML forms: not in the OpenAPI schema that the API is fuzzed from (they read
# their form themselves); their hostile cases are written by hand (tests/server/test_hostile_http.py).
HTML_FORM: dict[str, Any] = {"include_in_schema": False}


def get_manager(request: Request) -> TableManager:
    manager: TableManager = request.app.state.manager  # the app's state is untyped: set in lifespan.py
    return manager


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


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


def get_profiles(request: Request) -> ProfileManager:
    profiles: ProfileManager = request.app.state.profiles
    return profiles


def profile_token(request: HTTPConnection) -> str | None:
    return request.cookies.get(PROFILE_COOKIE)


def viewer_id(request: HTTPConnection) -> str | None:
    """The id of the profile this device proves, if any (a store read: plain `def` routes)."""
    profile = request.app.state.profiles.current(profile_token(request))
    return profile.id if profile is not None else None


async def aviewer_id(request: HTTPConnection) -> str | None:
    profile = await request.app.state.profiles.acurrent(profile_token(request))
    return profile.id if profile is not None else None


def set_profile_cookie(response: Any, token: str | None, secure: bool = False) -> None:
    """The device token of a profile (None: this device forgets it)."""
    if token is None:
        response.delete_cookie(PROFILE_COOKIE, httponly=True, samesite="lax", secure=secure)
        return
    response.set_cookie(PROFILE_COOKIE, token, max_age=60 * 60 * 24 * 400, httponly=True, samesite="lax", secure=secure)


def device_cookie(request: HTTPConnection) -> str:
    """This browser's own random id (`DEVICE_COOKIE`), or "" when it has none yet."""
    return valid_token(request.cookies.get(DEVICE_COOKIE)) or ""


def set_device_cookie(response: Any, device: str, secure: bool = False) -> None:
    response.set_cookie(DEVICE_COOKIE, device, max_age=60 * 60 * 24 * 400, httponly=True, samesite="lax", secure=secure)


def device_of(request: HTTPConnection) -> str:
    """What the asking device is ("Firefox · Android"), for its profile's list of devices."""
    return device_label(request.headers.get("user-agent"))


def client_address(request: HTTPConnection) -> str:
    return request.client.host if request.client else "unknown"


def check_origin(request: Request) -> None:
    """A change to a profile comes from this site's own pages: a browser's Origin must be ours."""
    origin = request.headers.get("origin")
    if origin is not None and origin.split("://", 1)[-1].rstrip("/") != request.headers.get("host", ""):
        raise RequestError("auth/origin", "this page may not change your profile", 403)


Manager = Annotated[TableManager, Depends(get_manager)]
Profiles = Annotated[ProfileManager, Depends(get_profiles)]
AppSettings = Annotated[Settings, Depends(get_settings)]
Tokens = Annotated[list[str], Depends(get_tokens)]
Lang = Annotated[str, Depends(get_lang)]


def check_rate(request: Request) -> None:
    """Create and join routes: a coded 429 once a client address has spent its bucket."""
    limiter: ClientLimiter = request.app.state.limiter
    client = request.client.host if request.client else "unknown"
    if not limiter.take(client):
        raise RequestError("rate/limited", "too many requests: slow down and try again in a moment", 429)


@dataclass(frozen=True)
class Player:
    """Someone sitting down to play: their profile's id, this device's profile key (its hash: the seat's
    token is given to it), a new device token to set where one was made now, and why none was made (the
    game goes on without a profile, and the player is told why and what to do)."""

    profile: str | None = None
    device: str | None = None
    cookie: str | None = None
    refused: ProfileError | None = None

    def told(self) -> dict[str, Any]:
        """What an answer says of the profile: nothing, or the refusal (`profile_refused`, coded)."""
        if self.refused is None:
            return {}
        return {"profile_refused": {"code": self.refused.code, "message": self.refused.message}}


async def playing_profile(request: Request, name: Any) -> Player:
    """The profile of someone sitting down to play: the device's, or one made now with the name they
    play under (none when the name is refused or this address made too many: the game goes on, and
    `refused` says why). Several processes: a coded 503 while Redis does not answer, before anything
    is made."""
    cluster = getattr(request.app.state, "cluster", None)
    if cluster is not None:  # sitting down needs Redis (the table's lease): without it, a 503 before any profile
        await cluster.reachable()
    profiles: ProfileManager = request.app.state.profiles
    profile = await profiles.acurrent(profile_token(request))
    if profile is not None:
        return Player(profile.id, profile.key)
    if not isinstance(name, str):
        return Player()
    made = await asyncio.to_thread(profiles.create_quietly, name, client_address(request), device_of(request))
    if isinstance(made, ProfileError):
        return Player(refused=made)
    return Player(made[0].id, hash_secret(made[1]), made[1])
