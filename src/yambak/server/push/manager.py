"""Web Push to the players of asynchronous tables (RFC 8030, encrypted per RFC 8291, signed per RFC 8292).

The server signs every push with one VAPID key, made at the first start and kept in the store, so that
every process signs alike and a restart keeps the browsers' subscriptions valid. A `TurnSignal` (a turn
began, or a quarter of its clock is left) sends one short message, in the language each subscription was
made in, to every subscription of that player and of nobody else. The pushes travel in a few threads of
their own with a bounded timeout: neither the event loop nor the table that signalled waits for them. A
push service that forgot a subscription (404, 410) makes us forget it too; one failing again and again
is forgotten after `MAX_FAILURES`.

What a push carries: the title, one sentence naming the table, its page and a tag (a newer message about
the same table replaces the older on the device). Nothing about the game itself.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import requests
import urllib3
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02, VapidException
from pywebpush import WebPushException, webpush

from ...store import PushRow, Store
from ...web.i18n import table_title, translations
from .. import metrics
from ..common.clock import naive_utc
from ..common.events import TurnSignal
from ..live import RequestError
from ..settings import Settings

__all__ = ["MAX_FAILURES", "PushManager", "message", "subscription"]

log = logging.getLogger("yambak.server")

MAX_FAILURES = 5  # pushes in a row a subscription may fail before it is forgotten
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
_B64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64url(text: str) -> bytes | None:
    if not _B64URL.fullmatch(text):
        return None
    try:
        return base64.urlsafe_b64decode(text.rstrip("=") + "=" * (-len(text.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        return None


def _new_key() -> str:
    """A new VAPID private key: the P-256 scalar, base64url."""
    scalar = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
    return b64url(scalar.to_bytes(32, "big"))


# What a push service's endpoint is made of (RFC 3986's unreserved, sub-delims, ":", "/", "?", "@", "%").
_URL_CHARS = re.compile(r"[A-Za-z0-9._~:/?#@!$&'()*+,;=%-]+")


def _sent_host(endpoint: str) -> str | None:
    """The host the push's HTTP client (requests, urllib3) connects to for this URL."""
    try:
        return (urllib3.util.parse_url(requests.Request("POST", endpoint).prepare().url or "").host or "").lower()
    except Exception:  # a URL the client cannot send to at all
        return None


def _host_allowed(host: str, allowed: str) -> bool:
    names = [h.strip().lower().lstrip(".") for h in allowed.split(",") if h.strip()]
    return "*" in names or any(host == n or host.endswith("." + n) for n in names)


def subscription(endpoint: str, p256dh: str, auth: str, lang: str | None, settings: Settings) -> PushRow:
    """A browser's subscription as sent (`PushSubscription.toJSON()`), checked: an HTTPS endpoint at a
    push service (`Settings.push_hosts`), a P-256 public key and a 16-byte secret; `input/invalid` else.
    The server will post to the endpoint, so nothing but a push service's address is taken."""

    def refuse(why: str) -> RequestError:
        return RequestError("input/invalid", why, 422)

    if not _URL_CHARS.fullmatch(endpoint):  # no "\\", quote or space that another URL parser reads otherwise
        raise refuse("endpoint: not a URL")
    try:
        url = urlsplit(endpoint)
        url.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise refuse("endpoint: not a URL") from None
    host = (url.hostname or "").lower()
    if not host or url.username is not None or url.password is not None or url.fragment:
        raise refuse("endpoint: not a push service's URL")
    if _sent_host(endpoint) != host:  # where the HTTP client would really connect
        raise refuse("endpoint: not a push service's URL")
    if url.scheme == "https":
        if not _host_allowed(host, settings.push_hosts):
            raise refuse("endpoint: not at a known push service")
    elif not (url.scheme == "http" and settings.push_local and host in LOCAL_HOSTS):
        raise refuse("endpoint: must be https")
    point = _unb64url(p256dh)
    if point is None or len(point) != 65 or point[0] != 4:
        raise refuse("keys.p256dh: not a P-256 public key")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise refuse("keys.p256dh: not a point of P-256") from None
    secret = _unb64url(auth)
    if secret is None or len(secret) != 16:
        raise refuse("keys.auth: not a 16-byte secret")
    return PushRow(endpoint, b64url(point), b64url(secret), lang)


def message(signal: TurnSignal, lang: str | None) -> dict[str, str]:
    """What a push says, in the subscription's language."""
    tr = translations(lang or "en")
    title = table_title(signal.table_name, [signal.first] if signal.first else [], lang or "en")
    name = title if len(title) <= 60 else title[:59] + "…"
    if signal.kind == "reminder":
        title, body = tr.gettext("Your turn ends soon"), tr.gettext("{name}: a quarter of your time is left.")
    else:
        title, body = tr.gettext("Your turn"), tr.gettext("{name}: it is your turn.")
    url, tag = f"/t/{signal.table_id}", f"turn-{signal.table_id}"  # the tag of the page's own notification
    return {"title": title, "body": body.format(name=name), "url": url, "tag": tag}


class PushManager:
    def __init__(self, store: Store, settings: Settings, workers: int = 4) -> None:
        self.store, self.settings = store, settings
        raw = _unb64url(store.server_key("vapid", _new_key)) or b""
        self.vapid = Vapid02(ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1()))
        point = self.vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.public_key = b64url(point)  # the browsers' applicationServerKey
        try:  # a contact the push services would refuse fails the start, not every push
            self.vapid.sign({"sub": settings.push_contact, "aud": "https://push.example"})
        except VapidException:
            raise ValueError(
                f"YAMBAK_PUSH_CONTACT: not a mailto: address or https: URL: {settings.push_contact!r}"
            ) from None
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="yambak-push")
        self._tasks: set[asyncio.Task[None]] = set()

    # --- a browser's subscription (plain `def` routes: blocking) ------------------------------------------

    def subscribe(
        self, profile_id: str, endpoint: str, p256dh: str, auth: str, lang: str | None, device: str | None = None
    ) -> bool:
        """Keep a subscription for the profile (made on `device`, its key's hash); True when it is new to it."""
        return self.store.save_push(profile_id, subscription(endpoint, p256dh, auth, lang, self.settings), device)

    def unsubscribe(self, profile_id: str, endpoint: str) -> bool:
        return self.store.drop_push(profile_id, endpoint)

    # --- sending ---------------------------------------------------------------------------------------

    async def on_turn(self, signal: TurnSignal) -> None:
        """A `TurnSignal`: its pushes start now and travel on their own (the publisher does not wait)."""
        task = asyncio.get_running_loop().create_task(self._notify(signal))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def idle(self) -> None:
        """Until every push started so far is done (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _notify(self, signal: TurnSignal) -> None:
        subs = await self.store.read(self.store.pushes, signal.profile_id)
        ttl = 86400
        if signal.due_at is not None:  # a message the device gets after the deadline is of no use
            ttl = int((signal.due_at - naive_utc(self.settings.clock())).total_seconds())
        await asyncio.gather(*(self._push(sub, message(signal, sub.lang), max(60, ttl)) for sub in subs))

    async def _push(self, sub: PushRow, payload: dict[str, str], ttl: int) -> None:
        loop = asyncio.get_running_loop()
        try:
            status: int | None = await loop.run_in_executor(self._pool, self._post, sub, json.dumps(payload), ttl)
        except requests.RequestException as exc:  # the service does not answer, or sends us elsewhere: counted
            log.info("push to %s failed: %s", urlsplit(sub.endpoint).hostname, type(exc).__name__)
            status = None
        except Exception:  # ours, not the subscription's: it stays as it was
            log.exception("push to %s", urlsplit(sub.endpoint).hostname)
            return
        gone = status in (404, 410)
        delivered = status is not None and 200 <= status < 300
        metrics.PUSHES.labels("delivered" if delivered else "gone" if gone else "failed").inc()
        await asyncio.to_thread(self.store.push_outcome, sub.key, delivered, gone, MAX_FAILURES)

    def _post(self, sub: PushRow, data: str, ttl: int) -> int:
        """One push, in a worker thread; the push service's status."""
        info: dict[str, Any] = {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}}
        with requests.Session() as session:
            session.max_redirects = 0  # the endpoint was checked; where it might redirect to was not
            try:
                response = webpush(
                    info,
                    data,
                    vapid_private_key=self.vapid,
                    vapid_claims={"sub": self.settings.push_contact},  # a new dict: webpush adds `aud`, `exp`
                    timeout=self.settings.push_timeout,
                    ttl=ttl,
                    requests_session=session,
                )
            except WebPushException as exc:
                return int(exc.status_code or 0)
        return int(response.status_code)

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)
