"""Groups of kept sheets in the store (mixed into `Store`): a club's or a family's sheets, whose season
the server reads from the sheets' stored records. A group's id only reads (the season's link); its join
code hands each phone a token (stored as its SHA-256 hash) that adds the phone's own sheets."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection, Engine

from ..viewtypes import JSONObject
from .models import GameSession, SheetGroup, SheetGroupSheet, SheetGroupToken

__all__ = ["GroupRow", "GroupSheetRow", "GroupStore"]

Op = Callable[[Connection], object]
T = TypeVar("T")


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class GroupRow:
    id: str
    name: str
    code: str
    created_at: datetime


@dataclass(frozen=True)
class GroupSheetRow:
    """A sheet of a group: its stored record is current once `finished` (a finished sheet's every change
    stores it again)."""

    id: str
    name: str
    created_at: datetime
    finished: bool
    record: JSONObject


class GroupStore:
    """The groups' part of `Store` (it provides `engine` and `_sync`)."""

    engine: Engine

    def _sync(self, op: Callable[[Connection], T]) -> T:  # pragma: no cover - Store's
        raise NotImplementedError

    def create_group(self, group_id: str, name: str, code: str, token_hash: str) -> None:
        """A new group and its maker's token (StoreConflict: the id or the code is taken)."""

        def op(conn: Connection) -> None:
            now = _now()
            conn.execute(insert(SheetGroup).values(id=group_id, name=name, code=code, created_at=now))
            conn.execute(insert(SheetGroupToken).values(token_hash=token_hash, group_id=group_id, created_at=now))

        self._sync(op)

    def add_group_token(self, group_id: str, token_hash: str) -> None:
        def op(conn: Connection) -> None:
            conn.execute(insert(SheetGroupToken).values(token_hash=token_hash, group_id=group_id, created_at=_now()))

        self._sync(op)

    def renew_group_code(self, group_id: str, code: str, keep_hash: str) -> None:
        """A new join code: every token handed out before stops filing, but the renewing phone's
        (`keep_hash`). StoreConflict: the code is taken."""

        def op(conn: Connection) -> None:
            conn.execute(update(SheetGroup).where(SheetGroup.id == group_id).values(code=code))
            conn.execute(
                delete(SheetGroupToken).where(
                    SheetGroupToken.group_id == group_id, SheetGroupToken.token_hash != keep_hash
                )
            )

        self._sync(op)

    def remove_group_tokens(self, group_id: str, token_hashes: Sequence[str]) -> None:
        """A phone leaves the group: its tokens stop filing (the sheets it filed stay in the season)."""

        def op(conn: Connection) -> None:
            conn.execute(
                delete(SheetGroupToken).where(
                    SheetGroupToken.group_id == group_id, SheetGroupToken.token_hash.in_(list(token_hashes)[:16])
                )
            )

        self._sync(op)

    def _group(self, where: Any) -> GroupRow | None:
        with self.engine.connect() as conn:
            row = conn.execute(
                select(SheetGroup.id, SheetGroup.name, SheetGroup.code, SheetGroup.created_at).where(where)
            ).first()
        return GroupRow(row.id, row.name, row.code, row.created_at) if row is not None else None

    def get_group(self, group_id: str) -> GroupRow | None:
        return self._group(SheetGroup.id == group_id)

    def group_by_code(self, code: str) -> GroupRow | None:
        return self._group(SheetGroup.code == code)

    def group_member(self, group_id: str, token_hashes: Sequence[str]) -> bool:
        """Whether one of these tokens was handed out for this group."""
        if not token_hashes:
            return False
        with self.engine.connect() as conn:
            q = select(SheetGroupToken.token_hash).where(
                SheetGroupToken.group_id == group_id, SheetGroupToken.token_hash.in_(list(token_hashes)[:16])
            )
            return conn.execute(q).first() is not None

    def add_group_sheet(self, group_id: str, sheet_id: str) -> bool:
        """Put a kept sheet in the group; False if it was in it already."""

        def op(conn: Connection) -> bool:
            there = conn.execute(
                select(SheetGroupSheet.sheet_id).where(
                    SheetGroupSheet.group_id == group_id, SheetGroupSheet.sheet_id == sheet_id
                )
            ).first()
            if there is not None:
                return False
            conn.execute(insert(SheetGroupSheet).values(group_id=group_id, sheet_id=sheet_id, added_at=_now()))
            return True

        return self._sync(op)

    def remove_group_sheet(self, group_id: str, sheet_id: str) -> bool:
        """Take a sheet out of the group; False if it was not in it."""

        def op(conn: Connection) -> bool:
            done = conn.execute(
                delete(SheetGroupSheet).where(
                    SheetGroupSheet.group_id == group_id, SheetGroupSheet.sheet_id == sheet_id
                )
            )
            return bool(done.rowcount)

        return self._sync(op)

    def group_sheets(self, group_id: str, limit: int = 500) -> list[GroupSheetRow]:
        """The group's kept sheets, oldest first (the season's order), at most `limit` of them."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(GameSession.id, GameSession.name, GameSession.created_at, GameSession.finished)
                .add_columns(GameSession.record)
                .join(SheetGroupSheet, SheetGroupSheet.sheet_id == GameSession.id)
                .where(SheetGroupSheet.group_id == group_id, GameSession.kind == "sheet")
                .order_by(GameSession.created_at, GameSession.id)
                .limit(limit)
            ).all()
        return [GroupSheetRow(r.id, r.name, r.created_at, bool(r.finished), r.record) for r in rows]
