"""Panel logins: server-side narrator sessions (revoked at logout and password change)
and failed-login counters every panel process shares (issue 12, items 3 and 4).

Revision ID: 0008
Revises: 0007
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "narrator_sessions",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("narrator_id", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("seen_at", sa.Float, nullable=False),
        sa.Column("remember", sa.Boolean, nullable=False),
        sa.ForeignKeyConstraint(["narrator_id"], ["narrators.id"], ondelete="CASCADE",
                                name="fk_narrator_sessions_narrator_id_narrators"),
        sa.PrimaryKeyConstraint("id", name="pk_narrator_sessions"),
    )
    op.create_index("ix_narrator_sessions_narrator_id", "narrator_sessions", ["narrator_id"])
    op.create_table(
        "login_throttle",
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("failures", sa.Integer, nullable=False),
        sa.Column("window_start", sa.Float, nullable=False),
        sa.Column("locked_until", sa.Float, nullable=False),
        sa.Column("lockouts", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_login_throttle"),
    )


def downgrade() -> None:
    op.drop_table("login_throttle")
    op.drop_index("ix_narrator_sessions_narrator_id", table_name="narrator_sessions")
    op.drop_table("narrator_sessions")
