"""Rolls are immutable in the database: a trigger refuses any UPDATE of ``rolls`` (PBP-4).

Revision ID: 0003
Revises: 0002
"""
from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

SQLITE = ("CREATE TRIGGER IF NOT EXISTS rolls_immutable BEFORE UPDATE ON rolls "
          "BEGIN SELECT RAISE(ABORT, 'rolls are immutable (PBP-4)'); END")
PG_FUNCTION = ("CREATE OR REPLACE FUNCTION pbp_rolls_immutable() RETURNS trigger AS $$ "
               "BEGIN RAISE EXCEPTION 'rolls are immutable (PBP-4)'; END $$ LANGUAGE plpgsql")
PG_TRIGGER = ("CREATE TRIGGER rolls_immutable BEFORE UPDATE ON rolls "
              "FOR EACH ROW EXECUTE FUNCTION pbp_rolls_immutable()")


def upgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        op.execute(PG_FUNCTION)
        op.execute(PG_TRIGGER)
    else:
        op.execute(SQLITE)


def downgrade() -> None:
    if op.get_context().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS rolls_immutable ON rolls")
        op.execute("DROP FUNCTION IF EXISTS pbp_rolls_immutable()")
    else:
        op.execute("DROP TRIGGER IF EXISTS rolls_immutable")
