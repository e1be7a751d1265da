"""Web Push in the store: the browsers' subscriptions of each profile, and the keys the server makes once
(the VAPID key that signs every push). Mixed into `Store` (it provides `engine`).

A key is made by whichever process starts first: each inserts its own if none is there, and every one
reads back the key that won, so all processes sign with the same key.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Engine

from .models import PushSubscription, ServerKey

__all__ = ["PushRow", "PushStore", "endpoint_hash"]

MAX_PER_PROFILE = 10  # devices and browsers of one profile; the oldest subscription goes first


@dataclass(frozen=True)
class PushRow:
    endpoint: str
    p256dh: str
    auth: str
    lang: str | None
    failures: int = 0

    @property
    def key(self) -> str:
        return endpoint_hash(self.endpoint)


def endpoint_hash(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def _insert(conn: Connection, model: type[PushSubscription] | type[ServerKey]) -> postgresql.Insert | sqlite.Insert:
    """An insert that can be told what to do when its row is there already (both dialects say it alike)."""
    return postgresql.insert(model) if conn.dialect.name == "postgresql" else sqlite.insert(model)


class PushStore:
    """The Web Push half of `Store`."""

    engine: Engine

    def server_key(self, name: str, make: Callable[[], str]) -> str:
        """The key stored under `name`, made by `make` and stored first if there is none (several processes
        at once: one insert wins, and every process reads back the winner)."""
        with self.engine.begin() as conn:
            found = conn.execute(select(ServerKey.value).where(ServerKey.name == name)).scalar()
            if found is not None:
                return str(found)
        with self.engine.begin() as conn:
            ins = _insert(conn, ServerKey).values(name=name, value=make(), created_at=_now())
            conn.execute(ins.on_conflict_do_nothing(index_elements=["name"]))
            return str(conn.execute(select(ServerKey.value).where(ServerKey.name == name)).scalar_one())

    def save_push(self, profile_id: str, row: PushRow, device: str | None = None) -> bool:
        """Keep a browser's subscription for a profile (a subscription another profile had moves to this one,
        with its failures forgotten); True when it is new. A profile keeps its newest `MAX_PER_PROFILE`.
        `device`: the hash of the subscribing device's profile key (signed out, its subscriptions go)."""
        key = row.key
        values = {"endpoint": row.endpoint, "p256dh": row.p256dh, "auth": row.auth, "lang": row.lang}
        with self.engine.begin() as conn:
            known = conn.execute(
                select(PushSubscription.profile_id).where(PushSubscription.endpoint_hash == key)
            ).scalar()
            fresh = {**values, "profile_id": profile_id, "device": device, "created_at": _now(), "failures": 0}
            ins = _insert(conn, PushSubscription).values(endpoint_hash=key, **fresh)
            conn.execute(ins.on_conflict_do_update(index_elements=["endpoint_hash"], set_=fresh))
            kept = (
                select(PushSubscription.endpoint_hash)
                .where(PushSubscription.profile_id == profile_id)
                .order_by(PushSubscription.created_at.desc(), PushSubscription.endpoint_hash)
                .limit(MAX_PER_PROFILE)
            )
            older = PushSubscription.endpoint_hash.not_in(kept.scalar_subquery())
            conn.execute(delete(PushSubscription).where(PushSubscription.profile_id == profile_id, older))
        return known != profile_id

    def drop_push(self, profile_id: str, endpoint: str) -> bool:
        """Forget a subscription of this profile (another profile's stays); True when there was one."""
        with self.engine.begin() as conn:
            gone = conn.execute(
                delete(PushSubscription).where(
                    PushSubscription.endpoint_hash == endpoint_hash(endpoint), PushSubscription.profile_id == profile_id
                )
            )
            return bool(gone.rowcount)

    def pushes(self, profile_id: str) -> list[PushRow]:
        """A profile's subscriptions, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    PushSubscription.endpoint,
                    PushSubscription.p256dh,
                    PushSubscription.auth,
                    PushSubscription.lang,
                    PushSubscription.failures,
                )
                .where(PushSubscription.profile_id == profile_id)
                .order_by(PushSubscription.created_at)
            )
            return [PushRow(r.endpoint, r.p256dh, r.auth, r.lang, r.failures) for r in rows]

    def push_outcome(self, key: str, delivered: bool, gone: bool = False, max_failures: int = 5) -> None:
        """What one push did: delivered (failures start again), gone (the push service forgot the
        subscription: so do we), or failed (counted; the `max_failures`-th in a row forgets it)."""
        sub = PushSubscription
        with self.engine.begin() as conn:
            if gone:
                conn.execute(delete(sub).where(sub.endpoint_hash == key))
            elif delivered:
                conn.execute(update(sub).where(sub.endpoint_hash == key, sub.failures > 0).values(failures=0))
            else:
                conn.execute(update(sub).where(sub.endpoint_hash == key).values(failures=sub.failures + 1))
                conn.execute(delete(sub).where(sub.endpoint_hash == key, sub.failures >= max_failures))
