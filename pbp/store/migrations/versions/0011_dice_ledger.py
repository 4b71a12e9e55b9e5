"""The roll ledger (DICE-3) and private narrator roll values (DICE-5): whose post each tag
roll came from, re-posted tags given back their deleted post's roll, and the campaign's
choice to keep the value of a roll the narrator set out of the reply (never the fact).

Side tables, not new columns on ``rolls``: the rolls table keeps its immutability trigger
(a SQLite table rebuild would drop it). Existing tag rolls get their post's platform id
and author from the posts still stored.

Revision ID: 0011
Revises: 0010
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "roll_posts",
        sa.Column("roll_id", sa.Integer, sa.ForeignKey("rolls.id", ondelete="CASCADE",
                                                       name="fk_roll_posts_roll_id_rolls"),
                  nullable=False),
        sa.Column("platform_id", sa.String(120), nullable=False),
        sa.Column("author", sa.String(120), nullable=False),
        sa.Column("revision", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("roll_id", name="pk_roll_posts"),
    )
    op.create_table(
        "roll_reuses",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("post_id", sa.Integer, sa.ForeignKey("posts.id", ondelete="CASCADE",
                                                       name="fk_roll_reuses_post_id_posts"),
                  nullable=False),
        sa.Column("tag_index", sa.Integer, nullable=False),
        sa.Column("roll_id", sa.Integer, sa.ForeignKey("rolls.id", ondelete="CASCADE",
                                                       name="fk_roll_reuses_roll_id_rolls"),
                  nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_roll_reuses"),
        sa.UniqueConstraint("post_id", "tag_index", name="uq_roll_reuses_post_tag"),
        sa.UniqueConstraint("roll_id", name="uq_roll_reuses_roll_id"),
    )
    op.create_index("ix_roll_reuses_post_id", "roll_reuses", ["post_id"])
    op.execute("INSERT INTO roll_posts (roll_id, platform_id, author, revision) "
               "SELECT rolls.id, posts.platform_id, posts.author, 1 FROM rolls "
               "JOIN posts ON posts.id = rolls.post_id")
    # a plain ADD COLUMN, never a batch table rebuild: SQLite runs migrations with foreign
    # keys on, and dropping the old campaigns table would cascade to every encounter
    op.add_column("campaigns", sa.Column("private_roll_values", sa.Boolean(), nullable=False,
                                         server_default=sa.false()))


def downgrade() -> None:
    op.drop_column("campaigns", "private_roll_values")   # SQLite 3.35+: a plain DROP COLUMN
    op.drop_index("ix_roll_reuses_post_id", table_name="roll_reuses")
    op.drop_table("roll_reuses")
    op.drop_table("roll_posts")
