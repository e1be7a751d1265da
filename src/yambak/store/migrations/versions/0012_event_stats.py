"""No planner statistics on the events' JSON text.

Revision ID: 0012
Revises: 0011

`events.data` is a JSON text no query filters or sorts on, but PostgreSQL's ANALYZE sorted a sample
of 30,000 of them by collation to build its statistics: the autovacuum's analyze of `events` took
0.11 s of CPU in `bench/load.py` at 1,000 players, 0.06 s without this column (a burst on one of two
cores while every action waits for the disk). SQLite keeps no such statistics.
"""

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE events ALTER COLUMN data SET STATISTICS 0")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE events ALTER COLUMN data SET STATISTICS -1")
