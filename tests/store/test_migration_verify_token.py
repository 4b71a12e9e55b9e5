"""DICE-4's migration (0010_dice_url): campaigns gain ``public_verification`` (off), and
encounters made before it each get their own unguessable token for the public page,
on SQLite and PostgreSQL, and nothing that hangs on an encounter is lost (rebuilding the
table on SQLite would cascade to its combatants); down again removes both."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from sqlalchemy import inspect, text

from pbp.store.db import downgrade, make_engine, upgrade
from tests.store.raw_rows import campaign_and_thread


def test_dice_4_existing_encounters_get_distinct_tokens_and_campaigns_stay_private(empty_url: str) -> None:
    upgrade(empty_url, "0009")
    engine = make_engine(empty_url)
    now = datetime.now(UTC).replace(tzinfo=None)
    try:
        with engine.begin() as conn:
            campaign_and_thread(conn, now)
            for name in ("first", "second"):
                conn.execute(text("INSERT INTO encounters (campaign_id, thread_id, name, ruleset, "
                                  "status, round_number, surprise, surprised, \"order\", state, "
                                  "houserules, started_at, created_at) VALUES (1, 1, :name, "
                                  "'forum-d20', 'active', 1, false, '[]', '[]', '{}', '{}', :now, :now)"),
                             {"name": name, "now": now})
            conn.execute(text("INSERT INTO combatants (encounter_id, key, name, side, player, sheet, hp, "
                              "max_hp, conditions, down) VALUES (1, 'ana', 'Ana', 'players', 'ana_p', "
                              "'{}', 10, 10, '[]', false)"))
        engine.dispose()
        upgrade(empty_url)
        with engine.connect() as conn:
            tokens = [t for (t,) in conn.execute(text("SELECT verify_token FROM encounters ORDER BY id"))]
            public = conn.execute(text("SELECT public_verification FROM campaigns")).scalar_one()
        assert len(tokens) == 2 and len(set(tokens)) == 2
        assert all(re.fullmatch(r"[A-Za-z0-9_-]{32}", t) for t in tokens), tokens
        assert not public
        with engine.connect() as conn:      # nothing cascaded away with a rebuilt table
            assert conn.execute(text("SELECT count(*) FROM combatants")).scalar_one() == 1
        engine.dispose()
        downgrade(empty_url, "0009")
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM combatants")).scalar_one() == 1
        columns = {c["name"] for c in inspect(engine).get_columns("encounters")}
        assert "verify_token" not in columns
        assert "public_verification" not in {c["name"] for c in inspect(engine).get_columns("campaigns")}
    finally:
        engine.dispose()
