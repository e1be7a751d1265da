"""Web Push, the server's half: a turn reaches every browser its player subscribed, and nobody else's,
signed with the server's one VAPID key and encrypted for each browser alone.

The push service here is a local endpoint written for the tests (an HTTP server in a thread): it checks
the VAPID signature (RFC 8292: an ES256 JWT for the endpoint's origin, with the server's public key) and
decrypts the body as the browser would (RFC 8291, `http_ece`) with the keys the test's own
"browser" made: an EC P-256 key pair and a 16-byte secret.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from fastapi.testclient import TestClient

from tests.conftest import fresh_pg_database
from yambak.server import Settings, create_app
from yambak.server.common.events import TurnSignal
from yambak.server.push.manager import MAX_FAILURES
from yambak.store import Store

CONTACT = "mailto:ops@yambak.test"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    """The local push endpoint: every POST kept; a path's status set by the test (201 otherwise)."""

    url: str
    received: list[Received] = field(default_factory=list)
    status: dict[str, int] = field(default_factory=dict)

    def wait(self, n: int, timeout: float = 10) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.received) < n and time.monotonic() < deadline:
            time.sleep(0.02)
        return list(self.received)


@pytest.fixture
def service() -> Iterator[PushService]:
    pushes = PushService("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
            body = self.rfile.read(int(self.headers.get("content-length", "0")))
            pushes.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(pushes.status.get(self.path, 201))
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    pushes.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, name="test-push-service", daemon=True)
    thread.start()
    yield pushes
    server.shutdown()
    server.server_close()


@dataclass
class Browser:
    """A browser's side of one subscription: its keys, and what it sends the server."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    secret: bytes = field(default_factory=lambda: os.urandom(16))

    def json(self) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": _b64(point), "auth": _b64(self.secret)},
        }

    def read(self, body: bytes) -> dict[str, Any]:
        clear = http_ece.decrypt(body, private_key=self.key, auth_secret=self.secret, version="aes128gcm")
        return dict(json.loads(clear))


def _check_vapid(got: Received, server_key: str, origin: str) -> None:
    """The Authorization header of RFC 8292: `vapid t=JWT, k=KEY`, signed by the server's key for this origin."""
    scheme, _, params = got.headers["authorization"].partition(" ")
    assert scheme == "vapid"
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    assert parts["k"] == server_key
    head, claims, signature = parts["t"].split(".")
    assert json.loads(_unb64(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = _unb64(signature)
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _unb64(server_key))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    with pytest.raises(InvalidSignature):  # and the check does check
        public.verify(der, f"{head}.{claims}x".encode(), ec.ECDSA(hashes.SHA256()))
    payload = json.loads(_unb64(claims))
    assert payload["aud"] == origin and payload["sub"] == CONTACT
    assert time.time() < payload["exp"] <= time.time() + 24 * 3600
    assert got.headers["content-encoding"] == "aes128gcm" and int(got.headers["ttl"]) > 0


@pytest.fixture
def app_settings(tmp_path: Any) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path}/push.db",
        warm_strategies=False,
        coach_process=False,
        push_local=True,  # the local push endpoint is at http://127.0.0.1
        push_contact=CONTACT,
        http_burst=100,  # the checks below send more than a browser would
    )


@pytest.fixture
def push_client(app_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(app_settings), base_url="http://127.0.0.1") as c:
        yield c


def _profile(client: TestClient, name: str) -> tuple[str, dict[str, str]]:
    """A new profile, and the cookies that prove it."""
    client.cookies.clear()
    r = client.post("/api/me", json={"name": name})
    assert r.status_code == 201, r.text
    return r.json()["profile"]["id"], dict(client.cookies)


def _as(client: TestClient, cookies: dict[str, str]) -> TestClient:
    client.cookies.clear()
    client.cookies.update(cookies)
    return client


def _signal(client: TestClient, signal: TurnSignal) -> None:
    """Publish the fact as the tables do, and wait until its pushes are done."""
    app: Any = client.app
    assert client.portal is not None
    client.portal.call(app.state.manager.events.publish, signal)
    client.portal.call(app.state.push.idle)


def test_a_turn_reaches_each_browser_of_its_player_in_its_language(
    push_client: TestClient, service: PushService
) -> None:
    c = push_client
    ann, ann_cookies = _profile(c, "Ann")
    _bram, bram_cookies = _profile(c, "Bram")
    phone, laptop = Browser(f"{service.url}/push/ann-phone"), Browser(f"{service.url}/push/ann-laptop")
    brams = Browser(f"{service.url}/push/bram")
    assert _as(c, ann_cookies).post("/api/push/subscribe?lang=fr", json=phone.json()).status_code == 201
    assert c.post("/api/push/subscribe", json=laptop.json(), headers={"accept-language": "de"}).status_code == 201
    assert c.post("/api/push/subscribe?lang=fr", json=phone.json()).status_code == 200  # again: nothing new
    assert _as(c, bram_cookies).post("/api/push/subscribe", json=brams.json()).status_code == 201
    key = c.get("/api/push/key").json()["key"]

    _signal(c, TurnSignal("tbl1", "Ann's evening game", 0, ann, "turn"))
    got = {r.path: r for r in service.wait(2)}
    # `_signal` returned once every push the signal started was answered: one to Bram would be here already
    assert sorted(got) == ["/push/ann-laptop", "/push/ann-phone"] and len(service.received) == 2  # not Bram's
    for r in got.values():
        _check_vapid(r, key, service.url)
    assert phone.read(got["/push/ann-phone"].body) == {
        "title": "À vous de jouer",
        "body": "Ann's evening game : c'est à vous de jouer.",
        "url": "/t/tbl1",
        "tag": "turn-tbl1",
    }
    assert laptop.read(got["/push/ann-laptop"].body)["body"] == "Ann's evening game: Du bist dran."
    with pytest.raises(Exception):  # noqa: B017 - encrypted for the phone alone
        laptop.read(got["/push/ann-phone"].body)

    service.received.clear()
    _signal(c, TurnSignal("tbl1", "Ann's evening game", 0, ann, "reminder"))
    reminder = phone.read(next(r.body for r in service.wait(2) if r.path == "/push/ann-phone"))
    assert reminder["title"] == "Votre tour se termine bientôt" and reminder["tag"] == "turn-tbl1"

    service.received.clear()  # a table made in one click has no name: it is called after its first player
    _signal(c, TurnSignal("tbl2", "", 0, ann, "turn", first="Bram"))
    unnamed = phone.read(next(r.body for r in service.wait(2) if r.path == "/push/ann-phone"))
    assert unnamed["body"] == "Table de Bram : c'est à vous de jouer.", unnamed


def test_a_subscription_the_push_service_forgot_is_forgotten_and_failures_add_up(
    push_client: TestClient, service: PushService
) -> None:
    c = push_client
    ann, cookies = _profile(c, "Ann")
    gone, flaky = Browser(f"{service.url}/push/gone"), Browser(f"{service.url}/push/flaky")
    for browser in (gone, flaky):
        assert _as(c, cookies).post("/api/push/subscribe", json=browser.json()).status_code == 201
    service.status.update({"/push/gone": 410, "/push/flaky": 500})
    store: Store = c.app.state.store  # type: ignore[attr-defined]

    _signal(c, TurnSignal("t", "T", 0, ann, "turn"))
    assert [(p.endpoint, p.failures) for p in store.pushes(ann)] == [(flaky.endpoint, 1)]
    service.status["/push/flaky"] = 201  # delivered: its failures start again
    _signal(c, TurnSignal("t", "T", 0, ann, "turn"))
    assert [p.failures for p in store.pushes(ann)] == [0]
    service.status["/push/flaky"] = 503
    for _ in range(MAX_FAILURES):
        _signal(c, TurnSignal("t", "T", 0, ann, "turn"))
    assert store.pushes(ann) == []
    assert len(service.received) == 2 + 1 + MAX_FAILURES


def test_subscriptions_are_checked_and_only_a_profile_subscribes(push_client: TestClient, service: PushService) -> None:
    c = push_client
    good = Browser(f"{service.url}/push/x").json()
    c.cookies.clear()
    assert c.post("/api/push/subscribe", json=good).json()["code"] == "profile/none"
    ann, cookies = _profile(c, "Ann")
    keys = good["keys"]
    off_curve = _b64(b"\x04" + b"\x01" * 64)
    bad: list[Any] = [
        {**good, "endpoint": "https://evil.example/push"},  # not a push service
        {**good, "endpoint": "http://fcm.googleapis.com/fcm/send/x"},  # not https
        {**good, "endpoint": "http://10.0.0.1:80/push/x"},  # http, not this machine
        {**good, "endpoint": "https://user@fcm.googleapis.com/fcm/send/x"},
        {**good, "endpoint": "https://fcm.googleapis.com:99999/x"},
        {**good, "endpoint": "https://fcm.googleapis.com/" + "x" * 1000},
        {**good, "endpoint": "https://fcm.googleapis.com/a b"},
        {**good, "endpoint": "javascript:alert(1)//fcm.googleapis.com"},
        {**good, "endpoint": "https://10.0.0.1\\.fcm.googleapis.com/fcm/send/x"},  # the HTTP client's host: 10.0.0.1
        {**good, "endpoint": "https://fcm.googleapis.com\\@10.0.0.1/x"},
        {**good, "endpoint": "https://fcm.googleapis.com@10.0.0.1/x"},
        {**good, "keys": {**keys, "p256dh": off_curve}},
        {**good, "keys": {**keys, "p256dh": keys["p256dh"][:-4] + "!!!!"}},
        {**good, "keys": {**keys, "p256dh": _b64(b"\x05" + b"\x01" * 64)}},
        {**good, "keys": {**keys, "auth": _b64(b"\x00" * 15) + "AAAA"}},
        {**good, "keys": {**keys, "auth": _b64(b"\x00" * 17)}},
        {**good, "keys": {"p256dh": keys["p256dh"]}},
        {**good, "extra": 1},
        {"endpoint": good["endpoint"]},
        {**good, "endpoint": 5},
        [],
        "x",
    ]
    for body in bad:
        r = _as(c, cookies).post("/api/push/subscribe", json=body)
        assert r.status_code == 422 and r.json()["code"] == "input/invalid", (body, r.text)
    store: Store = c.app.state.store  # type: ignore[attr-defined]
    assert store.pushes(ann) == []
    elsewhere = c.post("/api/push/subscribe", json=good, headers={"origin": "https://evil.example"})
    assert elsewhere.status_code == 403 and store.pushes(ann) == []
    fcm = Browser("https://fcm.googleapis.com/fcm/send/abc:def").json()  # a real service's address is taken
    assert c.post("/api/push/subscribe", json=fcm).status_code == 201
    assert c.post("/api/push/subscribe", json=good).status_code == 201

    # Unsubscribing forgets one's own subscription only
    _bram, bram_cookies = _profile(c, "Bram")
    assert _as(c, bram_cookies).post("/api/push/unsubscribe", json={"endpoint": good["endpoint"]}).status_code == 204
    assert len(store.pushes(ann)) == 2
    assert _as(c, cookies).post("/api/push/unsubscribe", json={"endpoint": good["endpoint"]}).status_code == 204
    assert [p.endpoint for p in store.pushes(ann)] == [fcm["endpoint"]]


def test_plain_http_endpoints_need_the_setting_and_requests_spend_the_budget(tmp_path: Any) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/p.db", warm_strategies=False, coach_process=False)
    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        _profile(c, "Ann")
        r = c.post("/api/push/subscribe", json=Browser("http://127.0.0.1:9/push").json())
        assert r.status_code == 422 and "https" in r.json()["message"]
        answers = {
            c.post("/api/push/unsubscribe", json={"endpoint": "x"}).status_code for _ in range(settings.http_burst)
        }
        assert answers == {204, 429}  # the address's budget of the create and join routes


def test_a_contact_the_push_services_would_refuse_fails_the_start(tmp_path: Any) -> None:
    from yambak.server.push import PushManager

    store = Store(f"sqlite:///{tmp_path}/c.db")
    try:
        for contact in ("ops@example.org", "mailto:ops", "http://example.org"):
            with pytest.raises(ValueError, match="YAMBAK_PUSH_CONTACT"):
                PushManager(store, Settings(push_contact=contact), workers=1)
        PushManager(store, Settings(push_contact="https://yambak.example"), workers=1).close()
    finally:
        store.close()


def test_the_service_worker_is_served_under_the_policy(push_client: TestClient) -> None:
    r = push_client.get("/push-sw.js")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    assert "script-src 'self';" in r.headers["content-security-policy"]  # no blob:, no wasm: the site's policy
    assert r.headers["cache-control"] == "no-cache" and "showNotification" in r.text
    key = push_client.get("/api/push/key")
    assert "content-security-policy" in key.headers and len(_unb64(key.json()["key"])) == 65


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/shared.db"
    else:
        yield from fresh_pg_database("yambak_push")


def test_every_process_signs_with_one_key(shared_url: str) -> None:
    """Two processes starting at once over one database: one key is made, and both use it."""
    Store(shared_url).close()  # the schema, once (as `yambak serve` migrates before its workers start)
    stores = [Store(shared_url, migrate=False) for _ in range(2)]
    both_read = threading.Barrier(2)
    found: list[str] = []

    def start(store: Store, mine: str) -> None:
        def make() -> str:
            both_read.wait(5)  # each has seen no key and made its own
            return mine

        found.append(store.server_key("test", make))

    threads = [threading.Thread(target=start, args=(s, f"key-{i}")) for i, s in enumerate(stores)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(found) == 2 and found[0] == found[1] and found[0] in ("key-0", "key-1")
    assert stores[0].server_key("test", lambda: "another") == found[0]
    for store in stores:
        store.close()

    keys = []
    for _ in range(2):  # two apps (processes) on the database: one applicationServerKey
        settings = Settings(database_url=shared_url, warm_strategies=False, coach_process=False)
        with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
            keys.append(c.get("/api/push/key").json()["key"])
    assert keys[0] == keys[1]


def test_the_store_keeps_a_profiles_newest_subscriptions_and_forgets_them_with_it(shared_url: str) -> None:
    from datetime import datetime

    from yambak.store import PushRow
    from yambak.store.push import MAX_PER_PROFILE

    store = Store(shared_url)
    try:
        now = datetime(2026, 1, 1)
        for pid in ("ann", "bram"):
            store.create_profile(pid, pid.title(), f"key-{pid}", now)
        rows = [PushRow(f"https://fcm.googleapis.com/fcm/send/{i}", "k", "a", "fr") for i in range(MAX_PER_PROFILE + 2)]
        for row in rows:
            time.sleep(0.002)  # created one after the other
            assert store.save_push("ann", row)
        kept = [p.endpoint for p in store.pushes("ann")]
        assert kept == [r.endpoint for r in rows[2:]]  # the newest ten
        assert not store.save_push("ann", rows[-1])  # again: not new
        assert store.save_push("bram", rows[-1])  # the browser now signed in as Bram: his
        assert rows[-1].endpoint not in [p.endpoint for p in store.pushes("ann")]
        assert not store.drop_push("ann", rows[-1].endpoint) and store.drop_push("bram", rows[-1].endpoint)
        store.delete_profile("ann")
        assert store.pushes("ann") == []
    finally:
        store.close()


def test_a_device_signed_out_hears_nothing_more(push_client: TestClient, service: PushService) -> None:
    """A subscription belongs to the device that made it: signed out (from itself or another device), it goes;
    the profile's other devices keep theirs."""
    c = push_client
    ann, phone_cookies = _profile(c, "Ann")
    phone = Browser(f"{service.url}/push/ann-phone")
    assert _as(c, phone_cookies).post("/api/push/subscribe", json=phone.json()).status_code == 201
    link = c.post("/api/me/link", headers={"origin": "http://127.0.0.1"})
    assert link.status_code in (200, 201), link.text
    c.cookies.clear()  # a laptop takes the profile by its link, and subscribes too
    code = link.json()["url"].rsplit("/", 1)[1]
    moved = c.post(f"/api/me/move/{code}", headers={"origin": "http://127.0.0.1"})
    assert moved.status_code < 400, moved.text
    laptop_cookies = dict(c.cookies)
    laptop = Browser(f"{service.url}/push/ann-laptop")
    assert _as(c, laptop_cookies).post("/api/push/subscribe", json=laptop.json()).status_code == 201
    store: Store = c.app.state.store  # type: ignore[attr-defined]
    assert len(store.pushes(ann)) == 2
    devices = _as(c, laptop_cookies).get("/api/me/devices").json()["devices"]
    other = next(d["id"] for d in devices if not d["this"])
    assert c.delete(f"/api/me/devices/{other}", headers={"origin": "http://127.0.0.1"}).status_code == 204
    assert [p.endpoint for p in store.pushes(ann)] == [laptop.endpoint]  # the phone's went with it
