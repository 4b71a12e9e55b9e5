"""Heartbeats of the workers and beat, and the children ``pbp serve`` gave up on (issue 18).

Revision ID: 0007
Revises: 0006
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pbp_heartbeats",
        sa.Column("name", sa.String(200), primary_key=True),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
        sa.Column("pid", sa.Integer),
        sa.Column("host", sa.String(200)),
        sa.Column("detail", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("pbp_heartbeats")
