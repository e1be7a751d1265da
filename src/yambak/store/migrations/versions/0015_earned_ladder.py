"""A ladder that must be earned: who may rate whom, and when a ranked table began to wait.

Revision ID: 0015
Revises: 0014

- `profile_marks`: per device key of a profile, keyed hashes (HMAC with a server key) of what ties
  profiles together: a client address the key played ranked from, a device that carried another profile
  first; the last time each was seen. Two profiles that share a mark seen in the last 30 days never rate
  each other. Older marks are deleted; all of a profile's go with it.
- `ranked_waits`: when a ranked table began to wait for players, by the server's clock (the rating window
  of "Play ranked" widens with the wait); gone with the table.
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "profile_marks",
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("key_hash", sa.String(64), primary_key=True),
        sa.Column("mark", sa.String(64), primary_key=True),
        sa.Column("seen_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_profile_marks_mark", "profile_marks", ["mark"])
    op.create_index("ix_profile_marks_seen_at", "profile_marks", ["seen_at"])
    op.create_table(
        "ranked_waits",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("since", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ranked_waits")
    op.drop_table("profile_marks")
