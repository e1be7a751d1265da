"""A deal's par that won outright: the turn its bot won the game at once on (docs/rules.md §7), so that the
board words the par as a win, not as the points on its sheet.

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("deals") as batch:
        batch.add_column(sa.Column("par_outright", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("deals") as batch:
        batch.drop_column("par_outright")
