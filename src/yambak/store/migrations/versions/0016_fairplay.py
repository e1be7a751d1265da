"""The fair-play review: when the operator last cleared a profile from the list of assisted play.

Revision ID: 0017
Revises: 0014

- `fairplay_clears`: a profile's last clearing (`yambak fairplay clear`); gone with the profile. Thrown
  games need no column: their rating changes keep the reason `review` (rating_changes.reason).
"""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fairplay_clears",
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("cleared_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("fairplay_clears")
