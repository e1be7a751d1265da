"""The event log is the truth: snapshots instead of a record per action; sheet entries logged; fair dice.

Revision ID: 0004
Revises: 0003

- `game_tables.version` and `keeper_sheets.version` now name the version of the
  stored `record`, a snapshot taken every few events and at the end; the newest
  version is the log's (`events`, `keeper_entries`). Existing rows stored their
  record at every action, so each is already a snapshot of its own version.
- `keeper_entries.data`: the entry itself, so that a sheet rebuilds from its
  snapshot and the entries after it (older entries are all inside their snapshot).
  A sheet's versions are unique, like a table's: the log's version check fences writers.
- `game_tables.fairness`: the dice commitment of docs/rules.md §11 (`fairness`),
  with the server seed that stays secret until the game ends; null for older tables.
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("fairness", sa.JSON(), nullable=True))
    with op.batch_alter_table("keeper_entries") as batch:
        batch.add_column(sa.Column("data", sa.Text(), nullable=True))
    op.create_index("ix_keeper_entries_version", "keeper_entries", ["sheet_id", "version"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_keeper_entries_version", "keeper_entries")
    with op.batch_alter_table("keeper_entries") as batch:
        batch.drop_column("data")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("fairness")
