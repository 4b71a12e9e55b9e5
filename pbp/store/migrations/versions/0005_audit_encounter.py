"""Audit entries know their encounter and round: an encounter's audit log shows its own
entries only, and says in which round a change was made (issue 11 item 10).

Entries written before are filled in from what they name (an encounter, a combatant, a
round, a roll, a declaration, a reply) and, for a narrator's override of a combatant,
from the override written with it at the same instant.

Revision ID: 0005
Revises: 0004
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

#: the row an entry names, matched as text (entity_id is a string; no cast can fail)
_NAMED = "CAST({table}.id AS VARCHAR(60)) = audit_log.entity_id"

BACKFILL = [
    # the round: named directly, or through the roll, declaration or reply named
    "UPDATE audit_log SET round_id = (SELECT rounds.id FROM rounds WHERE "
    + _NAMED.format(table="rounds") + ") WHERE entity = 'round'",
    *(f"UPDATE audit_log SET round_id = (SELECT {t}.round_id FROM {t} WHERE "
      + _NAMED.format(table=t) + f") WHERE entity = '{e}'"
      for e, t in (("roll", "rolls"), ("declaration", "declarations"), ("reply", "replies"))),
    # the encounter: named, through the combatant named, or through the round
    "UPDATE audit_log SET encounter_id = (SELECT encounters.id FROM encounters WHERE "
    + _NAMED.format(table="encounters") + ") WHERE entity = 'encounter'",
    "UPDATE audit_log SET encounter_id = (SELECT combatants.encounter_id FROM combatants WHERE "
    + _NAMED.format(table="combatants") + ") WHERE entity = 'combatant'",
    "UPDATE audit_log SET encounter_id = (SELECT rounds.encounter_id FROM rounds WHERE "
    "rounds.id = audit_log.round_id) WHERE encounter_id IS NULL AND round_id IS NOT NULL",
    # an override of a combatant or of the order: the round its Override row names
    "UPDATE audit_log SET round_id = (SELECT MAX(overrides.round_id) FROM overrides WHERE "
    "overrides.encounter_id = audit_log.encounter_id AND overrides.created_at = audit_log.at "
    "AND 'override.' || overrides.kind = audit_log.action) "
    "WHERE round_id IS NULL AND encounter_id IS NOT NULL AND action LIKE 'override.%'",
]


def upgrade() -> None:
    with op.batch_alter_table("audit_log") as batch:
        batch.add_column(sa.Column("encounter_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("round_id", sa.Integer, nullable=True))
        batch.create_foreign_key("fk_audit_log_encounter_id_encounters", "encounters",
                                 ["encounter_id"], ["id"], ondelete="SET NULL")
        batch.create_foreign_key("fk_audit_log_round_id_rounds", "rounds",
                                 ["round_id"], ["id"], ondelete="SET NULL")
        batch.create_index("ix_audit_log_encounter_id", ["encounter_id"])
        batch.create_index("ix_audit_log_round_id", ["round_id"])
    for statement in BACKFILL:
        op.execute(statement)


def downgrade() -> None:
    with op.batch_alter_table("audit_log") as batch:
        batch.drop_index("ix_audit_log_round_id")
        batch.drop_index("ix_audit_log_encounter_id")
        batch.drop_constraint("fk_audit_log_round_id_rounds", type_="foreignkey")
        batch.drop_constraint("fk_audit_log_encounter_id_encounters", type_="foreignkey")
        batch.drop_column("round_id")
        batch.drop_column("encounter_id")
