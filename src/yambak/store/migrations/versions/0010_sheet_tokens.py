"""Kept sheets' write tokens: a sheet's id only reads; writing needs a token.

Revision ID: 0010
Revises: 0009

- `sheet_tokens`: the SHA-256 hash of each write token of a kept sheet, and how it was handed out:
  `owner` (to the phone that made the sheet) or `code` (to a phone that joined with the join code;
  renewing the code deletes these). Gone with the sheet.

Sheets made before this revision have no token: the phones that kept them join again with their code
(the page does it by itself), so nobody writes with a bare id any more.
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sheet_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("sheet_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_sheet_tokens_sheet_id", "sheet_tokens", ["sheet_id"])


def downgrade() -> None:
    op.drop_table("sheet_tokens")
