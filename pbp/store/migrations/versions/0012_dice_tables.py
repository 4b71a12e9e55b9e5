"""Random tables (DICE-6): a campaign's own tables (the TOML text its narrator saved in
the panel) and, per declaration, the draws its table requests made (table, roll index,
entry), kept as drawn so a later edit of the table never rewrites what a reply said.

Revision ID: 0012
Revises: 0011
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("campaigns") as batch:
        batch.add_column(sa.Column("tables", sa.Text(), nullable=True))
    with op.batch_alter_table("declarations") as batch:
        batch.add_column(sa.Column("tables", JSON, nullable=False,
                                   server_default=sa.text("'[]'")))


def downgrade() -> None:
    # SQLite: ALTER TABLE ... DROP COLUMN (3.35+) in place; a batch copy would drop and
    # re-create ``campaigns``, and with foreign keys on that drop cascades to every thread,
    # encounter and round of the campaign
    for table in ("declarations", "campaigns"):
        op.execute(f'ALTER TABLE {table} DROP COLUMN "tables"')
