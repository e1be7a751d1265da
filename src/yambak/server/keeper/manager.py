"""Score-keeper sheets for real dice: a game session (`server/session`) whose events are typed entries.

One-way flow for every entry: validated message -> keeper core (`yambak.keeper.apply_entry`,
the same code a phone runs offline, over the engine's `typed_turn` / `play_turn` / `revise`)
-> the session core's commit (the entry appended to the sheet's log under its client id,
off the event loop; a snapshot of the record every few entries and at the end) ->
broadcast to every phone following the sheet. Nothing here computes a score: the view
(`view.py`) reads the engine. A sheet rebuilds from its snapshot and the entries after
it, re-applied. With several processes, one owns a sheet at a time, like a table.

Entries are idempotent by their client id (offline phones replay their queue when
the network returns): an id already applied is acknowledged with the version it
made, never applied twice. Concurrent entries are ordered by version: an entry
made on version v applies while the sheet is at v; made on an older version (another
phone entered meanwhile), a turn is rebased when it is still that player's same turn,
anything else is refused (`stale/overtaken` naming whose turn it is, `stale/version`)
and the phone shows it to be filed again: nothing is dropped silently. An entry made on a
version the sheet never had (`stale/ahead`: it followed an entry that was refused) is refused too,
never rebased.

A sheet's id only reads (a watcher's link). Writing takes a write token: the phone that makes the
sheet brings or gets one (`owner`), the join code hands one to each phone that joins (`code`), and
renewing the code revokes every token the old code handed out (`auth/sheet-token`, 403).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...engine import GameRecord, GameState, IllegalAction, RecordError, replay
from ...keeper import Refusal, apply_entry, check_rebase, new_sheet
from ...keeper.entries import MAX_PLAYERS
from ...store import RefTaken, SessionRow, Store, StoreConflict
from ...viewtypes import JSONObject, SheetView
from .. import metrics
from ..common.events import Events
from ..common.names import TABLE_NAME_MAX, clean_name
from ..common.tokens import hash_token, new_token
from ..live import RequestError
from ..session import Loaded, Moved, Session, SessionFront, SessionKind
from ..session.model import OwnerMessage, recent_of
from ..settings import Settings
from .schema import EntryIn, KeeperError, SheetIn
from .view import keeper_view, record_dict

if TYPE_CHECKING:
    from ..cluster import Cluster

log = logging.getLogger("yambak.server")

__all__ = ["CODE_ALPHABET", "KeeperManager", "KeptSheet", "SheetKind", "normal_code", "read_only"]

# Join codes: no 0/O, 1/I/L, so a code read aloud or off a screen is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6


@dataclass(eq=False)
class KeptSheet(Session):
    code: str = ""


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def read_only() -> KeeperError:
    return KeeperError("auth/sheet-token", "this phone may only watch this sheet: join it with its code to write", 403)


def normal_code(text: object) -> str | None:
    """A typed join code, forgiving case, spaces and look-alikes; None if it cannot be one."""
    if not isinstance(text, str) or len(text) > 20:
        return None
    code = "".join(text.split()).replace("-", "").upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code


class SheetKind(SessionKind[KeptSheet]):
    """What a kept sheet tells the session core (`session/kind.py`)."""

    KIND = "sheet"
    NOUN = "score sheet"
    UNKNOWN = "sheet/unknown"
    Error = KeeperError

    def __init__(self, settings: Settings, enter: Callable[[KeptSheet, EntryIn], Awaitable[JSONObject]]) -> None:
        self.settings = settings
        self.enter = enter  # the owner's side of an entry (`KeeperManager.enter_here`)

    def cap(self) -> int:
        return self.settings.max_sheets

    def blank(self, row: SessionRow) -> KeptSheet:
        return KeptSheet(row.id, row.name, None, code=row.code or "")  # type: ignore[arg-type]  # `fill` sets it

    def fill(self, sheet: KeptSheet, loaded: Loaded, owned: bool) -> None:
        row, after, recent, _ = loaded
        try:
            state = replay(GameRecord.from_dict(row.record))
            for e in after:  # the entries after the snapshot, applied again
                if e.data is None:
                    raise RecordError("record/invalid", f"entry {e.version} is not stored")
                state = entry_applied(state, EntryIn.model_validate(e.data))
        except (RecordError, IllegalAction, RequestError, ValueError):
            log.exception("score sheet %s cannot be loaded", row.id)
            raise KeeperError("sheet/broken", "this sheet's stored record cannot be loaded", 500) from None
        sheet.name, sheet.code, sheet.state, sheet.owned = row.name, row.code or "", state, owned
        sheet.version = after[-1].version if after else row.version
        sheet.recent = recent_of(recent, self.settings.history)

    def apply_logged(self, sheet: KeptSheet, message: OwnerMessage) -> GameState:
        return entry_applied(sheet.state, EntryIn.model_validate(message["event"]))

    def record(self, sheet: KeptSheet, state: GameState | None = None) -> JSONObject:
        return record_dict(state or sheet.state)

    def view(self, sheet: KeptSheet, _seats: frozenset[int] = frozenset(), /) -> SheetView:
        return keeper_view(sheet)  # every phone of a sheet sees all of it

    def acts_here(self, sheet: KeptSheet) -> bool:
        return bool(sheet.conns)  # every phone following a sheet may write on it

    async def rpc(self, sheet: KeptSheet, op: str, args: JSONObject) -> JSONObject:
        if op == "act":
            return await self.enter(sheet, EntryIn.model_validate(args["entry"]))
        return await SessionKind.rpc(self, sheet, op, args)


def entry_applied(state: GameState, entry: EntryIn) -> GameState:
    """The keeper core applies the entry (`yambak.keeper.apply_entry`, the same code a phone runs)."""
    try:
        return apply_entry(state, entry.model_dump())
    except Refusal as exc:
        raise KeeperError(exc.code, exc.message, exc.status, **exc.extra) from None


class KeeperManager(SessionFront[KeptSheet]):
    """Kept sheets: the session core with a sheet's kind, and a sheet's own requests (codes, tokens, entries)."""

    def __init__(
        self, store: Store, settings: Settings, cluster: Cluster | None = None, events: Events | None = None
    ) -> None:
        super().__init__(store, settings, SheetKind(settings, self.enter_here), cluster, events)

    def live_record(self, sheet_id: str) -> JSONObject | None:
        """A sheet's record as held in memory here (its stored snapshot may be older), if it is here."""
        sheet = self.sessions.get(sheet_id)
        return record_dict(sheet.state) if sheet is not None else None

    # --- creating and finding --------------------------------------------------------------------

    def create(self, body: SheetIn) -> tuple[KeptSheet, str]:
        """A new sheet and the write token of the phone that made it (the one it brought, else a new one)."""
        name = clean_name(body.name or "Score sheet", "sheet name", TABLE_NAME_MAX)
        try:
            state = new_sheet(body.model_dump(), min(MAX_PLAYERS, self.settings.max_seats))
        except Refusal as exc:  # the rules, too many players, a name refused or given twice
            raise KeeperError(exc.code, exc.message, 422, **exc.extra) from None
        token = body.token or new_token()
        if body.id is not None and (again := self._created_already(body.id, name, state, token)) is not None:
            return again, token  # a phone's sheet started offline, sent again after a lost answer
        self.core.make_room()
        for _ in range(10):
            sheet = KeptSheet(body.id or secrets.token_urlsafe(12), name, state, code=new_code())
            sheet.recent = self.core.recent_of([])
            row = SessionRow(
                sheet.id, name, state.rules.spec, False, False, None, record_dict(state), kind="sheet", code=sheet.code
            )
            row.tokens = [(hash_token(token), "owner")]
            try:
                self.core.store_new(row)
            except StoreConflict:
                if body.id is not None and (again := self._created_already(body.id, name, state, token)) is not None:
                    return again, token
                continue  # a code already in use: draw another
            self.core.admit_new(sheet)
            return sheet, token
        raise KeeperError("server/busy", "no free join code: try again", 503)

    def _created_already(self, sheet_id: str, name: str, state: GameState, token: str) -> KeptSheet | None:
        """The sheet a phone started offline under this id, if the server has it already (the same
        name, rules and players, and the token the phone made it with); anything else under the same
        id is refused: knowing a sheet's id (a watcher's link) gives no token."""
        row = self.store.get_session(sheet_id)
        if row is None:
            return None
        fresh = record_dict(state)
        same = row.record.get("rules") == fresh["rules"] and row.record.get("players") == fresh["players"]
        if row.kind != "sheet" or row.name != name or not same or self.store.sheet_owner(sheet_id) != hash_token(token):
            raise KeeperError("sheet/taken", "another sheet has this id", 409)
        return self.get(sheet_id)

    def by_code(self, code: object) -> KeptSheet:
        norm = normal_code(code)
        row = self.store.session_by_code(norm) if norm else None
        if row is None:
            raise KeeperError("sheet/unknown-code", "no score sheet has this code", 404)
        return self.get(row.id)

    # --- who writes ------------------------------------------------------------------------------

    def join(self, code: object) -> tuple[KeptSheet, str, str]:
        """The sheet of a join code, the code as stored and a new write token handed out by it."""
        sheet = self.by_code(code)
        row = self.store.get_session(sheet.id, "sheet")
        token = new_token()
        self.store.add_sheet_token(sheet.id, hash_token(token), "code")
        return sheet, (row.code if row is not None else None) or sheet.code, token

    async def writer(self, sheet: KeptSheet, tokens: list[str]) -> tuple[str, str]:
        """The first of a phone's tokens that may write on this sheet (its hash and kind); else 403."""
        found = await self.store.read(self.store.sheet_writer, sheet.id, [hash_token(t) for t in tokens[:16]])
        if found is None:
            raise read_only()
        return found

    async def code_of(self, sheet: KeptSheet, tokens: list[str]) -> str:
        """The sheet's join code, for a phone that may write on it (the code hands out write tokens)."""
        await self.writer(sheet, tokens)
        row = await self.store.read(self.store.get_session, sheet.id, "sheet")
        return (row.code if row is not None else None) or sheet.code

    async def renew_code(self, sheet: KeptSheet, tokens: list[str]) -> tuple[str, str | None]:
        """A new join code for a phone that may write: every token the old code handed out stops writing.
        Returns the code and, where the renewing phone's own token came from the code, its new token."""
        _, kind = await self.writer(sheet, tokens)
        token = new_token() if kind == "code" else None
        for _ in range(10):
            code = new_code()
            try:
                await self.store.write(self.store.renew_code_op(sheet.id, code, hash_token(token) if token else None))
            except StoreConflict:
                continue  # a code already in use: draw another
            sheet.code = code
            return code, token
        raise KeeperError("server/busy", "no free join code: try again", 503)

    # --- entries ---------------------------------------------------------------------------------

    async def enter(self, sheet: KeptSheet, entry: EntryIn) -> JSONObject:
        """Apply one entry; returns {"v", "duplicate"}; raises KeeperError and changes nothing when refused."""
        if sheet.owned:
            try:
                return await self.enter_here(sheet, entry)
            except Moved:
                pass
        try:
            result = await self.replica.forward(sheet, "act", {"entry": entry.model_dump()})
        except RequestError as exc:  # no answer in time, Redis failing: the log says whether it was applied
            if not exc.code.startswith("server/"):
                raise
            done = await self.store.read(self.store.ref_version, sheet.id, entry.id)
            if done is None:
                raise
            return {"v": max(sheet.version, done), "applied_as": done, "duplicate": True}
        owners = result["v"]
        if (
            isinstance(owners, int) and sheet.version < owners
        ):  # the owner's message may still be on its way: the answer shows it
            await self.refresh(sheet)
        return result

    async def enter_here(self, sheet: KeptSheet, entry: EntryIn) -> JSONObject:
        start = time.perf_counter()
        async with sheet.lock:
            if not sheet.owned:
                raise Moved()
            done = await self.store.read(self.store.ref_version, sheet.id, entry.id)
            if done is not None:  # a replayed entry (lost answer, offline queue): acknowledged, not reapplied
                return {"v": sheet.version, "applied_as": done, "duplicate": True}
            if entry.v > sheet.version:  # made on a version this sheet never had: refused, never rebased
                raise KeeperError(
                    "stale/ahead",
                    f"this entry was made on version {entry.v} of the sheet, which is at {sheet.version}: not applied",
                    409,
                    v=sheet.version,
                )
            if entry.v != sheet.version:  # made before another phone's entry: rebased, or refused
                try:
                    check_rebase(sheet.state, entry.model_dump())
                except Refusal as exc:
                    raise KeeperError(exc.code, exc.message, exc.status, v=sheet.version, **exc.extra) from None
            try:
                state = entry_applied(sheet.state, entry)
            except (RecordError, IllegalAction) as exc:
                raise KeeperError(exc.code, exc.message, 422) from None
            seat = entry.seat if entry.seat is not None else -1
            try:
                version = await self.core.commit(
                    sheet, state, entry.model_dump(), seat=seat, kind=entry.kind, ref=entry.id
                )
            except RefTaken as exc:  # logged meanwhile (another owner's commit before this one's reload)
                return {"v": sheet.version, "applied_as": exc.version, "duplicate": True}
        metrics.LATENCY.observe(time.perf_counter() - start)
        return {"v": version, "duplicate": False}
