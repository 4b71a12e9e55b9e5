"""Alembic: head on an empty database (SQLite file, PostgreSQL), down and up again, and
the migrations describe exactly the models (no drift)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from pbp.store.db import MIGRATIONS, current_revision, downgrade, make_engine, upgrade
from pbp.store.models import Base
from tests.store.raw_rows import campaign_and_thread

#: the shipped revisions, oldest first (file names start with the revision id)
REVISIONS = sorted(p.name[:4] for p in (MIGRATIONS / "versions").glob("[0-9][0-9][0-9][0-9]_*.py"))
HEAD, PREVIOUS = REVISIONS[-1], REVISIONS[-2]

TABLES = {"pbp_budgets", "narrators", "campaigns", "campaign_narrators", "threads", "encounters", "combatants", "extension_requests",
          "rounds", "posts", "post_revisions", "declarations", "rolls", "events", "replies",
          "overrides", "audit_log", "pbp_leases", "pbp_watch_state", "pbp_heartbeats",
          "narrator_sessions", "login_throttle", "roll_posts", "roll_reuses", "roll_reveals",
          "absences", "standing_orders", "notifications", "ladder_players"}


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_upgrade_head_on_an_empty_database(empty_url):
    upgrade(empty_url)
    assert current_revision(empty_url) == HEAD
    assert _tables(empty_url) == TABLES
    upgrade(empty_url)                    # again: nothing to do
    assert current_revision(empty_url) == HEAD


def test_migrations_match_the_models(empty_url):
    upgrade(empty_url)
    engine = make_engine(empty_url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={"compare_type": False})
            diff = compare_metadata(ctx, Base.metadata)
    finally:
        engine.dispose()
    assert diff == []


def test_downgrade_step_by_step_and_up_again(empty_url):
    upgrade(empty_url)
    downgrade(empty_url, "0001")
    assert current_revision(empty_url) == "0001"
    engine = make_engine(empty_url)
    try:
        assert "notes" not in {c["name"] for c in inspect(engine).get_columns("declarations")}
    finally:
        engine.dispose()
    downgrade(empty_url, "base")
    assert current_revision(empty_url) is None and _tables(empty_url) == set()
    upgrade(empty_url)
    assert current_revision(empty_url) == HEAD and _tables(empty_url) == TABLES


def test_the_alembic_command_line_migrates_the_settings_database(empty_url):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PBP_DATABASE_URL": empty_url}
    for args, rev in ((["upgrade", "head"], HEAD), (["downgrade", "-1"], PREVIOUS),
                      (["upgrade", "head"], HEAD)):
        done = subprocess.run([sys.executable, "-m", "alembic", "-c", str(root / "alembic.ini"),
                               *args], cwd=root, env=env, capture_output=True, text=True, check=False,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        assert current_revision(empty_url) == rev


def test_the_database_refuses_to_change_a_roll_until_migrated_down(empty_url):
    from datetime import UTC, datetime

    import pytest
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    upgrade(empty_url)
    engine = make_engine(empty_url)
    now = datetime.now(UTC).replace(tzinfo=None)
    try:
        with engine.begin() as conn:
            campaign_and_thread(conn, now)
            conn.execute(text("INSERT INTO encounters (campaign_id, thread_id, name, ruleset, "
                              "status, round_number, surprise, surprised, \"order\", state, "
                              "houserules, started_at, created_at) VALUES (1, 1, '', 'forum-d20', "
                              "'active', 1, false, '[]', '[]', '{}', '{}', :now, :now)"),
                         {"now": now})
            conn.execute(text("INSERT INTO rounds (encounter_id, number, surprise, state, opens_at, "
                              "deadline, seed, commitment, seed_revealed, \"order\", "
                              "reminders_sent, waived) VALUES (1, 1, false, 'open', :now, :now, "
                              "'s', 'c', false, '[]', '[]', '[]')"), {"now": now})
            conn.execute(text("INSERT INTO rolls (round_id, roll_index, kind, written, expression, "
                              "total, faces, breakdown, markdown, created_at) VALUES (1, 0, 'tag', "
                              "'1d20', '1d20', 7, '[7]', '1d20 (7) = 7', '', :now)"), {"now": now})
        with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
            conn.execute(text("UPDATE rolls SET total = 20"))
        engine.dispose()
        downgrade(empty_url, "0002")
        with engine.begin() as conn:
            conn.execute(text("UPDATE rolls SET total = 20"))
    finally:
        engine.dispose()


def test_0004_adopts_worker_tables_made_before_it(empty_url):
    """Workers used to create their lease and watch tables on first use: 0004 keeps them."""
    from workers.locks import DatabaseLease

    upgrade(empty_url, "0003")
    engine = make_engine(empty_url)
    try:
        lease = DatabaseLease(engine).acquire("poll:1", ttl=60)
        assert lease and "pbp_leases" in inspect(engine).get_table_names()
        upgrade(empty_url)
        assert current_revision(empty_url) == HEAD and _tables(empty_url) == TABLES
        assert not DatabaseLease(engine).acquire("poll:1", ttl=60)  # the row survived
    finally:
        engine.dispose()
