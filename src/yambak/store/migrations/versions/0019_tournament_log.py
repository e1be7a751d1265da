"""What a tournament's organiser did, for everyone in it to see.

Revision ID: 0016
Revises: 0015

- `tournament_log`: one row per organiser's action on a tournament (made it, paused, went on, extended or
  cancelled a round, cancelled the rest, a new invite link, approval of joiners, a player approved or
  removed): what, when, which round and by how many minutes, by whom and about whom (profiles: their names
  are read when shown, so a deleted profile's name is gone from the log too); gone with the tournament.
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament_log",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.String(24), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=True),
        sa.Column("minutes", sa.Integer(), nullable=True),
        sa.Column("started", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("by_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True),
        sa.Column("player_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True),
    )
    op.create_index("ix_tournament_log_tournament", "tournament_log", ["tournament_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_tournament_log_tournament", "tournament_log")
    op.drop_table("tournament_log")
