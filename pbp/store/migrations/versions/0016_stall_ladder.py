"""The escalation ladder (issue 15, STALL-3): the campaign's notification and missed-round
settings, the direct notifications' outbox, and each player's place on the ladder.

Revision ID: 0016
Revises: 0015
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN, never a batch copy of campaigns (it cascades deletes on SQLite)
    op.add_column("campaigns", sa.Column("notify_hours", sa.Float(), nullable=True))
    op.add_column("campaigns", sa.Column("missed_limit", sa.Integer(), nullable=False,
                                         server_default="0"))
    op.add_column("campaigns", sa.Column("auto_narrator_run", sa.Boolean(), nullable=False,
                                         server_default=sa.false()))
    op.add_column("campaigns", sa.Column("narrator_account", sa.String(120), nullable=False,
                                         server_default=""))
    op.create_table(
        "notifications",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=True),
        sa.Column("thread_id", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(120), nullable=False),
        sa.Column("step", sa.String(20), nullable=False),
        sa.Column("channel", sa.String(20), nullable=False),
        sa.Column("recipient", sa.String(120), nullable=False),
        sa.Column("subject", sa.String(300), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("platform_id", sa.String(120), nullable=True),
        sa.Column("not_before", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("sent_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], ondelete="CASCADE",
                                name="fk_notifications_campaign_id_campaigns"),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], ondelete="SET NULL",
                                name="fk_notifications_round_id_rounds"),
        sa.ForeignKeyConstraint(["thread_id"], ["threads.id"], ondelete="CASCADE",
                                name="fk_notifications_thread_id_threads"),
        sa.PrimaryKeyConstraint("id", name="pk_notifications"),
        sa.UniqueConstraint("key", name="uq_notifications_key"),
    )
    op.create_index("ix_notifications_state", "notifications", ["state"])
    for col in ("campaign_id", "round_id", "thread_id"):
        op.create_index(f"ix_notifications_{col}", "notifications", [col])
    op.create_table(
        "ladder_players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("campaign_id", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(120), nullable=False),
        sa.Column("missed_in_row", sa.Integer(), nullable=False),
        sa.Column("last_missed_round_id", sa.Integer(), nullable=True),
        sa.Column("narrator_told", sa.Boolean(), nullable=False),
        sa.Column("narrator_run_since", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["campaign_id"], ["campaigns.id"], ondelete="CASCADE",
                                name="fk_ladder_players_campaign_id_campaigns"),
        sa.ForeignKeyConstraint(["last_missed_round_id"], ["rounds.id"], ondelete="SET NULL",
                                name="fk_ladder_players_last_missed_round_id_rounds"),
        sa.PrimaryKeyConstraint("id", name="pk_ladder_players"),
        sa.UniqueConstraint("campaign_id", "player", name="uq_ladder_players_campaign_id_player"),
    )
    for col in ("campaign_id", "last_missed_round_id"):
        op.create_index(f"ix_ladder_players_{col}", "ladder_players", [col])


def downgrade() -> None:
    op.drop_table("ladder_players")
    op.drop_index("ix_notifications_state", table_name="notifications")
    op.drop_table("notifications")
    for col in ("narrator_account", "auto_narrator_run", "missed_limit", "notify_hours"):
        op.drop_column("campaigns", col)
