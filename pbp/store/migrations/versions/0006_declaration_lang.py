"""Declaration language and quoted rolls: which language the post was read in (issue 13
item 2: a post plainly written in another language than the campaign's is read in its
own), and the roll tags it quoted, shown to the narrator, never rolled (issue 13 item 4).

Revision ID: 0006
Revises: 0005
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("declarations") as batch:
        batch.add_column(sa.Column("lang", sa.String(8), nullable=True))
        batch.add_column(sa.Column("quoted_rolls", JSON, nullable=False,
                                   server_default=sa.text("'[]'")))


def downgrade() -> None:
    with op.batch_alter_table("declarations") as batch:
        batch.drop_column("quoted_rolls")
        batch.drop_column("lang")
