"""Declaration notes: what the narrator and the reply must be told about a declaration
(edited after roll, deleted, late, over the speech limit, arrived after resolution).

Revision ID: 0002
Revises: 0001
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("declarations") as batch:
        batch.add_column(sa.Column("notes", JSON, nullable=False, server_default=sa.text("'[]'")))


def downgrade() -> None:
    with op.batch_alter_table("declarations") as batch:
        batch.drop_column("notes")
