"""Profiles without a password, their device keys, and the results of their games.

Revision ID: 0005
Revises: 0004

- `profiles`: a display name and whether its pages are shared; nothing else about the person.
- `profile_keys`: hashes of device tokens (cookies) and of one-time links that move a profile.
- `seats.profile_id`: the profile that sat there (null for guests, bots, open seats and older
  tables); `seats.assisted`: the seat asked the coach or a bot played one of its turns.
- `results`: one row per finished game in a profile's history (tables and kept sheets).
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "profiles",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("shared", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "profile_keys",
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_profile_keys_profile_id", "profile_keys", ["profile_id"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("profile_id", sa.String(24), nullable=True))
        batch.add_column(sa.Column("assisted", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.create_foreign_key("fk_seats_profile", "profiles", ["profile_id"], ["id"], ondelete="SET NULL")
        batch.create_index("ix_seats_profile_id", ["profile_id"])
    op.create_table(
        "results",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("ref", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("rules_id", sa.String(120), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.Column("bonus_columns", sa.Integer(), nullable=False),
        sa.Column("columns", sa.Integer(), nullable=False),
        sa.Column("yams", sa.Integer(), nullable=False),
        sa.Column("yam_boxes", sa.Integer(), nullable=False),
        sa.Column("accuracy", sa.Float(), nullable=True),
        sa.Column("decisions", sa.Integer(), nullable=True),
        sa.Column("best", sa.Boolean(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=True),
    )
    op.create_index("ix_results_profile_time", "results", ["profile_id", "finished_at"])
    op.create_index("ix_results_profile_preset", "results", ["profile_id", "preset", "finished_at"])
    op.create_index("ix_results_once", "results", ["profile_id", "kind", "ref"], unique=True)


def downgrade() -> None:
    op.drop_table("results")
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_profile_id")
        batch.drop_constraint("fk_seats_profile", type_="foreignkey")
        batch.drop_column("assisted")
        batch.drop_column("profile_id")
    op.drop_index("ix_profile_keys_profile_id", "profile_keys")
    op.drop_table("profile_keys")
    op.drop_table("profiles")
