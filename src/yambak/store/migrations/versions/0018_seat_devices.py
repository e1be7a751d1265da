"""The device each seat token was given to.

Revision ID: 0015
Revises: 0014

- `seats.device`: the hash of the profile key (the device) a person's seat token was given to, where
  the seat's player has a profile. Signing that device out of the profile takes the token away (its
  seats become away; another device of the profile takes them back); gone with the profile.
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seats", sa.Column("device", sa.String(64), nullable=True))
    op.create_index("ix_seats_device", "seats", ["device"])


def downgrade() -> None:
    op.drop_index("ix_seats_device", "seats")
    op.drop_column("seats", "device")
