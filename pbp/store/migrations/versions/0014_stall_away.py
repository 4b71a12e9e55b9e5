"""Absences and standing orders (issue 15, STALL-1 and STALL-2).

Revision ID: 0014
Revises: 0013
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

#: JSONB on PostgreSQL, JSON text elsewhere (pbp.store.types.JsonType, frozen here).
JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def _fk(column: str, table: str, owner: str, ondelete: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint([column], [f"{table}.id"], ondelete=ondelete,
                                   name=f"fk_{owner}_{column}_{table}")


def upgrade() -> None:
    op.create_table(
        "absences",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("campaign_id", sa.Integer, nullable=False),
        sa.Column("player", sa.String(120), nullable=False),
        sa.Column("starts_at", sa.DateTime, nullable=False),
        sa.Column("until", sa.DateTime, nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("post_id", sa.Integer, nullable=True),
        sa.Column("narrator_id", sa.Integer, nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("ended_at", sa.DateTime, nullable=True),
        sa.Column("ended_by", sa.String(20), nullable=True),
        _fk("campaign_id", "campaigns", "absences", "CASCADE"),
        _fk("post_id", "posts", "absences", "SET NULL"),
        _fk("narrator_id", "narrators", "absences", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_absences"),
    )
    op.create_index("ix_absences_campaign_id", "absences", ["campaign_id"])
    op.create_index("ix_absences_post_id", "absences", ["post_id"])
    op.create_index("ix_absences_narrator_id", "absences", ["narrator_id"])
    op.create_index("ix_absences_campaign_player", "absences", ["campaign_id", "player"])
    op.create_table(
        "standing_orders",
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("combatant_id", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("actions", JSON, nullable=False),
        sa.Column("condition", JSON, nullable=True),
        sa.Column("state", sa.String(12), nullable=False),
        sa.Column("reason", sa.String(60), nullable=True),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("post_id", sa.Integer, nullable=True),
        sa.Column("round_id", sa.Integer, nullable=True),
        sa.Column("narrator_id", sa.Integer, nullable=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("ended_at", sa.DateTime, nullable=True),
        _fk("combatant_id", "combatants", "standing_orders", "CASCADE"),
        _fk("post_id", "posts", "standing_orders", "SET NULL"),
        _fk("round_id", "rounds", "standing_orders", "SET NULL"),
        _fk("narrator_id", "narrators", "standing_orders", "SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_standing_orders"),
    )
    for column in ("combatant_id", "post_id", "round_id", "narrator_id"):
        op.create_index(f"ix_standing_orders_{column}", "standing_orders", [column])


def downgrade() -> None:
    for column in ("combatant_id", "post_id", "round_id", "narrator_id"):
        op.drop_index(f"ix_standing_orders_{column}", table_name="standing_orders")
    op.drop_table("standing_orders")
    for name in ("ix_absences_campaign_player", "ix_absences_narrator_id", "ix_absences_post_id",
                 "ix_absences_campaign_id"):
        op.drop_index(name, table_name="absences")
    op.drop_table("absences")
