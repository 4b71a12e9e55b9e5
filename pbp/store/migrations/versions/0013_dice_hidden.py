"""Secret rolls (DICE-2): the encounter's hidden key and its published commitment, the
hidden flag and seal of a roll, and the reveals, each its own row (rolls stay immutable:
the trigger of migration 0003 still refuses every UPDATE of ``rolls``).

Revision ID: 0013
Revises: 0012
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD/DROP COLUMN, never a batch copy: SQLite's batch mode rebuilds the table, and
    # dropping the old "encounters" would cascade to every round and roll, dropping the old
    # "rolls" its immutability trigger
    # (encounters.hidden_key comes with the dice chain, migration 0009)
    op.add_column("encounters", sa.Column("hidden_commitment", sa.String(64), nullable=True))
    op.add_column("rolls", sa.Column("hidden", sa.Boolean, nullable=False,
                                     server_default=sa.false()))
    op.add_column("rolls", sa.Column("seal", sa.String(64), nullable=True))
    op.create_table(
        "roll_reveals",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("roll_id", sa.Integer, nullable=False),
        sa.Column("encounter_id", sa.Integer, nullable=False),
        sa.Column("narrator_id", sa.Integer, nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("at_end", sa.Boolean, nullable=False),
        sa.Column("reply_id", sa.Integer, nullable=True),
        sa.Column("revealed_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["roll_id"], ["rolls.id"], ondelete="CASCADE",
                                name="fk_roll_reveals_roll_id_rolls"),
        sa.ForeignKeyConstraint(["encounter_id"], ["encounters.id"], ondelete="CASCADE",
                                name="fk_roll_reveals_encounter_id_encounters"),
        sa.ForeignKeyConstraint(["narrator_id"], ["narrators.id"], ondelete="SET NULL",
                                name="fk_roll_reveals_narrator_id_narrators"),
        sa.ForeignKeyConstraint(["reply_id"], ["replies.id"], ondelete="SET NULL",
                                name="fk_roll_reveals_reply_id_replies"),
        sa.PrimaryKeyConstraint("id", name="pk_roll_reveals"),
        sa.UniqueConstraint("roll_id", name="uq_roll_reveals_roll_id"),
    )
    for col in ("encounter_id", "narrator_id", "reply_id"):
        op.create_index(f"ix_roll_reveals_{col}", "roll_reveals", [col])


def _drop(table: str, column: str) -> None:
    if op.get_context().dialect.name == "sqlite":   # native since SQLite 3.35: no rebuild
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    else:
        op.drop_column(table, column)


def downgrade() -> None:
    for col in ("encounter_id", "narrator_id", "reply_id"):
        op.drop_index(f"ix_roll_reveals_{col}", table_name="roll_reveals")
    op.drop_table("roll_reveals")
    for table, column in (("rolls", "seal"), ("rolls", "hidden"),
                          ("encounters", "hidden_commitment")):
        _drop(table, column)
