"""The store's own promises: UTC in and out, rolls immutable, cascades, JSON on both."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import select
from sqlalchemy.exc import StatementError

from pbp.store import models as m
from pbp.store.db import ImmutableRoll, make_engine, session_scope, upgrade


@pytest.fixture
def engine(empty_url):  # type: ignore[no-untyped-def]
    upgrade(empty_url)
    eng = make_engine(empty_url)
    yield eng
    eng.dispose()


def _campaign(s):  # type: ignore[no-untyped-def]
    n = m.Narrator(username="gm", password_hash="argon2$x")
    c = m.Campaign(name="C", slug="c", ruleset="forum-d20", houserules={"speech_limit": 2},
                   owner_id=None)
    s.add_all([n, c])
    s.flush()
    s.add(m.CampaignNarrator(campaign_id=c.id, narrator_id=n.id, role="owner",
                             platform_names=["GM"]))
    t = m.Thread(campaign_id=c.id, kind="forum", url="https://f/t/1", options={"preset": "phpbb3"},
                 cursor={"page": 3})
    s.add(t)
    s.flush()
    return c, t


def test_datetimes_are_aware_utc_on_both_databases(engine):
    brt = timezone(timedelta(hours=-3))
    with session_scope(engine) as s:
        _c, t = _campaign(s)
        s.add(m.Post(thread_id=t.id, platform_id="1", author="a", body="", text="",
                     content_hash="h", posted_at=datetime(2026, 11, 30, 9, 0, tzinfo=brt)))
    with session_scope(engine) as s:
        p = s.scalar(select(m.Post))
        assert p.posted_at == datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
        assert p.posted_at.tzinfo is not None
        assert s.scalar(select(m.Thread)).cursor == {"page": 3}
    with pytest.raises(StatementError), session_scope(engine) as s:
        s.add(m.Post(thread_id=t.id, platform_id="2", author="a", body="", text="",
                     content_hash="h", posted_at=datetime(2026, 11, 30, 9, 0)))


def test_a_stored_roll_cannot_be_changed_or_deleted_through_the_orm(engine):
    with session_scope(engine) as s:
        c, t = _campaign(s)
        e = m.Encounter(campaign_id=c.id, thread_id=t.id, ruleset="forum-d20")
        s.add(e)
        s.flush()
        now = datetime.now(UTC)
        r = m.Round(encounter_id=e.id, number=1, opens_at=now, deadline=now, seed="s", commitment="c")
        s.add(r)
        s.flush()
        s.add(m.RollRecord(round_id=r.id, roll_index=0, expression="1d20", total=7,
                           breakdown="1d20 (7) = 7", faces=[7]))
    for change in ("update", "delete"):
        with pytest.raises(ImmutableRoll), session_scope(engine) as s:
            roll = s.scalar(select(m.RollRecord))
            if change == "update":
                roll.total = 20
            else:
                s.delete(roll)
            s.flush()
    with session_scope(engine) as s:
        assert s.scalar(select(m.RollRecord)).total == 7
