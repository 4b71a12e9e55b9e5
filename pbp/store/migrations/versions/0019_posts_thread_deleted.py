"""The thread's deleted posts by index (issue 17, SCALE-6): every ingest batch asks which
of the thread's deleted posts hold a roll to give back (DICE-3), and the thread's every
post was read to answer, more with each round.

Revision ID: 0019
Revises: 0018
"""
from __future__ import annotations

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_posts_thread_deleted", "posts", ["thread_id", "deleted_at"])


def downgrade() -> None:
    op.drop_index("ix_posts_thread_deleted", table_name="posts")
