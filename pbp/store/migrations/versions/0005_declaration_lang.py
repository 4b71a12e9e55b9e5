"""Declaration language: which language the post was read in (issue 13 item 2: a post
plainly written in another language than the campaign's is read in its own).

Revision ID: 0005
Revises: 0004
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("declarations") as batch:
        batch.add_column(sa.Column("lang", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("declarations") as batch:
        batch.drop_column("lang")
