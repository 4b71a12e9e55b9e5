"""Rate budgets shared by every worker process (issue 17, SCALE-1): one row per forum
host or Reddit client, so N workers ask a forum no more often than one.

Revision ID: 0018
Revises: 0017
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # workers create the table themselves (create_all) on a database that ran them first
    if "pbp_budgets" in sa.inspect(op.get_bind()).get_table_names():
        return
    op.create_table(
        "pbp_budgets",
        sa.Column("key", sa.String(300), nullable=False),
        sa.Column("next_at", sa.Float(), nullable=False),
        sa.Column("spacing", sa.Float(), nullable=True),
        sa.Column("window_start", sa.Float(), nullable=False),
        sa.Column("window_calls", sa.Integer(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )


def downgrade() -> None:
    op.drop_table("pbp_budgets")
