"""Score-keeper sheets for real dice: typed entries meet the engine here, and only here.

One-way flow for every entry: validated body -> keeper core (`yambak.keeper.apply_entry`,
the same code a phone runs offline, over the engine's `typed_turn` / `play_turn` / `revise`)
-> store (the entry appended to the sheet's log under
its client id, off the event loop; a snapshot of the record every few entries and at
the end) -> broadcast to every phone following the sheet. Nothing here computes a
score: the view (`view.py`) reads the engine. A sheet rebuilds from its snapshot and
the entries after it, re-applied.

With several processes, one owns a sheet at a time (like a table): entries that
arrive elsewhere are forwarded to it, and the other processes follow its entries.

Entries are idempotent by their client id (offline phones replay their queue when
the network returns): an id already applied is acknowledged with the version it
made, never applied twice. Concurrent entries are ordered by version: an entry
made on version v applies while the sheet is at v; made on an older version (another
phone entered meanwhile), a turn is rebased when it is still that player's same turn,
anything else is refused (`stale/overtaken` naming whose turn it is, `stale/version`)
and the phone shows it to be filed again: nothing is dropped silently.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...engine import (
    GameRecord,
    GameState,
    IllegalAction,
    RecordError,
    replay,
)
from ...keeper import Refusal, apply_entry, check_rebase, new_sheet
from ...store import EntryRow, KeeperRow, Store, StoreConflict
from .. import metrics
from ..common.events import Events, NamesRemoved
from ..common.names import TABLE_NAME_MAX, clean_name
from ..live import Connection, RequestError, dumps
from ..settings import Settings
from .schema import MAX_PLAYERS, EntryIn, KeeperError, SheetIn
from .view import keeper_view, record_dict

if TYPE_CHECKING:
    from ..cluster import Cluster

log = logging.getLogger("yambak.server")
KIND = "sheet"

# Join codes: no 0/O, 1/I/L, so a code read aloud or off a screen is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


@dataclass(eq=False)
class KeptSheet:
    id: str
    code: str
    name: str
    state: GameState
    version: int = 0
    conns: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    owned: bool = True  # this process applies its entries (always, without a cluster)
    stored_finished: bool = False  # as the newest snapshot says
    inbox: deque = field(default_factory=deque)
    drain: asyncio.Task | None = None
    touched: float = field(default_factory=time.monotonic)


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: Any) -> str | None:
    """A typed join code, forgiving case, spaces and look-alikes; None if it cannot be one."""
    if not isinstance(text, str) or len(text) > 20:
        return None
    code = "".join(text.split()).replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


Loaded = tuple[KeeperRow, list[EntryRow]]


class KeeperManager:
    def __init__(
        self, store: Store, settings: Settings, cluster: Cluster | None = None, events: Events | None = None
    ) -> None:
        self.store = store
        self.settings = settings
        self.cluster = cluster
        self.sheets: dict[str, KeptSheet] = {}
        (events or Events()).on_async(NamesRemoved, lambda removed: self.reload_names(list(removed.sheets)))

    def live_record(self, sheet_id: str) -> dict[str, Any] | None:
        """A sheet's record as held in memory here (its stored snapshot may be older), if it is here."""
        sheet = self.sheets.get(sheet_id)
        return record_dict(sheet.state) if sheet is not None else None

    # --- memory: a cap on live sheets, finished ones dropped (they stay in the store) ---------------

    def release(self, sheet: KeptSheet) -> bool:
        """Drop a finished sheet nobody follows from memory; opening it again reloads it from the store."""
        if sheet.state.finished and not sheet.conns and not sheet.lock.locked() and self.sheets.get(sheet.id) is sheet:
            self._forget(sheet)
            return True
        return False

    def _forget(self, sheet: KeptSheet) -> None:
        if self.sheets.get(sheet.id) is sheet:
            del self.sheets[sheet.id]
            if self.cluster is not None:  # a finished game's lease just expires: no watcher takes it over meanwhile
                self.cluster.unfollow(KIND, sheet.id)
                self.cluster.disown(KIND, sheet.id)

    def evict_idle_mirrors(self, idle: float = 30.0) -> int:
        now, n = time.monotonic(), 0
        for sheet in list(self.sheets.values()):
            if not sheet.owned and not sheet.conns and now - sheet.touched > idle and not sheet.lock.locked():
                self._forget(sheet)
                n += 1
        return n

    def evict_finished(self) -> int:
        return sum(self.release(s) for s in list(self.sheets.values()))

    def _make_room(self, finished: bool = False) -> None:
        if len(self.sheets) < self.settings.max_sheets:
            return
        self.evict_finished()
        if len(self.sheets) >= self.settings.max_sheets and not finished:
            log.warning("score sheet cap reached (%d live sheets)", len(self.sheets))
            raise KeeperError("server/full", "the server is full: try again later", 503)

    # --- creating and finding --------------------------------------------------------------------

    def create(self, body: SheetIn) -> KeptSheet:
        name = clean_name(body.name or "Score sheet", "sheet name", TABLE_NAME_MAX)
        try:
            state = new_sheet(body.model_dump(), min(MAX_PLAYERS, self.settings.max_seats))
        except Refusal as exc:  # the rules, too many players, a name refused or given twice
            raise KeeperError(exc.code, exc.message, 422, **exc.extra) from None
        if body.id is not None and (again := self._created_already(body.id, name, state)) is not None:
            return again  # a phone's sheet started offline, sent again after a lost answer
        self._make_room()
        for _ in range(10):
            sheet = KeptSheet(body.id or secrets.token_urlsafe(12), new_code(), name, state)
            if self.cluster is not None:  # first: without Redis, a 503 and nothing stored
                self.cluster.claim_new_sync(KIND, sheet.id)
            try:
                self.store.create_sheet(KeeperRow(sheet.id, sheet.code, name, record_dict(state)))
            except StoreConflict:
                if self.cluster is not None:
                    self.cluster.unclaim(KIND, sheet.id)
                if body.id is not None and (again := self._created_already(body.id, name, state)) is not None:
                    return again
                continue  # a code already in use: draw another
            except Exception:
                if self.cluster is not None:
                    self.cluster.unclaim(KIND, sheet.id)
                raise
            self.sheets[sheet.id] = sheet
            return sheet
        raise KeeperError("server/busy", "no free join code: try again", 503)

    def _created_already(self, sheet_id: str, name: str, state: GameState) -> KeptSheet | None:
        """The sheet a phone started offline under this id, if the server has it already (the same
        name, rules and players); another sheet under the same id is refused."""
        row = self.store.get_sheet(sheet_id)
        if row is None:
            return None
        fresh = record_dict(state)
        same = row.record.get("rules") == fresh["rules"] and row.record.get("players") == fresh["players"]
        if row.name != name or not same:
            raise KeeperError("sheet/taken", "another sheet has this id", 409)
        return self.get(sheet_id)

    def _load(self, sheet_id: str) -> Loaded | None:
        row = self.store.get_sheet(sheet_id)
        if row is None:
            return None
        return row, self.store.entries(sheet_id, since=row.version)

    def _enter(self, loaded: Loaded | None, sheet_id: str) -> KeptSheet:
        sheet = self.sheets.get(sheet_id)
        if sheet is not None:
            return sheet
        if loaded is None:
            raise KeeperError("sheet/unknown", "there is no such score sheet", 404)
        self._make_room(finished=loaded[0].finished)
        return self.sheets.setdefault(sheet_id, self._build(loaded, owned=self.cluster is None))

    @staticmethod
    def _plausible(sheet_id: Any) -> bool:
        return isinstance(sheet_id, str) and 0 < len(sheet_id) <= 32

    def get(self, sheet_id: Any) -> KeptSheet:
        """A sheet, loaded from the store if it is not in memory (blocking: for plain `def` routes)."""
        sheet = self.sheets.get(sheet_id) if isinstance(sheet_id, str) else None
        if sheet is None:
            if not self._plausible(sheet_id):
                raise KeeperError("sheet/unknown", "there is no such score sheet", 404)
            if self.cluster is not None:
                self.cluster.follow_soon(KIND, sheet_id)
            sheet = self._enter(self._load(sheet_id), sheet_id)
        sheet.touched = time.monotonic()
        return sheet

    async def aget(self, sheet_id: Any) -> KeptSheet:
        """A sheet, loaded off the event loop if it is not in memory."""
        sheet = self.sheets.get(sheet_id) if isinstance(sheet_id, str) else None
        if sheet is None:
            if not self._plausible(sheet_id):
                raise KeeperError("sheet/unknown", "there is no such score sheet", 404)
            if self.cluster is not None:
                await self.cluster.follow(KIND, sheet_id)
            sheet = self._enter(await self.store.read(self._load, sheet_id), sheet_id)
        sheet.touched = time.monotonic()
        return sheet

    def by_code(self, code: Any) -> KeptSheet:
        norm = normal_code(code)
        row = self.store.sheet_by_code(norm) if norm else None
        if row is None:
            raise KeeperError("sheet/unknown-code", "no score sheet has this code", 404)
        return self.get(row.id)

    def _state(self, loaded: Loaded) -> GameState:
        row, entries = loaded
        try:
            state = replay(GameRecord.from_dict(row.record))
            for e in entries:  # the entries after the snapshot, applied again
                if e.data is None:
                    raise RecordError("record/invalid", f"entry {e.version} is not stored")
                state = self._apply(state, EntryIn.model_validate(e.data))
        except (RecordError, IllegalAction, RequestError, ValueError):
            log.exception("score sheet %s cannot be loaded", row.id)
            raise KeeperError("sheet/broken", "this sheet's stored record cannot be loaded", 500) from None
        return state

    def _build(self, loaded: Loaded, owned: bool) -> KeptSheet:
        row, entries = loaded
        version = entries[-1].version if entries else row.version
        sheet = KeptSheet(row.id, row.code, row.name, self._state(loaded), version, owned=owned)
        sheet.stored_finished = row.finished
        return sheet

    # --- entries ---------------------------------------------------------------------------------

    async def enter(self, sheet: KeptSheet, entry: EntryIn) -> dict[str, Any]:
        """Apply one entry; returns {"v", "duplicate"}; raises KeeperError and changes nothing when refused."""
        if sheet.owned:
            try:
                return await self._enter_local(sheet, entry)
            except _Moved:
                pass
        assert self.cluster is not None
        result = await self.cluster.route(
            KIND, sheet.id, "enter", {"entry": entry.model_dump()}, lambda: sheet.owned, lambda: self.promote(sheet)
        )
        if sheet.version < result["v"]:  # the owner's message may still be on its way: the answer shows it
            await self.refresh(sheet)
        return result

    async def _enter_local(self, sheet: KeptSheet, entry: EntryIn) -> dict[str, Any]:
        start = time.perf_counter()
        async with sheet.lock:
            if not sheet.owned:
                raise _Moved()
            done = await self.store.read(self.store.entry_version, sheet.id, entry.id)
            if done is not None:  # a replayed entry (lost answer, offline queue): acknowledged, not reapplied
                return {"v": sheet.version, "applied_as": done, "duplicate": True}
            if entry.v != sheet.version:  # made before another phone's entry: rebased, or refused
                try:
                    check_rebase(sheet.state, entry.model_dump())
                except Refusal as exc:
                    raise KeeperError(exc.code, exc.message, exc.status, v=sheet.version, **exc.extra) from None
            try:
                state = self._apply(sheet.state, entry)
            except RecordError as exc:
                raise KeeperError(exc.code, exc.message, 422) from None
            except IllegalAction as exc:
                raise KeeperError(exc.code, exc.message, 422) from None
            version = sheet.version + 1
            data = entry.model_dump()
            due = state.finished or sheet.stored_finished or version % max(1, self.settings.snapshot_every) == 0
            snapshot = record_dict(state) if due else None
            try:
                await self.store.write(
                    Store.append_entry_op(sheet.id, version, entry.id, entry.kind, data, snapshot, state.finished)
                )
            except StoreConflict as exc:  # another server process wrote: reload and let the client refresh
                log.error("keeper store conflict at %s: %s", sheet.id, exc)
                if self.cluster is not None:
                    sheet.owned = False
                    self.cluster.disown(KIND, sheet.id)
                self._forget(sheet)  # reloaded (and followed) when next asked for
                raise KeeperError("stale/store", "the sheet changed elsewhere: refresh", 409) from None
            metrics.ACTIONS.inc()
            if snapshot is not None:
                sheet.stored_finished = state.finished
            sheet.state = state
            sheet.version = version
            self.broadcast(sheet)
            if self.cluster is not None:
                self.cluster.publish(KIND, sheet.id, {"kind": "entry", "v": version, "entry": data})
        metrics.LATENCY.observe(time.perf_counter() - start)
        if state.finished and not sheet.conns:
            self._forget(sheet)  # a finished sheet nobody follows: back to the store only
        return {"v": version, "duplicate": False}

    async def reload_names(self, sheet_ids: list[str]) -> None:
        """Sheets whose player names changed in the store (a deleted profile) reload them."""
        for sheet_id in dict.fromkeys(sheet_ids):
            sheet = self.sheets.get(sheet_id)
            if sheet is None:
                continue
            if sheet.owned:
                await self.refresh(sheet)
            else:
                self._forget(sheet)  # a mirror: loaded again, from the store, when next asked for
            if self.cluster is not None:
                self.cluster.publish(KIND, sheet_id, {"kind": "reload"})

    # --- several processes ----------------------------------------------------------------------

    async def handle_rpc(self, sheet_id: str, op: str, args: dict[str, Any]) -> dict[str, Any]:
        sheet = self.sheets.get(sheet_id)
        if sheet is None or not sheet.owned or op != "enter":
            raise _Moved()
        return await self._enter_local(sheet, EntryIn.model_validate(args["entry"]))

    def on_message(self, sheet_id: str, message: dict[str, Any]) -> None:
        sheet = self.sheets.get(sheet_id)
        if sheet is None or sheet.owned:
            return
        sheet.inbox.append(message)
        if sheet.drain is None or sheet.drain.done():
            sheet.drain = asyncio.get_running_loop().create_task(self._drain(sheet))

    async def _drain(self, sheet: KeptSheet) -> None:
        while sheet.inbox:
            message = sheet.inbox.popleft()
            try:
                async with sheet.lock:
                    if sheet.owned:
                        sheet.inbox.clear()
                        return
                    if message.get("kind") != "entry" or message["v"] != sheet.version + 1:
                        if message.get("v", sheet.version + 1) > sheet.version:
                            await self._refresh_locked(sheet)
                        continue
                    sheet.state = self._apply(sheet.state, EntryIn.model_validate(message["entry"]))
                    sheet.version = message["v"]
                    self.broadcast(sheet)
            except Exception:
                log.exception("sheet %s: a message from its owner failed; reloading", sheet.id)
                await self.refresh(sheet)

    async def refresh(self, sheet: KeptSheet) -> None:
        async with sheet.lock:
            await self._refresh_locked(sheet)

    async def _refresh_locked(self, sheet: KeptSheet) -> None:
        loaded = await self.store.read(self._load, sheet.id)
        if loaded is None:
            return
        fresh = self._build(loaded, owned=sheet.owned)
        sheet.state, sheet.version, sheet.stored_finished = fresh.state, fresh.version, fresh.stored_finished
        self.broadcast(sheet)

    async def promote(self, sheet: KeptSheet) -> None:
        async with sheet.lock:
            sheet.owned = True
            sheet.inbox.clear()
            try:
                await self._refresh_locked(sheet)
            except Exception:
                sheet.owned = False
                raise
            if self.cluster is not None:
                self.cluster.unfollow(KIND, sheet.id)

    async def take_over(self, sheet_id: str) -> None:
        sheet = await self.aget(sheet_id)
        if not sheet.owned:
            await self.promote(sheet)

    def lost_lease(self, sheet_id: str) -> None:
        sheet = self.sheets.get(sheet_id)
        if sheet is not None and sheet.owned:
            sheet.owned = False
            asyncio.get_running_loop().create_task(self._demoted(sheet))

    async def _demoted(self, sheet: KeptSheet) -> None:
        assert self.cluster is not None
        await self.cluster.follow(KIND, sheet.id)
        await self.refresh(sheet)

    def owned_ids(self) -> list[str]:
        return [s.id for s in self.sheets.values() if s.owned]

    def watched_ids(self) -> list[str]:
        return [s.id for s in self.sheets.values() if not s.owned and s.conns and not s.state.finished]

    def local_versions(self) -> dict[str, int]:
        """Sheets with clients here: the version their clients were sent last (compared with the log)."""
        return {s.id: s.version for s in self.sheets.values() if s.conns}

    async def stored_versions(self, ids: list[str]) -> dict[str, int]:
        return await self.store.read(self.store.sheet_versions, ids)

    async def reread(self, sheet_id: str) -> None:
        """The log is ahead of this copy: read it again (under the lock); an owner that another process
        overtook follows it from now on."""
        sheet = self.sheets.get(sheet_id)
        if sheet is None:
            return
        async with sheet.lock:
            stored = await self.store.read(self.store.sheet_versions, [sheet_id])
            if stored.get(sheet_id, 0) <= sheet.version:
                return
            if sheet.owned and self.cluster is not None:
                log.warning("sheet %s: another process wrote its log; following it", sheet_id)
                sheet.owned = False
                self.cluster.disown(KIND, sheet_id)
                await self.cluster.follow(KIND, sheet_id)
            await self._refresh_locked(sheet)

    def _apply(self, state: GameState, entry: EntryIn) -> GameState:
        """The keeper core applies the entry (`yambak.keeper.apply_entry`, the same code a phone runs)."""
        try:
            return apply_entry(state, entry.model_dump())
        except Refusal as exc:
            raise KeeperError(exc.code, exc.message, exc.status, **exc.extra) from None

    # --- following --------------------------------------------------------------------------------

    def broadcast(self, sheet: KeptSheet) -> None:
        if not sheet.conns:
            return
        try:
            text = dumps({"type": "state", "v": sheet.version, "view": keeper_view(sheet)})
        except Exception:  # stored and applied: clients that miss it refresh
            log.exception("keeper broadcast failed at %s", sheet.id)
            return
        for conn in list(sheet.conns):
            conn.send(text)


class _Moved(RequestError):
    """This process does not own the sheet (any more): the requester asks its owner again."""

    def __init__(self) -> None:
        super().__init__("cluster/moved", "the sheet moved to another process", 503)
