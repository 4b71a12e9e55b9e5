"""Rounds that close early and clocks that respect sleep (issue 15, STALL-4 and STALL-5):
the campaign's grace for edits, quiet hours, weekends and extension limit; an encounter's
own round length; the players' extension requests.

Campaigns made before this keep their ``early_close`` as it was; the model's default
(on) applies to new ones.

Revision ID: 0015
Revises: 0014
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE ADD COLUMN (no batch copy): on SQLite a batch copy drops and
    # recreates the table, and with foreign keys on that deletes every encounter, combatant
    # and round through their ON DELETE CASCADE (seen on the sample database)
    op.add_column("campaigns", sa.Column("close_grace_minutes", sa.Integer(), nullable=False,
                                         server_default="10"))
    op.add_column("campaigns", sa.Column("quiet_hours", sa.String(11), nullable=False,
                                         server_default=""))
    op.add_column("campaigns", sa.Column("skip_weekends", sa.Boolean(), nullable=False,
                                         server_default=sa.false()))
    op.add_column("campaigns", sa.Column("extension_limit_hours", sa.Float(), nullable=False,
                                         server_default="12"))
    op.add_column("encounters", sa.Column("round_hours", sa.Float(), nullable=True))
    op.create_table(
        "extension_requests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=True),
        sa.Column("combatant_id", sa.Integer(), nullable=True),
        sa.Column("player", sa.String(120), nullable=False),
        sa.Column("hours", sa.Float(), nullable=False),
        sa.Column("state", sa.String(20), nullable=False),
        sa.Column("automatic", sa.Boolean(), nullable=False),
        sa.Column("narrator_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("decided_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], ondelete="CASCADE",
                                name="fk_extension_requests_round_id_rounds"),
        sa.ForeignKeyConstraint(["post_id"], ["posts.id"], ondelete="SET NULL",
                                name="fk_extension_requests_post_id_posts"),
        sa.ForeignKeyConstraint(["combatant_id"], ["combatants.id"], ondelete="SET NULL",
                                name="fk_extension_requests_combatant_id_combatants"),
        sa.ForeignKeyConstraint(["narrator_id"], ["narrators.id"], ondelete="SET NULL",
                                name="fk_extension_requests_narrator_id_narrators"),
        sa.PrimaryKeyConstraint("id", name="pk_extension_requests"),
        sa.UniqueConstraint("round_id", "post_id", name="uq_extension_requests_round_id_post_id"),
    )
    for col in ("round_id", "post_id", "combatant_id", "narrator_id"):
        op.create_index(f"ix_extension_requests_{col}", "extension_requests", [col])


def downgrade() -> None:
    # recreate="never": SQLite (3.35+) drops a column in place; a batch copy would delete
    # the encounters, combatants and rounds (see upgrade)
    for col in ("round_id", "post_id", "combatant_id", "narrator_id"):
        op.drop_index(f"ix_extension_requests_{col}", table_name="extension_requests")
    op.drop_table("extension_requests")
    with op.batch_alter_table("encounters", recreate="never") as batch:
        batch.drop_column("round_hours")
    with op.batch_alter_table("campaigns", recreate="never") as batch:
        for col in ("extension_limit_hours", "skip_weekends", "quiet_hours", "close_grace_minutes"):
            batch.drop_column(col)
