"""The trainer: positions' puzzle ratings, profiles' puzzle ratings per preset, and their answers.

Revision ID: 0014
Revises: 0013

- `trainer_positions`: a trainer position's OpenSkill rating (mu, sigma), its answers and solves; a seeded
  position is generated from its pool's seed, so only its id is stored; a position rebuilt from a stored
  mistake keeps its puzzle's JSON (`puzzle`), so every server process can answer it.
- `trainer_ratings`: a profile's puzzle rating per preset, answers, solves and streaks; gone with the profile.
- `trainer_answers`: each answer of a profile (the history of solved positions); gone with the profile.
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trainer_positions",
        sa.Column("position_id", sa.String(32), primary_key=True),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("puzzle", sa.Text(), nullable=True),
    )
    op.create_index("ix_trainer_positions_preset", "trainer_positions", ["preset"])
    op.create_table(
        "trainer_ratings",
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("preset", sa.String(40), primary_key=True),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("answers", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("streak", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("best_streak", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "trainer_answers",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=False),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("position_id", sa.String(32), nullable=False),
        sa.Column("choice", sa.Text(), nullable=False),
        sa.Column("loss", sa.Float(), nullable=False),
        sa.Column("solved", sa.Boolean(), nullable=False),
        sa.Column("daily", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_trainer_answers_profile", "trainer_answers", ["profile_id", "preset", "at"])


def downgrade() -> None:
    op.drop_table("trainer_answers")
    op.drop_table("trainer_ratings")
    op.drop_table("trainer_positions")
