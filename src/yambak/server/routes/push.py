"""Web Push: the server's public key, a browser's subscription for the signed-in profile (and its end),
and the service worker that shows what arrives (`/push-sw.js`: at the root, so that its scope holds every
table's page). A subscription acts for the profile the request's cookie proves, and for no other."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ...web import STATIC
from ..deps import Lang, Profiles, check_origin, check_rate, profile_token
from ..profiles.manager import hash_secret
from ..push import PushManager
from .profiles import me

router = APIRouter()


def _push(request: Request) -> PushManager:
    push: PushManager = request.app.state.push  # the app's state is untyped: set in lifespan.py
    return push


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class KeysIn(_In):
    p256dh: str = Field(min_length=80, max_length=100)  # 65 bytes, base64url
    auth: str = Field(min_length=20, max_length=30)  # 16 bytes


class SubscriptionIn(_In):
    """`PushSubscription.toJSON()` as a browser makes it."""

    endpoint: str = Field(min_length=12, max_length=1000)
    expirationTime: int | None = Field(None, ge=0, le=10**15)  # noqa: N815 - the browser's name
    keys: KeysIn


class EndpointIn(_In):
    endpoint: str = Field(min_length=1, max_length=1000)


@router.get("/api/push/key")
def push_key(request: Request) -> dict[str, str]:
    """The key the server signs its pushes with (a browser's `applicationServerKey`, base64url)."""
    return {"key": _push(request).public_key}


@router.post("/api/push/subscribe", dependencies=[Depends(check_origin), Depends(check_rate)])
def subscribe(request: Request, body: SubscriptionIn, profiles: Profiles, lang: Lang) -> JSONResponse:
    """Pushes for this device's profile to this browser, in the page's language (sent again: no change)."""
    profile = me(request, profiles)
    device = hash_secret(str(profile_token(request)))  # the key `me` just proved: signed out, its pushes end
    new = _push(request).subscribe(profile.id, body.endpoint, body.keys.p256dh, body.keys.auth, lang, device)
    return JSONResponse({"ok": True}, status_code=201 if new else 200)


@router.post("/api/push/unsubscribe", dependencies=[Depends(check_origin), Depends(check_rate)])
def unsubscribe(request: Request, body: EndpointIn, profiles: Profiles) -> Response:
    _push(request).unsubscribe(me(request, profiles).id, body.endpoint)
    return Response(status_code=204)


@router.get("/push-sw.js")
def service_worker() -> Response:
    return Response(
        (STATIC / "push-sw.js").read_text(encoding="utf-8"),
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache"},
    )
