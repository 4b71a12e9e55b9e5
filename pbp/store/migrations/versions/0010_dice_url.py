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
    with op.batch_alter_table("campaigns") as batch:
        batch.add_column(sa.Column("public_verification", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
    with op.batch_alter_table("encounters") as batch:
        batch.add_column(sa.Column("verify_token", sa.String(64), nullable=True))
    conn = op.get_bind()
    encounters = sa.table("encounters", sa.column("id", sa.Integer),
                          sa.column("verify_token", sa.String))
    for (eid,) in conn.execute(sa.select(encounters.c.id)).all():
        conn.execute(encounters.update().where(encounters.c.id == eid)
                     .values(verify_token=secrets.token_urlsafe(24)))
    with op.batch_alter_table("encounters") as batch:
        batch.create_unique_constraint("uq_encounters_verify_token", ["verify_token"])


def downgrade() -> None:
    with op.batch_alter_table("encounters") as batch:
        batch.drop_constraint("uq_encounters_verify_token", type_="unique")
        batch.drop_column("verify_token")
    with op.batch_alter_table("campaigns") as batch:
        batch.drop_column("public_verification")
