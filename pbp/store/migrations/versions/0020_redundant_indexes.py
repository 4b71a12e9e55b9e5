"""Fourteen indexes no read needs (issue 17, SCALE-6): each on a column that already leads
a unique key or a longer index, which serves the same lookups and the foreign key's
checks, and each one more B-tree written on every insert (five of them by every post,
revision, roll and declaration an ingest batch stores; tests/store/test_indexes.py keeps
new ones out).

Revision ID: 0020
Revises: 0019
"""
from __future__ import annotations

from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

#: (index, table, column): the unique key that serves it instead is in the model
_DROPPED = (("ix_posts_thread_id", "posts", "thread_id"),              # (thread, platform id)
            ("ix_post_revisions_post_id", "post_revisions", "post_id"),  # (post, number)
            ("ix_declarations_round_id", "declarations", "round_id"),   # (round, combatant, post)
            ("ix_rolls_round_id", "rolls", "round_id"),                 # (round, roll index)
            ("ix_rolls_post_id", "rolls", "post_id"),                   # (post, tag index)
            ("ix_campaign_narrators_campaign_id", "campaign_narrators", "campaign_id"),
            ("ix_threads_campaign_id", "threads", "campaign_id"),
            ("ix_combatants_encounter_id", "combatants", "encounter_id"),
            ("ix_rounds_encounter_id", "rounds", "encounter_id"),
            ("ix_events_round_id", "events", "round_id"),
            ("ix_ladder_players_campaign_id", "ladder_players", "campaign_id"),
            ("ix_absences_campaign_id", "absences", "campaign_id"),
            ("ix_extension_requests_round_id", "extension_requests", "round_id"),
            ("ix_roll_reuses_post_id", "roll_reuses", "post_id"))


def upgrade() -> None:
    for name, table, _column in _DROPPED:
        op.drop_index(name, table_name=table)


def downgrade() -> None:
    for name, table, column in _DROPPED:
        op.create_index(name, table, [column])
