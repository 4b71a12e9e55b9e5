"""Rows written in plain SQL, for migration tests that run before the models' columns exist:
one campaign (id 1) and its file thread (id 1), the parents every older table needs."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import text
from sqlalchemy.engine import Connection

CAMPAIGN = ("INSERT INTO campaigns (name, slug, ruleset, language, timezone, "
            "houserules, approval_mode, round_hours, reminder_hours, "
            "early_close, created_at, archived) VALUES ('c', 'c', 'forum-d20', "
            "'en', 'UTC', '{}', false, 24, '[]', false, :now, false)")
THREAD = ("INSERT INTO threads (campaign_id, kind, url, title, platform, "
          "options, active, error_count, created_at) VALUES "
          "(1, 'file', 'x', '', 'text', '{}', true, 0, :now)")


def campaign_and_thread(conn: Connection, now: datetime) -> None:
    """Campaign 1 and its thread 1, as the schema of migration 0001 holds them."""
    conn.execute(text(CAMPAIGN), {"now": now})
    conn.execute(text(THREAD), {"now": now})
