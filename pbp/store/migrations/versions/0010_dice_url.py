"""Public dice verification (issue 16, DICE-4): a campaign may let anyone check its
encounters' dice on a page of the panel, logged out (off unless the narrator opts in);
each encounter gets an unguessable token for that page's address (its id would let
anyone walk every encounter of every campaign).

Revision ID: 0010
Revises: 0009
"""
from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN, never a rebuilt table: on SQLite (foreign keys on) dropping the old
    # campaigns or encounters table would cascade to every thread, combatant and round
    op.add_column("campaigns", sa.Column("public_verification", sa.Boolean, nullable=False,
                                         server_default=sa.false()))
    op.add_column("encounters", sa.Column("verify_token", sa.String(64), nullable=True))
    conn = op.get_bind()
    encounters = sa.table("encounters", sa.column("id", sa.Integer),
                          sa.column("verify_token", sa.String))
    for (eid,) in conn.execute(sa.select(encounters.c.id)).all():
        conn.execute(encounters.update().where(encounters.c.id == eid)
                     .values(verify_token=secrets.token_urlsafe(24)))
    # a unique index, not a constraint (a constraint means rebuilding the table on SQLite)
    op.create_index("ix_encounters_verify_token", "encounters", ["verify_token"], unique=True)


def downgrade() -> None:
    # plain DROP COLUMN (SQLite 3.35+) for the same reason: no table is rebuilt
    op.drop_index("ix_encounters_verify_token", table_name="encounters")
    op.drop_column("encounters", "verify_token")
    op.drop_column("campaigns", "public_verification")
