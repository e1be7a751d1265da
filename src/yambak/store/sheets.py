"""Kept sheets' write tokens in the store (mixed into `Store`): a sheet's id only reads; a phone writes
with a token, stored as its SHA-256 hash, handed to the phone that made the sheet (`owner`) or by the
join code (`code`). Renewing the code deletes every token the old code handed out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TypeVar

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection, Engine

from .models import GameSession, SheetToken

__all__ = ["SheetStore"]

Op = Callable[[Connection], object]
T = TypeVar("T")


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class SheetStore:
    """The sheets' half of `Store` (it provides `engine` and `_sync`)."""

    engine: Engine

    def _sync(self, op: Callable[[Connection], T]) -> T:  # pragma: no cover - Store's
        raise NotImplementedError

    def add_sheet_token(self, sheet_id: str, token_hash: str, kind: str) -> None:
        self._sync(self.sheet_token_op(sheet_id, token_hash, kind))

    @staticmethod
    def sheet_token_op(sheet_id: str, token_hash: str, kind: str) -> Op:
        """A write token for the sheet (StoreConflict, through the writer, if the hash is stored already)."""

        def op(conn: Connection) -> None:
            row = {"token_hash": token_hash, "sheet_id": sheet_id, "kind": kind, "created_at": _now()}
            conn.execute(insert(SheetToken).values(**row))

        return op

    @staticmethod
    def renew_code_op(sheet_id: str, code: str, token_hash: str | None) -> Op:
        """A new join code: every token the old one handed out is deleted; `token_hash` (the renewing phone's
        new token, when its own came from the code) is stored in their place. StoreConflict: the code is taken."""

        def op(conn: Connection) -> None:
            conn.execute(update(GameSession).where(GameSession.id == sheet_id).values(code=code, updated_at=_now()))
            conn.execute(delete(SheetToken).where(SheetToken.sheet_id == sheet_id, SheetToken.kind == "code"))
            if token_hash is not None:
                conn.execute(
                    insert(SheetToken).values(token_hash=token_hash, sheet_id=sheet_id, kind="code", created_at=_now())
                )

        return op

    def sheet_writer(self, sheet_id: str, token_hashes: Sequence[str]) -> tuple[str, str] | None:
        """The first of these tokens that may write on the sheet: (its hash, its kind), or None."""
        if not token_hashes:
            return None
        with self.engine.connect() as conn:
            rows = dict(
                conn.execute(
                    select(SheetToken.token_hash, SheetToken.kind).where(
                        SheetToken.sheet_id == sheet_id, SheetToken.token_hash.in_(list(token_hashes)[:16])
                    )
                ).all()
            )
        for h in token_hashes:
            if h in rows:
                return h, rows[h]
        return None

    def sheet_owner(self, sheet_id: str) -> str | None:
        """The hash of the token of the phone that made the sheet (None for sheets older than tokens)."""
        with self.engine.connect() as conn:
            q = select(SheetToken.token_hash).where(SheetToken.sheet_id == sheet_id, SheetToken.kind == "owner")
            return conn.execute(q).scalars().first()
