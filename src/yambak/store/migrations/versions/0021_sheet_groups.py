"""Groups of kept sheets: a club's or a family's season.

Revision ID: 0021
Revises: 0020

- `sheet_groups`: a group's id (its read-only link), name and join code (unique, like a sheet's).
- `sheet_group_tokens`: the SHA-256 hash of each token the code handed to a phone; gone with the group.
- `sheet_group_sheets`: which kept sheets are in which group; gone with the group or with the sheet.
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sheet_groups",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("code", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_sheet_groups_code", "sheet_groups", ["code"], unique=True)
    op.create_table(
        "sheet_group_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("group_id", sa.String(24), sa.ForeignKey("sheet_groups.id", ondelete="CASCADE"), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_sheet_group_tokens_group_id", "sheet_group_tokens", ["group_id"])
    op.create_table(
        "sheet_group_sheets",
        sa.Column("group_id", sa.String(24), sa.ForeignKey("sheet_groups.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("sheet_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("added_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_sheet_group_sheets_sheet", "sheet_group_sheets", ["sheet_id"])


def downgrade() -> None:
    op.drop_table("sheet_group_sheets")
    op.drop_table("sheet_group_tokens")
    op.drop_index("ix_sheet_groups_code", "sheet_groups")
    op.drop_table("sheet_groups")
