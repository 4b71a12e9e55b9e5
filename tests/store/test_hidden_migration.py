"""DICE-2, migration 0013: a secret roll is a roll like any other to the immutability
trigger of migration 0003 (its total, faces, flag and seal refused a change), after the
upgrade and after a step down to 0012 (SQLite rebuilds the table there)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.exc import DBAPIError

from pbp.store.db import downgrade, make_engine, upgrade
from tests.store.raw_rows import campaign_and_thread

ROWS = [
    "INSERT INTO encounters (campaign_id, thread_id, name, ruleset, status, round_number, "
    "surprise, surprised, \"order\", state, houserules, started_at, created_at, hidden_key, "
    "hidden_commitment) VALUES (1, 1, '', 'forum-d20', 'active', 1, false, '[]', '[]', '{}', "
    "'{}', :now, :now, 'k', 'c')",
    "INSERT INTO rounds (encounter_id, number, surprise, state, opens_at, deadline, seed, "
    "commitment, seed_revealed, \"order\", reminders_sent, waived) VALUES (1, 1, false, 'open', "
    ":now, :now, 's', 'c', false, '[]', '[]', '[]')",
    "INSERT INTO rolls (round_id, roll_index, kind, written, expression, total, faces, "
    "breakdown, markdown, created_at, hidden, seal) VALUES (1, 0, 'tag', '1d20', '1d20', 7, "
    "'[7]', '1d20 (7) = 7', '', :now, true, 'c0ffee')",
]
CHANGES = ["UPDATE rolls SET total = 20", "UPDATE rolls SET faces = '[20]'",
           "UPDATE rolls SET hidden = false", "UPDATE rolls SET seal = 'other'"]


def test_DICE_2_a_secret_roll_stays_immutable_after_0013_and_after_stepping_down(empty_url):
    upgrade(empty_url)
    engine = make_engine(empty_url)
    now = datetime.now(UTC).replace(tzinfo=None)
    try:
        with engine.begin() as conn:
            campaign_and_thread(conn, now)
            for row in ROWS:
                conn.execute(text(row), {"now": now})
            conn.execute(text("INSERT INTO roll_reveals (roll_id, encounter_id, reason, at_end, "
                              "revealed_at) VALUES (1, 1, '', false, :now)"), {"now": now})
        for change in CHANGES:
            with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
                conn.execute(text(change))
        with pytest.raises(DBAPIError), engine.begin() as conn:   # one reveal per roll
            conn.execute(text("INSERT INTO roll_reveals (roll_id, encounter_id, reason, at_end, "
                              "revealed_at) VALUES (1, 1, 'again', false, :now)"), {"now": now})
        engine.dispose()
        downgrade(empty_url, "0012")
        assert "hidden" not in {c["name"] for c in inspect(engine).get_columns("rolls")}
        with pytest.raises(DBAPIError, match="immutable"), engine.begin() as conn:
            conn.execute(text("UPDATE rolls SET total = 20"))
        with engine.connect() as conn:
            assert conn.execute(text("SELECT total FROM rolls")).scalar() == 7   # kept
    finally:
        engine.dispose()
