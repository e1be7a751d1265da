"""Competition nobody can game: private open deals, frozen boards, withdrawn players, unguessable result
ids, organisers' controls and the devices of a profile.

Revision ID: 0008
Revises: 0007

- `results.public_id`: the id a replay's address shows (random; the integer id stays internal), filled
  in for older rows; `results.deal_id`: the deal a daily or club game played (its games are private to
  their player until the deal closes), filled in from the tables' settings.
- `profiles.withdrawn`: a deleted profile's stand-in, nameless, which keeps the places its profile had
  on boards that must not change (its keys and other games are gone).
- `profile_keys.label`, `profile_keys.used_at`: what a device is (browser and system) and when it was
  last seen, for the list of devices a profile is signed in on.
- `deals.paused_at`, `deals.cancelled`: a tournament round paused by its organiser (the clock stands
  still), or cancelled (it counts for nobody and its seed is published).
- `tournaments.approval`, `tournaments.cancelled`: joiners wait for the organiser's approval; the
  organiser cancelled what was left of the tournament.
- `tournament_players.status`: player, pending (waiting for approval) or removed.
"""

import json
import secrets

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.add_column(sa.Column("public_id", sa.String(24), nullable=True))
        batch.add_column(sa.Column("deal_id", sa.String(64), nullable=True))
    with op.batch_alter_table("profiles") as batch:
        batch.add_column(sa.Column("withdrawn", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("profile_keys") as batch:
        batch.add_column(sa.Column("label", sa.String(80), nullable=True))
        batch.add_column(sa.Column("used_at", sa.DateTime(), nullable=True))
    with op.batch_alter_table("deals") as batch:
        batch.add_column(sa.Column("paused_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("cancelled", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("tournaments") as batch:
        batch.add_column(sa.Column("approval", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("cancelled", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("tournament_players") as batch:
        batch.add_column(sa.Column("status", sa.String(8), nullable=False, server_default="player"))

    conn = op.get_bind()
    results = sa.table(
        "results", sa.column("id", sa.Integer), sa.column("kind", sa.String), sa.column("ref", sa.String),
        sa.column("public_id", sa.String), sa.column("deal_id", sa.String),
    )  # fmt: skip
    tables = sa.table("game_tables", sa.column("id", sa.String), sa.column("settings", sa.JSON))
    for rid, kind, ref in conn.execute(sa.select(results.c.id, results.c.kind, results.c.ref)).all():
        deal = None
        if kind in ("daily", "club"):
            settings = conn.execute(sa.select(tables.c.settings).where(tables.c.id == ref)).scalar()
            if isinstance(settings, str):
                settings = json.loads(settings)
            deal = settings.get("deal") if isinstance(settings, dict) else None
        conn.execute(
            sa.update(results).where(results.c.id == rid).values(public_id=secrets.token_urlsafe(12), deal_id=deal)
        )
    op.create_index("ix_results_public_id", "results", ["public_id"], unique=True)
    op.create_index("ix_results_deal_id", "results", ["deal_id"])


def downgrade() -> None:
    op.drop_index("ix_results_deal_id", "results")
    op.drop_index("ix_results_public_id", "results")
    with op.batch_alter_table("tournament_players") as batch:
        batch.drop_column("status")
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("cancelled")
        batch.drop_column("approval")
    with op.batch_alter_table("deals") as batch:
        batch.drop_column("cancelled")
        batch.drop_column("paused_at")
    with op.batch_alter_table("profile_keys") as batch:
        batch.drop_column("used_at")
        batch.drop_column("label")
    with op.batch_alter_table("profiles") as batch:
        batch.drop_column("withdrawn")
    with op.batch_alter_table("results") as batch:
        batch.drop_column("deal_id")
        batch.drop_column("public_id")
