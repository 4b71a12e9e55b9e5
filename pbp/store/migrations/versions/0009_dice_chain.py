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


COLUMNS = (("dice_anchor", sa.String(64)), ("dice_chain_length", sa.Integer()),
           ("dice_chain", sa.String(64)), ("hidden_key", sa.String(64)))


def upgrade() -> None:
    # plain ADD/DROP COLUMN, no batch copy: on SQLite a batch rebuild drops the
    # encounters table, and with foreign keys on that deletes every round and combatant
    for name, kind in COLUMNS:
        op.add_column("encounters", sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    for name, _kind in reversed(COLUMNS):
        op.drop_column("encounters", name)
