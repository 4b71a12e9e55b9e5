"""Initial schema: campaigns, narrators, threads, encounters, combatants, rounds, posts,
revisions, declarations, rolls, events, replies (outbox), overrides, audit log.

Revision ID: 0001
Revises:
Create Date: 2026-11-30 09:20:35.151382
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

#: JSONB on PostgreSQL, JSON text elsewhere (pbp.store.types.JsonType, frozen here).
JSON = sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), 'postgresql')

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('narrators',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('username', sa.String(length=80), nullable=False),
    sa.Column('display_name', sa.String(length=120), nullable=False),
    sa.Column('email', sa.String(length=200), nullable=True),
    sa.Column('password_hash', sa.String(length=255), nullable=False),
    sa.Column('language', sa.String(length=8), nullable=False),
    sa.Column('is_admin', sa.Boolean(), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('last_login_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_narrators')),
    sa.UniqueConstraint('username', name=op.f('uq_narrators_username'))
    )
    op.create_table('campaigns',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('slug', sa.String(length=100), nullable=False),
    sa.Column('ruleset', sa.String(length=40), nullable=False),
    sa.Column('language', sa.String(length=8), nullable=False),
    sa.Column('timezone', sa.String(length=64), nullable=False),
    sa.Column('houserules', JSON, nullable=False),
    sa.Column('approval_mode', sa.Boolean(), nullable=False),
    sa.Column('round_hours', sa.Float(), nullable=False),
    sa.Column('reminder_hours', JSON, nullable=False),
    sa.Column('early_close', sa.Boolean(), nullable=False),
    sa.Column('owner_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('archived', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['owner_id'], ['narrators.id'], name=op.f('fk_campaigns_owner_id_narrators'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaigns')),
    sa.UniqueConstraint('slug', name=op.f('uq_campaigns_slug'))
    )
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_campaigns_owner_id'), ['owner_id'], unique=False)

    op.create_table('audit_log',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=False),
    sa.Column('narrator_id', sa.Integer(), nullable=True),
    sa.Column('actor', sa.String(length=120), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=True),
    sa.Column('action', sa.String(length=60), nullable=False),
    sa.Column('entity', sa.String(length=40), nullable=False),
    sa.Column('entity_id', sa.String(length=60), nullable=True),
    sa.Column('before', JSON, nullable=True),
    sa.Column('after', JSON, nullable=True),
    sa.Column('note', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_audit_log_campaign_id_campaigns'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['narrator_id'], ['narrators.id'], name=op.f('fk_audit_log_narrator_id_narrators'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_log'))
    )
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_log_at'), ['at'], unique=False)
        batch_op.create_index(batch_op.f('ix_audit_log_campaign_id'), ['campaign_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_audit_log_narrator_id'), ['narrator_id'], unique=False)

    op.create_table('campaign_narrators',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('narrator_id', sa.Integer(), nullable=False),
    sa.Column('role', sa.String(length=20), nullable=False),
    sa.Column('platform_names', JSON, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_campaign_narrators_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['narrator_id'], ['narrators.id'], name=op.f('fk_campaign_narrators_narrator_id_narrators'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_campaign_narrators')),
    sa.UniqueConstraint('campaign_id', 'narrator_id', name=op.f('uq_campaign_narrators_campaign_id_narrator_id'))
    )
    with op.batch_alter_table('campaign_narrators', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_campaign_narrators_campaign_id'), ['campaign_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_campaign_narrators_narrator_id'), ['narrator_id'], unique=False)

    op.create_table('threads',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('url', sa.String(length=500), nullable=False),
    sa.Column('title', sa.String(length=300), nullable=False),
    sa.Column('platform', sa.String(length=20), nullable=False),
    sa.Column('options', JSON, nullable=False),
    sa.Column('cursor', JSON, nullable=True),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('last_poll', sa.DateTime(), nullable=True),
    sa.Column('next_poll', sa.DateTime(), nullable=True),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('error_count', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_threads_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_threads')),
    sa.UniqueConstraint('campaign_id', 'kind', 'url', name=op.f('uq_threads_campaign_id_kind_url'))
    )
    with op.batch_alter_table('threads', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_threads_campaign_id'), ['campaign_id'], unique=False)

    op.create_table('encounters',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('thread_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('ruleset', sa.String(length=40), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('round_number', sa.Integer(), nullable=False),
    sa.Column('surprise', sa.Boolean(), nullable=False),
    sa.Column('surprised', JSON, nullable=False),
    sa.Column('order', JSON, nullable=False),
    sa.Column('state', JSON, nullable=False),
    sa.Column('houserules', JSON, nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_encounters_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['thread_id'], ['threads.id'], name=op.f('fk_encounters_thread_id_threads'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_encounters'))
    )
    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_encounters_campaign_id'), ['campaign_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_encounters_thread_id'), ['thread_id'], unique=False)

    op.create_table('combatants',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('encounter_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=80), nullable=False),
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.Column('side', sa.String(length=40), nullable=False),
    sa.Column('player', sa.String(length=120), nullable=True),
    sa.Column('sheet', JSON, nullable=False),
    sa.Column('hp', sa.Integer(), nullable=False),
    sa.Column('max_hp', sa.Integer(), nullable=False),
    sa.Column('conditions', JSON, nullable=False),
    sa.Column('initiative', sa.Float(), nullable=True),
    sa.Column('down', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['encounter_id'], ['encounters.id'], name=op.f('fk_combatants_encounter_id_encounters'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_combatants')),
    sa.UniqueConstraint('encounter_id', 'key', name=op.f('uq_combatants_encounter_id_key'))
    )
    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_combatants_encounter_id'), ['encounter_id'], unique=False)

    op.create_table('rounds',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('encounter_id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('surprise', sa.Boolean(), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('opens_at', sa.DateTime(), nullable=False),
    sa.Column('deadline', sa.DateTime(), nullable=False),
    sa.Column('closed_at', sa.DateTime(), nullable=True),
    sa.Column('resolved_at', sa.DateTime(), nullable=True),
    sa.Column('seed', sa.String(length=128), nullable=False),
    sa.Column('commitment', sa.String(length=64), nullable=False),
    sa.Column('seed_revealed', sa.Boolean(), nullable=False),
    sa.Column('order', JSON, nullable=False),
    sa.Column('state_before', JSON, nullable=True),
    sa.Column('state_after', JSON, nullable=True),
    sa.Column('reminders_sent', JSON, nullable=False),
    sa.Column('waived', JSON, nullable=False),
    sa.ForeignKeyConstraint(['encounter_id'], ['encounters.id'], name=op.f('fk_rounds_encounter_id_encounters'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rounds')),
    sa.UniqueConstraint('encounter_id', 'number', name=op.f('uq_rounds_encounter_id_number'))
    )
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rounds_encounter_id'), ['encounter_id'], unique=False)
        batch_op.create_index('ix_rounds_state_deadline', ['state', 'deadline'], unique=False)

    op.create_table('events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('round_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('code', sa.String(length=60), nullable=False),
    sa.Column('actor', sa.String(length=80), nullable=True),
    sa.Column('target', sa.String(length=80), nullable=True),
    sa.Column('rule', sa.String(length=20), nullable=True),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('params', JSON, nullable=False),
    sa.Column('roll_indexes', JSON, nullable=False),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_events_round_id_rounds'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_events')),
    sa.UniqueConstraint('round_id', 'seq', name=op.f('uq_events_round_id_seq'))
    )
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_events_round_id'), ['round_id'], unique=False)

    op.create_table('overrides',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('encounter_id', sa.Integer(), nullable=False),
    sa.Column('round_id', sa.Integer(), nullable=True),
    sa.Column('narrator_id', sa.Integer(), nullable=True),
    sa.Column('kind', sa.String(length=40), nullable=False),
    sa.Column('target', sa.String(length=80), nullable=True),
    sa.Column('payload', JSON, nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('applied', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['encounter_id'], ['encounters.id'], name=op.f('fk_overrides_encounter_id_encounters'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['narrator_id'], ['narrators.id'], name=op.f('fk_overrides_narrator_id_narrators'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_overrides_round_id_rounds'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_overrides'))
    )
    with op.batch_alter_table('overrides', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_overrides_encounter_id'), ['encounter_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_overrides_narrator_id'), ['narrator_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_overrides_round_id'), ['round_id'], unique=False)

    op.create_table('posts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('thread_id', sa.Integer(), nullable=False),
    sa.Column('platform_id', sa.String(length=120), nullable=False),
    sa.Column('author', sa.String(length=120), nullable=False),
    sa.Column('posted_at', sa.DateTime(), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('fmt', sa.String(length=20), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('url', sa.String(length=500), nullable=True),
    sa.Column('revisions_seen', sa.Integer(), nullable=False),
    sa.Column('edited_at', sa.DateTime(), nullable=True),
    sa.Column('deleted_at', sa.DateTime(), nullable=True),
    sa.Column('first_seen_at', sa.DateTime(), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(), nullable=False),
    sa.Column('round_id', sa.Integer(), nullable=True),
    sa.Column('is_ours', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_posts_round_id_rounds'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['thread_id'], ['threads.id'], name=op.f('fk_posts_thread_id_threads'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_posts')),
    sa.UniqueConstraint('thread_id', 'platform_id', name=op.f('uq_posts_thread_id_platform_id'))
    )
    with op.batch_alter_table('posts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_posts_round_id'), ['round_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_posts_thread_id'), ['thread_id'], unique=False)

    op.create_table('replies',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('thread_id', sa.Integer(), nullable=False),
    sa.Column('round_id', sa.Integer(), nullable=True),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('idempotency_key', sa.String(length=120), nullable=False),
    sa.Column('marker', sa.String(length=120), nullable=False),
    sa.Column('platform', sa.String(length=20), nullable=False),
    sa.Column('language', sa.String(length=8), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('platform_id', sa.String(length=120), nullable=True),
    sa.Column('in_reply_to', sa.String(length=120), nullable=True),
    sa.Column('approved_by', sa.Integer(), nullable=True),
    sa.Column('approved_at', sa.DateTime(), nullable=True),
    sa.Column('not_before', sa.DateTime(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('sent_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['approved_by'], ['narrators.id'], name=op.f('fk_replies_approved_by_narrators'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_replies_round_id_rounds'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['thread_id'], ['threads.id'], name=op.f('fk_replies_thread_id_threads'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_replies')),
    sa.UniqueConstraint('idempotency_key', name=op.f('uq_replies_idempotency_key'))
    )
    with op.batch_alter_table('replies', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_replies_approved_by'), ['approved_by'], unique=False)
        batch_op.create_index(batch_op.f('ix_replies_round_id'), ['round_id'], unique=False)
        batch_op.create_index('ix_replies_state', ['state'], unique=False)
        batch_op.create_index(batch_op.f('ix_replies_thread_id'), ['thread_id'], unique=False)

    op.create_table('declarations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('round_id', sa.Integer(), nullable=False),
    sa.Column('combatant_id', sa.Integer(), nullable=False),
    sa.Column('post_id', sa.Integer(), nullable=True),
    sa.Column('source', sa.String(length=20), nullable=False),
    sa.Column('actions', JSON, nullable=False),
    sa.Column('errors', JSON, nullable=False),
    sa.Column('speech', JSON, nullable=False),
    sa.Column('speech_count', sa.Integer(), nullable=False),
    sa.Column('speech_limit', sa.Integer(), nullable=True),
    sa.Column('late', sa.Boolean(), nullable=False),
    sa.Column('edited_after_roll', sa.Boolean(), nullable=False),
    sa.Column('deleted', sa.Boolean(), nullable=False),
    sa.Column('superseded', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['combatant_id'], ['combatants.id'], name=op.f('fk_declarations_combatant_id_combatants'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['post_id'], ['posts.id'], name=op.f('fk_declarations_post_id_posts'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_declarations_round_id_rounds'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_declarations')),
    sa.UniqueConstraint('round_id', 'combatant_id', 'post_id', name=op.f('uq_declarations_round_id_combatant_id_post_id'))
    )
    with op.batch_alter_table('declarations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_declarations_combatant_id'), ['combatant_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_declarations_post_id'), ['post_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_declarations_round_id'), ['round_id'], unique=False)

    op.create_table('post_revisions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('post_id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('change', sa.String(length=10), nullable=False),
    sa.Column('edited_at', sa.DateTime(), nullable=True),
    sa.Column('seen_at', sa.DateTime(), nullable=False),
    sa.Column('after_roll', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['post_id'], ['posts.id'], name=op.f('fk_post_revisions_post_id_posts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_post_revisions')),
    sa.UniqueConstraint('post_id', 'number', name=op.f('uq_post_revisions_post_id_number'))
    )
    with op.batch_alter_table('post_revisions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_post_revisions_post_id'), ['post_id'], unique=False)

    op.create_table('rolls',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('round_id', sa.Integer(), nullable=False),
    sa.Column('roll_index', sa.Integer(), nullable=False),
    sa.Column('post_id', sa.Integer(), nullable=True),
    sa.Column('tag_index', sa.Integer(), nullable=True),
    sa.Column('position', sa.Integer(), nullable=True),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('actor', sa.String(length=80), nullable=True),
    sa.Column('label', sa.String(length=200), nullable=True),
    sa.Column('written', sa.String(length=300), nullable=False),
    sa.Column('expression', sa.String(length=300), nullable=False),
    sa.Column('total', sa.Integer(), nullable=False),
    sa.Column('natural', sa.Integer(), nullable=True),
    sa.Column('faces', JSON, nullable=False),
    sa.Column('breakdown', sa.String(length=1000), nullable=False),
    sa.Column('markdown', sa.String(length=1000), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['post_id'], ['posts.id'], name=op.f('fk_rolls_post_id_posts'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_rolls_round_id_rounds'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rolls')),
    sa.UniqueConstraint('post_id', 'tag_index', name='uq_rolls_post_tag'),
    sa.UniqueConstraint('round_id', 'roll_index', name='uq_rolls_round_index')
    )
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rolls_post_id'), ['post_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_rolls_round_id'), ['round_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rolls_round_id'))
        batch_op.drop_index(batch_op.f('ix_rolls_post_id'))

    op.drop_table('rolls')
    with op.batch_alter_table('post_revisions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_post_revisions_post_id'))

    op.drop_table('post_revisions')
    with op.batch_alter_table('declarations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_declarations_round_id'))
        batch_op.drop_index(batch_op.f('ix_declarations_post_id'))
        batch_op.drop_index(batch_op.f('ix_declarations_combatant_id'))

    op.drop_table('declarations')
    with op.batch_alter_table('replies', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_replies_thread_id'))
        batch_op.drop_index('ix_replies_state')
        batch_op.drop_index(batch_op.f('ix_replies_round_id'))
        batch_op.drop_index(batch_op.f('ix_replies_approved_by'))

    op.drop_table('replies')
    with op.batch_alter_table('posts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_posts_thread_id'))
        batch_op.drop_index(batch_op.f('ix_posts_round_id'))

    op.drop_table('posts')
    with op.batch_alter_table('overrides', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_overrides_round_id'))
        batch_op.drop_index(batch_op.f('ix_overrides_narrator_id'))
        batch_op.drop_index(batch_op.f('ix_overrides_encounter_id'))

    op.drop_table('overrides')
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_events_round_id'))

    op.drop_table('events')
    with op.batch_alter_table('rounds', schema=None) as batch_op:
        batch_op.drop_index('ix_rounds_state_deadline')
        batch_op.drop_index(batch_op.f('ix_rounds_encounter_id'))

    op.drop_table('rounds')
    with op.batch_alter_table('combatants', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_combatants_encounter_id'))

    op.drop_table('combatants')
    with op.batch_alter_table('encounters', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_encounters_thread_id'))
        batch_op.drop_index(batch_op.f('ix_encounters_campaign_id'))

    op.drop_table('encounters')
    with op.batch_alter_table('threads', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_threads_campaign_id'))

    op.drop_table('threads')
    with op.batch_alter_table('campaign_narrators', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_campaign_narrators_narrator_id'))
        batch_op.drop_index(batch_op.f('ix_campaign_narrators_campaign_id'))

    op.drop_table('campaign_narrators')
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_audit_log_narrator_id'))
        batch_op.drop_index(batch_op.f('ix_audit_log_campaign_id'))
        batch_op.drop_index(batch_op.f('ix_audit_log_at'))

    op.drop_table('audit_log')
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_campaigns_owner_id'))

    op.drop_table('campaigns')
    op.drop_table('narrators')
