"""Games over days: whose turn it is at each table, and Web Push subscriptions.

Revision ID: 0011
Revises: 0010

- `turns`: one row per seat of a live table whose turn it is now, written with the event that starts the
  turn: since when, the deadline of an asynchronous table's clock (a wall-clock time, fired by whichever
  process owns the table, also after a restart), when to remind the player (a quarter of the clock
  left) and whether that was done. Read for the "your turn" lists; gone with the table.
- `push_subscriptions`: a browser's Web Push subscription for a profile (endpoint and its keys), gone
  with the profile or with the device that made it (signed out).
- `server_keys`: keys the server makes once and every process shares (the VAPID key that signs Web Push).
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "turns",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("since_at", sa.DateTime(), nullable=False),
        sa.Column("due_at", sa.DateTime(), nullable=True),
        sa.Column("remind_at", sa.DateTime(), nullable=True),
        sa.Column("reminded", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_turns_due_at", "turns", ["due_at"])
    op.create_index("ix_turns_remind_at", "turns", ["remind_at"])
    op.create_table(
        "push_subscriptions",
        sa.Column("endpoint_hash", sa.String(64), primary_key=True),
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("endpoint", sa.Text(), nullable=False),
        sa.Column("p256dh", sa.String(200), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        sa.Column("lang", sa.String(8), nullable=True),
        # the device (its profile key) that subscribed: signing it out ends its pushes
        sa.Column("device", sa.String(64), sa.ForeignKey("profile_keys.hash", ondelete="CASCADE"), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_push_subscriptions_profile_id", "push_subscriptions", ["profile_id"])
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_keys")
    op.drop_table("push_subscriptions")
    op.drop_table("turns")
