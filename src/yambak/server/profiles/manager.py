"""Profiles without a password: made the first time someone plays, proved by a device token in a
cookie, moved to another device by a one-time link, renamed, shared or deleted by their owner only.

A request acts for the profile its cookie proves and for no other: no route takes a profile id to
change. Deleting a profile takes its name off every seat, snapshot and kept record that showed it
(the store does it in one transaction; tables and sheets in memory are reloaded from the store).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Protocol, TypedDict, TypeGuard

from ...engine import RecordError, state_to_record
from ...store import ProfileRow, ResultRow, Store, StoreConflict
from ...viewtypes import JSONObject, JSONValue
from ..common.clock import naive_utc
from ..common.events import Events, GameEnding, NamesRemoved, SeatsRevoked, Write
from ..common.names import clean_name
from ..live import RequestError
from ..settings import Settings
from .devices import device_id
from .results import Grader, kept_result, table_results

__all__ = ["ProfileError", "ProfileManager", "hash_secret", "profile_name", "valid_token"]

log = logging.getLogger("yambak.server")

PROFILE_NAME_MAX = 24


class ProfileError(RequestError):
    """A refused profile request (coded, never a traceback)."""


class Limiter(Protocol):
    """New profiles per client address (`limits.ClientLimiter`, or the cluster's `RedisLimiter`)."""

    def take(self, client: str) -> bool: ...


class DeviceOut(TypedDict):
    """A device a profile is signed in on, as its owner sees it (`ProfileManager.devices`)."""

    id: str
    label: str
    signed_in: str
    seen: str
    this: bool


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def valid_token(raw: object) -> str | None:
    """A device token or link code as sent (URL-safe base64, 20 to 64 characters), or None."""
    if not isinstance(raw, str) or not 20 <= len(raw) <= 64:
        return None
    return raw if raw.replace("-", "").replace("_", "").isalnum() and raw.isascii() else None


def valid_public_id(raw: object) -> TypeGuard[str]:
    """A result's public id as addresses carry it (URL-safe base64, 16 characters)."""
    return isinstance(raw, str) and len(raw) == 16 and raw.replace("-", "").replace("_", "").isalnum() and raw.isascii()


def profile_name(name: object) -> str:
    return clean_name(name, "name", PROFILE_NAME_MAX)


class ProfileManager:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        limiter: Limiter,
        events: Events | None = None,
        live_record: Callable[[str], JSONObject | None] = lambda _sheet_id: None,
    ) -> None:
        """`live_record`: a kept sheet's record as the server holds it now (its store row may lag)."""
        self.store = store
        self.settings = settings
        self.limiter = limiter  # new profiles per client address
        self.events = events or Events()
        self.events.on(GameEnding, self._results_of)
        self.live_record = live_record
        self.grader = Grader(store, self._record_of, settings.coach_process, settings.grade_share, self.events)
        self.reviews: OrderedDict[tuple[str, str], JSONObject] = OrderedDict()  # (kind, ref): the coach's

    def now(self) -> datetime:
        """The server clock as the store keeps times (naive UTC)."""
        return naive_utc(self.settings.clock())

    # --- who is asking ------------------------------------------------------------------------------

    def _seen(self, profile: ProfileRow | None, key_hash: str) -> ProfileRow | None:
        """A device's last visit is kept to the day: a write at most once a day per device."""
        if profile is not None and (profile.seen_at is None or self.now() - profile.seen_at > timedelta(days=1)):
            self.store.touch_key(key_hash, self.now())
        return profile

    def current(self, token: object) -> ProfileRow | None:
        """The profile a device token proves (blocking: plain `def` routes, or through `acurrent`)."""
        token = valid_token(token)
        if not token:
            return None
        key = hash_secret(token)
        return self._seen(self.store.profile_by_key(key), key)

    async def acurrent(self, token: object) -> ProfileRow | None:
        return await self.store.read(self.current, token) if valid_token(token) else None

    def create(self, name: object, client: str, device: str = "") -> tuple[ProfileRow, str]:
        """A new profile and its device token; `rate/profiles` once this address made its share."""
        name = profile_name(name)
        if not self.limiter.take(f"profile:{client}"):
            raise ProfileError(
                "rate/profiles",
                "too many new profiles were made from this address lately (a household or a class shares one): "
                "play on without one, try again later, or bring a profile you have here by its link",
                429,
            )
        token = secrets.token_urlsafe(32)
        now = self.now()
        for _ in range(5):
            pid = secrets.token_urlsafe(12)
            try:
                self.store.create_profile(pid, name, hash_secret(token), now, device)
            except StoreConflict:
                continue
            return ProfileRow(pid, name, False, now), token
        raise ProfileError("server/busy", "the profile could not be made: try again", 503)

    def create_quietly(self, name: object, client: str, device: str = "") -> tuple[ProfileRow, str] | ProfileError:
        """A profile made on the way to a game, or why none was (the name is refused, or this address made
        too many): the game goes on without one, and its player is told."""
        try:
            return self.create(name, client, device)
        except ProfileError as exc:
            return exc

    # --- the owner's changes ----------------------------------------------------------------------------

    def rename(self, profile: ProfileRow, name: object) -> ProfileRow:
        name = profile_name(name)
        if not self.store.update_profile(profile.id, self.now(), name=name):
            raise ProfileError("profile/unknown", "there is no such profile", 404)
        return ProfileRow(profile.id, name, profile.shared, profile.created_at)

    def share(self, profile: ProfileRow, shared: bool) -> ProfileRow:
        if not self.store.update_profile(profile.id, self.now(), shared=bool(shared)):
            raise ProfileError("profile/unknown", "there is no such profile", 404)
        return ProfileRow(profile.id, profile.name, bool(shared), profile.created_at)

    def new_link(self, profile: ProfileRow) -> tuple[str, datetime]:
        """A one-time code that moves the profile to another device (the newest replaces older ones)."""
        code = secrets.token_urlsafe(24)
        expires = self.now() + timedelta(minutes=self.settings.link_minutes)
        self.store.add_link(profile.id, hash_secret(code), expires, self.now())
        return code, expires

    def link_target(self, code: object) -> ProfileRow | None:
        code = valid_token(code)
        return self.store.link_profile(hash_secret(code), self.now()) if code else None

    def claim(self, code: object, device: str = "", replacing: object = None) -> tuple[ProfileRow, str]:
        """Use a link: this device gets a token of the profile (the link is then spent). The profile's
        other devices stay signed in (its devices list shows them all); the profile this device had
        before (`replacing`, its token: the page said so) no longer lists it."""
        code = valid_token(code)
        token = secrets.token_urlsafe(32)
        pid = self.store.claim_link(hash_secret(code), hash_secret(token), self.now(), device) if code else None
        profile = self.store.get_profile(pid) if pid else None
        if profile is None:
            raise ProfileError("profile/link", "this link has been used or has expired: make a new one", 410)
        before = self.current(replacing)
        if before is not None and before.id != profile.id:  # the same device plays on: its seats stay
            self.store.sign_out(before.id, hash_secret(str(replacing)), seats=False)
        return profile, token

    def devices(self, profile: ProfileRow, token: object) -> list[DeviceOut]:
        """The devices the profile is signed in on, as its owner sees them (`this`: the asking one)."""
        valid = valid_token(token)
        here = hash_secret(valid) if valid else None
        return [
            {
                "id": device_id(d.key_hash),
                "label": d.label,
                "signed_in": d.created_at.isoformat() + "Z",
                "seen": (d.used_at or d.created_at).isoformat() + "Z",
                "this": d.key_hash == here,
            }
            for d in self.store.devices(profile.id)
        ]

    async def sign_out(self, profile: ProfileRow, device: object, token: object) -> bool:
        """Sign one of the profile's devices out: its key goes, and the seat tokens it was given under the
        profile (its seats become away: the profile plays on from another device, a deal's attempt too);
        True when it was the asking device."""
        devices = await self.store.read(self.store.devices, profile.id)
        key = next((d.key_hash for d in devices if device_id(d.key_hash) == device), None)
        tables = None if key is None else await self.store.read(self.store.sign_out, profile.id, key)
        if key is None or tables is None:
            raise ProfileError("profile/device", "this profile is not signed in on such a device", 404)
        if tables:
            await self.events.publish(SeatsRevoked(tuple(tables)))
        return valid_token(token) is not None and hash_secret(str(token)) == key

    async def delete(self, profile: ProfileRow) -> None:
        scrubbed = await self.store.read(self.store.delete_profile, profile.id, self.now())
        if scrubbed is None:
            raise ProfileError("profile/unknown", "there is no such profile", 404)
        # tables and sheets in memory show the names they were loaded with: load them again
        await self.events.publish(NamesRemoved({"table": tuple(scrubbed.tables), "sheet": tuple(scrubbed.sheets)}))

    def _results_of(self, ending: GameEnding) -> Write | None:
        """A game ends at a table: its players' results, stored with the game's last event (once: the
        version is the fence), then graded."""
        deal = ending.deal
        kind = deal.split(":", 1)[0] if deal and deal.startswith(("daily:", "club:")) else "table"
        results = table_results(ending.table_id, ending.seats, ending.state, ending.at, kind, deal)
        if not results:
            return None
        # the record `game_record` would read back from the table's last snapshot
        players: list[JSONValue] = [s.name for s in ending.seats]
        record: JSONObject = {**state_to_record(ending.state).to_dict(), "players": players}

        def committed(ids: list[int]) -> None:
            for result, rid in zip(results, ids, strict=True):
                result.id = rid
            self.grader.submit(results, record, first=ending.ranked is not None)  # the fair-play review's

        return Write(Store.insert_results_op(results), committed)

    # --- kept sheets from the device ---------------------------------------------------------------------

    def import_kept(self, profile: ProfileRow, ref: str, record: JSONObject | None, seat: int | None) -> ResultRow:
        """One kept sheet into the profile's history (again: the newer record replaces the older one).
        `record` None: the server's copy of a sheet the phone synced."""
        if record is None:
            row = self.store.get_session(ref, "sheet")
            if row is None:
                raise ProfileError("sheet/unknown", "there is no such score sheet", 404)
            record = self.live_record(ref) or row.record
        try:
            result = kept_result(profile.id, ref, record, seat, self.now())
        except RecordError as exc:
            raise ProfileError("input/record", f"this sheet cannot be replayed: {exc}", 422) from None
        except (ValueError, TypeError) as exc:
            raise ProfileError("input/record", str(exc)[:200], 422) from None
        result.id = self.store.replace_kept(result)
        self.grader.submit([result])
        return result

    # --- one game of a history: who may see it, its record, its review ----------------------------------

    def visible(self, public_id: object, viewer: ProfileRow | None) -> tuple[ResultRow, ProfileRow]:
        """A result its viewer may see (their own, or a shared profile's, but a game of a deal still open
        only to its player); `result/unknown` otherwise (the same answer for one that exists but is
        private: nothing to learn by guessing ids, which are random besides)."""
        result = self.store.result_by_public_id(public_id) if valid_public_id(public_id) else None
        owner = self.store.get_profile(result.profile_id) if result is not None else None
        mine = owner is not None and viewer is not None and viewer.id == owner.id
        if result is None or owner is None or owner.withdrawn or not (owner.shared or mine):
            raise ProfileError("result/unknown", "there is no such game", 404)
        if not mine and result.deal_id is not None:
            deal = self.store.get_deal(result.deal_id)
            if deal is None or not deal.closed(self.now()):
                raise ProfileError("result/unknown", "there is no such game", 404)
        return result, owner

    def game_record(self, result: ResultRow) -> tuple[JSONObject, bool]:
        """(the game's record, whether it was a duplicate table: its turns in round order)."""
        if result.record is not None:
            return result.record, False
        row = self.store.get_session(result.ref, "table")
        if row is None:
            raise ProfileError("result/unknown", "there is no such game", 404)
        return {**row.record, "players": [s.name for s in row.seats]}, row.duplicate

    async def review(self, result: ResultRow) -> JSONObject:
        """The coach's review of the whole game (every player's decisions), computed once and kept a while."""
        key = (result.kind, result.ref if result.record is None else str(result.id))  # a kept copy: its own
        cached = self.reviews.get(key)
        if cached is None:
            record, _ = await self.store.read(self.game_record, result)
            cached = await self.grader.review(record)
            self.reviews[key] = cached
            while len(self.reviews) > 200:
                self.reviews.popitem(last=False)
        return cached

    def _record_of(self, result: ResultRow) -> JSONObject | None:
        """A result's game record: a kept sheet's own, else its table's final snapshot (names from the seats)."""
        try:
            return self.game_record(result)[0]
        except ProfileError:
            return None
