"""The encounter's dice chain (DICE-1, issue 16): the secret anchor, the chain's length and
the public chain (its first link, published in the opening reply), and the secret hidden
key whose SHA-256 that reply also publishes (DICE-2 rolls hidden rolls with it).

Encounters made before this revision keep NULLs: their rounds keep per-round seeds and a
checker reports them as "no chain (older encounter)".

Revision ID: 0009
Revises: 0008
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("encounters") as batch:
        batch.add_column(sa.Column("dice_anchor", sa.String(64), nullable=True))
        batch.add_column(sa.Column("dice_chain_length", sa.Integer, nullable=True))
        batch.add_column(sa.Column("dice_chain", sa.String(64), nullable=True))
        batch.add_column(sa.Column("hidden_key", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("encounters") as batch:
        batch.drop_column("hidden_key")
        batch.drop_column("dice_chain")
        batch.drop_column("dice_chain_length")
        batch.drop_column("dice_anchor")
