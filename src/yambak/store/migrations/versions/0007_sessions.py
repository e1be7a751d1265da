"""One game-session model: kept sheets join live tables in `game_tables`, their entries join `events`.

Revision ID: 0007
Revises: 0006

- `game_tables.kind`: `table` (every existing row) or `sheet`; `game_tables.code`: a sheet's join
  code (unique; null for tables).
- `events.ref`: the client's id for an action (unique per session where given): a kept sheet's
  entry id until now, and any client's action reference from now on.
- Every `keeper_sheets` row becomes a `game_tables` row of kind `sheet` (its rules taken from its
  record, unlisted, no seats: a sheet's players are in its record), every `keeper_entries` row an
  event of that session under its entry id (seat: the entry's, else -1). Then both tables go.
  Downgrading moves them back.
"""

import json

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_sessions = sa.table(
    "game_tables",
    sa.column("id", sa.String),
    sa.column("kind", sa.String),
    sa.column("code", sa.String),
    sa.column("name", sa.String),
    sa.column("rules", sa.JSON),
    sa.column("listed", sa.Boolean),
    sa.column("duplicate", sa.Boolean),
    sa.column("seed", sa.String),
    sa.column("version", sa.Integer),
    sa.column("finished", sa.Boolean),
    sa.column("record", sa.JSON),
    sa.column("created_at", sa.DateTime),
    sa.column("updated_at", sa.DateTime),
)
_events = sa.table(
    "events",
    sa.column("table_id", sa.String),
    sa.column("version", sa.Integer),
    sa.column("seat", sa.Integer),
    sa.column("type", sa.String),
    sa.column("data", sa.Text),
    sa.column("ref", sa.String),
    sa.column("created_at", sa.DateTime),
)
_sheets = sa.table(
    "keeper_sheets",
    sa.column("id", sa.String),
    sa.column("code", sa.String),
    sa.column("name", sa.String),
    sa.column("version", sa.Integer),
    sa.column("finished", sa.Boolean),
    sa.column("record", sa.JSON),
    sa.column("created_at", sa.DateTime),
    sa.column("updated_at", sa.DateTime),
)
_entries = sa.table(
    "keeper_entries",
    sa.column("sheet_id", sa.String),
    sa.column("entry_id", sa.String),
    sa.column("version", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("data", sa.Text),
    sa.column("created_at", sa.DateTime),
)


def _seat(data: str | None) -> int:
    try:
        seat = json.loads(data).get("seat") if data else None
    except (ValueError, AttributeError):
        seat = None
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else -1


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("kind", sa.String(8), nullable=False, server_default="table"))
        batch.add_column(sa.Column("code", sa.String(8), nullable=True))
        batch.create_index("ix_game_tables_code", ["code"], unique=True)
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("ref", sa.String(40), nullable=True))
        batch.create_index("ix_events_ref", ["table_id", "ref"], unique=True)
    conn = op.get_bind()
    for s in conn.execute(sa.select(_sheets)).mappings().all():
        record = s["record"] if isinstance(s["record"], dict) else json.loads(s["record"])
        conn.execute(
            _sessions.insert().values(
                id=s["id"],
                kind="sheet",
                code=s["code"],
                name=s["name"],
                rules=record.get("rules"),
                listed=False,
                duplicate=False,
                seed=None,
                version=s["version"],
                finished=s["finished"],
                record=record,
                created_at=s["created_at"],
                updated_at=s["updated_at"],
            )
        )
    for e in conn.execute(sa.select(_entries)).mappings().all():
        conn.execute(
            _events.insert().values(
                table_id=e["sheet_id"],
                version=e["version"],
                seat=_seat(e["data"]),
                type=e["kind"],
                data=e["data"] if e["data"] is not None else "null",
                ref=e["entry_id"],
                created_at=e["created_at"],
            )
        )
    op.drop_table("keeper_entries")
    op.drop_table("keeper_sheets")


def downgrade() -> None:
    op.create_table(
        "keeper_sheets",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("code", sa.String(8), nullable=False, unique=True, index=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.Column("record", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
    )
    op.create_table(
        "keeper_entries",
        sa.Column("sheet_id", sa.String(32), sa.ForeignKey("keeper_sheets.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("entry_id", sa.String(40), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("data", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
    )
    op.create_index("ix_keeper_entries_version", "keeper_entries", ["sheet_id", "version"], unique=True)
    conn = op.get_bind()
    sheets = sa.select(_sessions).where(_sessions.c.kind == "sheet")
    ids = []
    for s in conn.execute(sheets).mappings().all():
        ids.append(s["id"])
        conn.execute(
            _sheets.insert().values(
                id=s["id"],
                code=s["code"],
                name=s["name"],
                version=s["version"],
                finished=s["finished"],
                record=s["record"],
                created_at=s["created_at"],
                updated_at=s["updated_at"],
            )
        )
    for e in conn.execute(sa.select(_events).where(_events.c.table_id.in_(ids))).mappings().all():
        conn.execute(
            _entries.insert().values(
                sheet_id=e["table_id"],
                entry_id=e["ref"] or f"v{e['version']:07d}",
                version=e["version"],
                kind=e["type"],
                data=None if e["data"] == "null" else e["data"],
                created_at=e["created_at"],
            )
        )
    conn.execute(_events.delete().where(_events.c.table_id.in_(ids)))
    conn.execute(_sessions.delete().where(_sessions.c.kind == "sheet"))
    with op.batch_alter_table("events") as batch:
        batch.drop_index("ix_events_ref")
        batch.drop_column("ref")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_index("ix_game_tables_code")
        batch.drop_column("code")
        batch.drop_column("kind")
