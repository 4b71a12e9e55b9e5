"""Who owes a post (issue 15, STALL-9) and the tracker post (STALL-8): the campaign's
weekly who-owes post (thread, weekday, hour in its zone) and whether one tracker post
per encounter is kept edited in place.

``owes_thread_id`` has no foreign key on purpose: threads already point at campaigns,
and a second edge the other way would make the two tables depend on each other (and on
SQLite a constraint cannot be added without rebuilding ``campaigns``, which would
cascade-delete every encounter). A thread removed leaves a dangling id the weekly task
ignores (it joins on the thread).

Revision ID: 0017
Revises: 0016
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN, never a batch copy of campaigns (see 0015)
    op.add_column("campaigns", sa.Column("owes_thread_id", sa.Integer(), nullable=True))
    op.add_column("campaigns", sa.Column("owes_weekday", sa.Integer(), nullable=True))
    op.add_column("campaigns", sa.Column("owes_hour", sa.Integer(), nullable=False,
                                         server_default="9"))
    op.add_column("campaigns", sa.Column("tracker_post", sa.Boolean(), nullable=False,
                                         server_default=sa.false()))


def downgrade() -> None:
    for col in ("tracker_post", "owes_hour", "owes_weekday", "owes_thread_id"):
        op.drop_column("campaigns", col)
