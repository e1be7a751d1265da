"""Score-keeper sheets for real dice: typed entries meet the engine here, and only here.

One-way flow for every entry: validated body -> keeper core (`yambak.keeper.apply_entry`,
the same code a phone runs offline, over the engine's `typed_turn` / `play_turn` / `revise`)
-> store (the record at the next version, and the entry's client id, in one transaction)
-> broadcast to every phone following the sheet.
Nothing here computes a score: the view (`view.py`) reads the engine.

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
from dataclasses import dataclass, field
from typing import Any

from ...engine import (
    GameRecord,
    GameState,
    IllegalAction,
    RecordError,
    replay,
)
from ...keeper import Refusal, apply_entry, check_rebase, new_sheet
from ...store import KeeperRow, Store, StoreConflict
from ..live import Connection, dumps
from ..settings import Settings
from ..tables.manager import TABLE_NAME_MAX, clean_name
from .schema import MAX_PLAYERS, EntryIn, KeeperError, SheetIn
from .view import keeper_view, record_dict

log = logging.getLogger("yambak.server")

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


class KeeperManager:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.sheets: dict[str, KeptSheet] = {}

    # --- memory: a cap on live sheets, finished ones dropped (they stay in the store) ---------------

    def release(self, sheet: KeptSheet) -> bool:
        """Drop a finished sheet nobody follows from memory; opening it again reloads it from the store."""
        if sheet.state.finished and not sheet.conns and not sheet.lock.locked() and self.sheets.get(sheet.id) is sheet:
            del self.sheets[sheet.id]
            return True
        return False

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
            try:
                self.store.create_sheet(KeeperRow(sheet.id, sheet.code, name, record_dict(state)))
            except StoreConflict:
                if body.id is not None and (again := self._created_already(body.id, name, state)) is not None:
                    return again
                continue  # a code already in use: draw another
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

    def get(self, sheet_id: Any) -> KeptSheet:
        sheet = self.sheets.get(sheet_id) if isinstance(sheet_id, str) else None
        if sheet is None and isinstance(sheet_id, str) and 0 < len(sheet_id) <= 32:
            row = self.store.get_sheet(sheet_id)
            if row is not None:
                self._make_room(finished=row.finished)
                sheet = self.sheets.setdefault(row.id, self._build(row))
        if sheet is None:
            raise KeeperError("sheet/unknown", "there is no such score sheet", 404)
        return sheet

    def by_code(self, code: Any) -> KeptSheet:
        norm = normal_code(code)
        row = self.store.sheet_by_code(norm) if norm else None
        if row is None:
            raise KeeperError("sheet/unknown-code", "no score sheet has this code", 404)
        return self.get(row.id)

    def _build(self, row: KeeperRow) -> KeptSheet:
        try:
            state = replay(GameRecord.from_dict(row.record))
        except RecordError:
            log.exception("score sheet %s cannot be loaded", row.id)
            raise KeeperError("sheet/broken", "this sheet's stored record cannot be loaded", 500) from None
        return KeptSheet(row.id, row.code, row.name, state, row.version)

    # --- entries ---------------------------------------------------------------------------------

    async def enter(self, sheet: KeptSheet, entry: EntryIn) -> dict[str, Any]:
        """Apply one entry; returns {"v", "duplicate"}; raises KeeperError and changes nothing when refused."""
        async with sheet.lock:
            done = self.store.entry_version(sheet.id, entry.id)
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
            try:
                self.store.advance_sheet(sheet.id, version, record_dict(state), state.finished, entry.id, entry.kind)
            except StoreConflict as exc:  # another server process wrote: reload and let the client refresh
                log.error("keeper store conflict at %s: %s", sheet.id, exc)
                self.sheets.pop(sheet.id, None)
                raise KeeperError("stale/store", "the sheet changed elsewhere: refresh", 409) from None
            sheet.state = state
            sheet.version = version
            self.broadcast(sheet)
        if state.finished and not sheet.conns and self.sheets.get(sheet.id) is sheet:
            del self.sheets[sheet.id]  # a finished sheet nobody follows: back to the store only
        return {"v": version, "duplicate": False}

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
