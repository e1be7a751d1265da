"""Groups of kept sheets: a club or a family whose evenings add up to a season (`yambak.keeper.season`).

A group's id only reads (the season's page and its export). Its join code, like a sheet's, hands each
phone that joins a token; with it the phone puts its own sheets in the group: a sheet goes in only with a
write token of that sheet, so nobody files a stranger's sheet. Every number of the season is the engine's,
read from the sheets' stored records (a finished sheet's record is stored again on every change).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections import OrderedDict
from typing import Any

from ...keeper.season import SeasonSheet, SheetResult, season, sheet_result
from ...store import Store, StoreConflict
from ...store.groups import GroupRow
from ..common.names import TABLE_NAME_MAX, clean_name
from ..common.tokens import hash_token, new_token
from .manager import new_code, normal_code
from .schema import KeeperError

__all__ = ["GroupError", "Groups"]

GROUP_ID = 16  # characters of a group's id (a read-only link)
# sheets' replays kept (by their record's digest): a season of 500 four-player yammen evenings costs seconds
# of CPU to replay, and its page, its export and its print layout are read again and again
READ_SHEETS = 4000


class GroupError(KeeperError):
    """A refused group request (`group/...`, `auth/group-token`, `auth/sheet-token`)."""


def unknown_group() -> GroupError:
    return GroupError("group/unknown", "there is no such group", 404)


class Groups:
    """Making and joining groups, filing sheets in them, and their season."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._read: OrderedDict[bytes, SheetResult | None] = OrderedDict()
        self._lock = threading.Lock()  # the routes run in a thread pool

    def create(self, name: Any) -> tuple[GroupRow, str]:
        """A new group and the token of the phone that made it."""
        shown = clean_name(name, "group name", TABLE_NAME_MAX)
        token = new_token()
        for _ in range(10):
            group_id, code = secrets.token_urlsafe(12)[:GROUP_ID], new_code()
            try:
                self.store.create_group(group_id, shown, code, hash_token(token))
            except StoreConflict:
                continue  # a code already in use: draw another
            row = self.store.get_group(group_id)
            assert row is not None  # just stored
            return row, token
        raise GroupError("server/busy", "no free join code: try again", 503)

    def get(self, group_id: str) -> GroupRow:
        row = self.store.get_group(group_id[:40])
        if row is None:
            raise unknown_group()
        return row

    def join(self, code: Any) -> tuple[GroupRow, str]:
        """The group of a join code and a new token for this phone."""
        norm = normal_code(code)
        row = self.store.group_by_code(norm) if norm else None
        if row is None:
            raise GroupError("group/unknown-code", "no group has this code", 404)
        token = new_token()
        self.store.add_group_token(row.id, hash_token(token))
        return row, token

    def member(self, group_id: str, tokens: list[str]) -> GroupRow:
        """The group, for a phone holding one of its tokens (else 403, or 404 for no such group)."""
        row = self.get(group_id)
        if not self.store.group_member(row.id, [hash_token(t) for t in tokens[:16]]):
            raise GroupError("auth/group-token", "this phone has not joined this group: type its code", 403)
        return row

    def renew_code(self, group_id: str, tokens: list[str]) -> str:
        """A new join code, for a phone that joined: the old code joins no more, and every other phone's token
        stops filing (a code shared too widely is taken back; the friends type the new one)."""
        row = self.member(group_id, tokens)
        mine = next(h for h in (hash_token(t) for t in tokens[:16]) if self.store.group_member(row.id, [h]))
        for _ in range(10):
            try:
                code = new_code()
                self.store.renew_group_code(row.id, code, mine)
            except StoreConflict:
                continue  # a code already in use: draw another
            return code
        raise GroupError("server/busy", "no free join code: try again", 503)

    def leave(self, group_id: str, tokens: list[str]) -> None:
        """This phone leaves the group: its token files no more; the sheets it filed stay in the season."""
        row = self.member(group_id, tokens)
        self.store.remove_group_tokens(row.id, [hash_token(t) for t in tokens[:16]])

    def _own_sheet(self, sheet_id: str, sheet_token: str) -> str:
        row = self.store.get_session(sheet_id[:40], "sheet")
        if row is None:
            raise GroupError("sheet/unknown", "there is no such score sheet", 404)
        if self.store.sheet_writer(row.id, [hash_token(sheet_token)]) is None:
            raise GroupError("auth/sheet-token", "only a phone that keeps this sheet can file it in a group", 403)
        return row.id

    def add_sheet(self, group_id: str, tokens: list[str], sheet_id: str, sheet_token: str) -> bool:
        """File a phone's own sheet in the group (True: it was not in it yet)."""
        row = self.member(group_id, tokens)
        return self.store.add_group_sheet(row.id, self._own_sheet(sheet_id, sheet_token))

    def remove_sheet(self, group_id: str, tokens: list[str], sheet_id: str, sheet_token: str) -> bool:
        """Take a phone's own sheet out of the group (True: it was in it)."""
        row = self.member(group_id, tokens)
        return self.store.remove_group_sheet(row.id, self._own_sheet(sheet_id, sheet_token))

    def season(self, group_id: str) -> tuple[GroupRow, dict[str, Any]]:
        row = self.get(group_id)
        sheets = [
            SeasonSheet(s.id, s.name, s.created_at.date().isoformat(), s.record)
            for s in self.store.group_sheets(row.id)
            if isinstance(s.record, dict)
        ]
        return row, season(sheets, self.read)

    def read(self, sheet: SeasonSheet) -> SheetResult | None:
        """The sheet's replay as the season counts it, replayed once per record: kept by the record's digest,
        since a record also changes without a new version (a deleted profile's name taken out of it)."""
        text = json.dumps(sheet.record, sort_keys=True, separators=(",", ":"), default=str)
        key = hashlib.blake2b(text.encode(), digest_size=16).digest()
        with self._lock:
            if key in self._read:
                self._read.move_to_end(key)
                return self._read[key]
        result = sheet_result(sheet.record)
        with self._lock:
            self._read[key] = result
            while len(self._read) > READ_SHEETS:
                self._read.popitem(last=False)
        return result
