"""Worker infrastructure tables: poll leases and forum topic-list watch state
(until now created on first use by the workers).

Revision ID: 0004
Revises: 0003
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    existing = set(sa.inspect(op.get_bind()).get_table_names())
    if "pbp_leases" not in existing:      # databases that ran workers before 0004
        op.create_table(
            "pbp_leases",
            sa.Column("name", sa.String(200), primary_key=True),
            sa.Column("holder", sa.String(64), nullable=False),
            sa.Column("expires_at", sa.Float, nullable=False),
        )
    if "pbp_watch_state" not in existing:
        op.create_table(
            "pbp_watch_state",
            sa.Column("key", sa.String(500), primary_key=True),
            sa.Column("state", sa.Text, nullable=False),
            sa.Column("next_check", sa.Float, nullable=False),
            sa.Column("last_check", sa.Float),
            sa.Column("last_error", sa.Text),
            sa.Column("error_count", sa.Integer, nullable=False),
        )


def downgrade() -> None:
    op.drop_table("pbp_watch_state")
    op.drop_table("pbp_leases")
