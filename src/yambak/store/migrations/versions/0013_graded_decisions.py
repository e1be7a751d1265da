"""Every graded decision kept: one row per decision of a graded game.

Revision ID: 0013
Revises: 0012

Until now a grade kept only a result's `accuracy` (mean points lost per decision) and its count of
decisions. `graded_decisions` keeps each decision as the coach's review graded it: the game, the
profile (gone with it), seat, ruleset, turn and roll, the kind of choice (keep, box, strike,
announce), the choice made, the best one and what the choice lost, in the review's unit. The strategy
page aggregates them per ruleset (closed deals only); the fair-play review selects ranked games' rows.
Results graded before this revision have no rows.
"""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "graded_decisions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("result_id", sa.Integer(), sa.ForeignKey("results.id", ondelete="CASCADE"), nullable=True),
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), nullable=True),
        sa.Column("table_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("rules_id", sa.String(120), nullable=False),
        sa.Column("source", sa.String(8), nullable=False),
        sa.Column("ranked", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("duplicate", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("counted", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("deal_id", sa.String(64), nullable=True),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("roll", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("box", sa.String(40), nullable=False),
        sa.Column("dice", sa.JSON(), nullable=False),
        sa.Column("chosen", sa.JSON(), nullable=False),
        sa.Column("best", sa.JSON(), nullable=False),
        sa.Column("options", sa.Integer(), nullable=False),
        sa.Column("loss", sa.Float(), nullable=False),
        sa.Column("unit", sa.String(16), nullable=False),
        sa.Column("exact", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_index("ix_graded_decisions_result", "graded_decisions", ["result_id"])
    op.create_index("ix_graded_decisions_profile", "graded_decisions", ["profile_id", "finished_at"])
    # covering: the strategy page's aggregate reads a ruleset's rows from the index alone, in its grouping's order
    op.create_index(
        "ix_graded_decisions_rules",
        "graded_decisions",
        ["rules_id", "kind", "box", "unit", "source", "counted", "deal_id", "loss", "result_id"],
    )
    op.create_index("ix_graded_decisions_deal", "graded_decisions", ["deal_id"])


def downgrade() -> None:
    op.drop_table("graded_decisions")
