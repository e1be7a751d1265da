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
from typing import Any

from ...engine import RecordError
from ...store import ProfileRow, ResultRow, Store, StoreConflict
from ..common.clock import naive_utc
from ..common.events import Events, GameEnding, NamesRemoved, Write
from ..common.names import clean_name
from ..live import RequestError
from ..settings import Settings
from .results import Grader, kept_result, table_results

__all__ = ["ProfileError", "ProfileManager", "hash_secret", "profile_name", "valid_token"]

log = logging.getLogger("yambak.server")

PROFILE_NAME_MAX = 24
MAX_IMPORT = 400  # kept sheets per profile import request


class ProfileError(RequestError):
    """A refused profile request (coded, never a traceback)."""


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def valid_token(raw: Any) -> str | None:
    """A device token or link code as sent (URL-safe base64, 20 to 64 characters), or None."""
    if not isinstance(raw, str) or not 20 <= len(raw) <= 64:
        return None
    return raw if raw.replace("-", "").replace("_", "").isalnum() and raw.isascii() else None


def profile_name(name: Any) -> str:
    return clean_name(name, "name", PROFILE_NAME_MAX)


class ProfileManager:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        limiter: Any,
        events: Events | None = None,
        live_record: Callable[[str], dict[str, Any] | None] = lambda _sheet_id: None,
    ) -> None:
        """`live_record`: a kept sheet's record as the server holds it now (its store row may lag)."""
        self.store = store
        self.settings = settings
        self.limiter = limiter  # new profiles per client address
        self.events = events or Events()
        self.events.on(GameEnding, self._results_of)
        self.live_record = live_record
        self.grader = Grader(store, self._record_of, settings.coach_process)
        self.reviews: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()  # (kind, ref): the coach's

    def now(self) -> datetime:
        """The server clock as the store keeps times (naive UTC)."""
        return naive_utc(self.settings.clock())

    # --- who is asking ------------------------------------------------------------------------------

    def current(self, token: Any) -> ProfileRow | None:
        """The profile a device token proves (blocking: plain `def` routes, or through `acurrent`)."""
        token = valid_token(token)
        return self.store.profile_by_key(hash_secret(token)) if token else None

    async def acurrent(self, token: Any) -> ProfileRow | None:
        token = valid_token(token)
        return await self.store.read(self.store.profile_by_key, hash_secret(token)) if token else None

    def create(self, name: Any, client: str) -> tuple[ProfileRow, str]:
        """A new profile and its device token; `rate/profiles` once this address made its share."""
        name = profile_name(name)
        if not self.limiter.take(f"profile:{client}"):
            raise ProfileError("rate/profiles", "too many new profiles from this address: try again later", 429)
        token = secrets.token_urlsafe(32)
        now = self.now()
        for _ in range(5):
            pid = secrets.token_urlsafe(12)
            try:
                self.store.create_profile(pid, name, hash_secret(token), now)
            except StoreConflict:
                continue
            return ProfileRow(pid, name, False, now), token
        raise ProfileError("server/busy", "the profile could not be made: try again", 503)

    def create_quietly(self, name: Any, client: str) -> tuple[ProfileRow, str] | None:
        """A profile made on the way to a game: none (and the game goes on) when the name is refused
        or this address made too many."""
        try:
            return self.create(name, client)
        except ProfileError:
            return None

    # --- the owner's changes ----------------------------------------------------------------------------

    def rename(self, profile: ProfileRow, name: Any) -> ProfileRow:
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

    def link_target(self, code: Any) -> ProfileRow | None:
        code = valid_token(code)
        return self.store.link_profile(hash_secret(code), self.now()) if code else None

    def claim(self, code: Any) -> tuple[ProfileRow, str]:
        """Use a link: this device gets a token of the profile (the link is then spent)."""
        code = valid_token(code)
        token = secrets.token_urlsafe(32)
        pid = self.store.claim_link(hash_secret(code), hash_secret(token), self.now()) if code else None
        profile = self.store.get_profile(pid) if pid else None
        if profile is None:
            raise ProfileError("profile/link", "this link has been used or has expired: make a new one", 410)
        return profile, token

    async def delete(self, profile: ProfileRow) -> None:
        scrubbed = await self.store.read(self.store.delete_profile, profile.id)
        if scrubbed is None:
            raise ProfileError("profile/unknown", "there is no such profile", 404)
        # tables and sheets in memory show the names they were loaded with: load them again
        await self.events.publish(NamesRemoved({"table": tuple(scrubbed.tables), "sheet": tuple(scrubbed.sheets)}))

    def _results_of(self, ending: GameEnding) -> Write | None:
        """A game ends at a table: its players' results, stored with the game's last event (once: the
        version is the fence), then graded."""
        deal = ending.deal
        kind = deal.split(":", 1)[0] if deal and deal.startswith(("daily:", "club:")) else "table"
        results = table_results(ending.table_id, ending.seats, ending.state, ending.at, kind)
        if not results:
            return None

        def committed(ids: list[int]) -> None:
            for result, rid in zip(results, ids, strict=True):
                result.id = rid
            self.grader.submit(results)

        return Write(Store.insert_results_op(results), committed)

    # --- kept sheets from the device ---------------------------------------------------------------------

    def import_kept(self, profile: ProfileRow, ref: str, record: Any, seat: int | None) -> ResultRow:
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

    def visible(self, result_id: Any, viewer: ProfileRow | None) -> tuple[ResultRow, ProfileRow]:
        """A result its viewer may see (their own, or a shared profile's); `result/unknown` otherwise
        (the same answer for one that exists but is private: nothing to learn by guessing ids)."""
        result = self.store.get_result(result_id) if isinstance(result_id, int) and 0 < result_id < 2**62 else None
        owner = self.store.get_profile(result.profile_id) if result is not None else None
        if result is None or owner is None or not (owner.shared or (viewer is not None and viewer.id == owner.id)):
            raise ProfileError("result/unknown", "there is no such game", 404)
        return result, owner

    def game_record(self, result: ResultRow) -> tuple[dict[str, Any], bool]:
        """(the game's record, whether it was a duplicate table: its turns in round order)."""
        if result.record is not None:
            return result.record, False
        row = self.store.get_session(result.ref, "table")
        if row is None:
            raise ProfileError("result/unknown", "there is no such game", 404)
        return {**row.record, "players": [s.name for s in row.seats]}, row.duplicate

    async def review(self, result: ResultRow) -> dict[str, Any]:
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

    def _record_of(self, result: ResultRow) -> dict[str, Any] | None:
        """A result's game record: a kept sheet's own, else its table's final snapshot (names from the seats)."""
        try:
            return self.game_record(result)[0]
        except ProfileError:
            return None
