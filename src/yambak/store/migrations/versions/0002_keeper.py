"""Score-keeper sheets for real dice, and the client entry ids already applied (idempotent sync).

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "keeper_sheets",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("code", sa.String(8), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_keeper_sheets_code", "keeper_sheets", ["code"], unique=True)
    op.create_table(
        "keeper_entries",
        sa.Column("sheet_id", sa.String(32), sa.ForeignKey("keeper_sheets.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("entry_id", sa.String(40), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("keeper_entries")
    op.drop_index("ix_keeper_sheets_code", "keeper_sheets")
    op.drop_table("keeper_sheets")
