"""The daily challenge and club tournaments: deals of duplicate dice, their entrants, tournaments.

Revision ID: 0006
Revises: 0005

- `tournaments`, `tournament_players`: a club's tournament (name, preset, rounds, the window each
  round is open), its organiser, its invite code and the profiles that joined by the invite link.
- `deals`: one deal of duplicate dice (a day's challenge of a preset, or a tournament round) with
  its seed, the commitment published when it was made, when it opens and closes, and the par: a
  bot's score on the same dice and the finished table it played.
- `deal_entries`: each profile's counted attempt at a deal (the first table it started there).
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(24), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("organiser_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="SET NULL"), nullable=True),
        sa.Column("invite", sa.String(64), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("window_minutes", sa.Integer(), nullable=False),
        sa.Column("starts_at", sa.DateTime(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "tournament_players",
        sa.Column(
            "tournament_id", sa.String(24), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "deals",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("preset", sa.String(40), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("opens_at", sa.DateTime(), nullable=False),
        sa.Column("closes_at", sa.DateTime(), nullable=False),
        sa.Column("tournament_id", sa.String(24), sa.ForeignKey("tournaments.id", ondelete="CASCADE"), nullable=True),
        sa.Column("round", sa.Integer(), nullable=True),
        sa.Column("par_score", sa.Integer(), nullable=True),
        sa.Column("par_bot", sa.String(16), nullable=True),
        sa.Column("par_table", sa.String(32), nullable=True),
    )
    op.create_index("ix_deals_closes_at", "deals", ["closes_at"])
    op.create_index("ix_deals_tournament_id", "deals", ["tournament_id"])
    op.create_table(
        "deal_entries",
        sa.Column("deal_id", sa.String(64), sa.ForeignKey("deals.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("profile_id", sa.String(24), sa.ForeignKey("profiles.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("deal_entries")
    op.drop_index("ix_deals_tournament_id", "deals")
    op.drop_index("ix_deals_closes_at", "deals")
    op.drop_table("deals")
    op.drop_table("tournament_players")
    op.drop_table("tournaments")
