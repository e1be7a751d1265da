"""A result's outright win: the turn of its own its seat won the game outright on (docs/rules.md §7), so
that a board of one-seat games ranks it as a win, not as its total (docs/rulesets.md).

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("outright_turn", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.drop_column("outright_turn")
