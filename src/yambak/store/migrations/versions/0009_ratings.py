"""Ranked tables: each profile's rating per preset, and what every finished ranked game did to them.

Revision ID: 0009
Revises: 0008

- `ratings`: a profile's OpenSkill (Plackett-Luce) rating in ranked games of a preset, mu and sigma,
  and the number of rated games; gone with the profile.
- `rating_changes`: per seat of a finished ranked game, its place, whether it rated (and why not), the
  rating before and after; its profile is unlinked when the profile is deleted.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("preset", sa.String(40), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_ratings_preset", "ratings", ["preset"])
    op.create_table(
        "rating_changes",
        sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("reason", sa.String(16), nullable=True),
        sa.Column("left_early", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("mu_before", sa.Float(), nullable=True),
        sa.Column("sigma_before", sa.Float(), nullable=True),
        sa.Column("mu_after", sa.Float(), nullable=True),
        sa.Column("sigma_after", sa.Float(), nullable=True),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_rating_changes_profile_id", "rating_changes", ["profile_id"])
    op.create_index("ix_rating_changes_at", "rating_changes", ["at"])


def downgrade() -> None:
    op.drop_table("rating_changes")
    op.drop_table("ratings")
