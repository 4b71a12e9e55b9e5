"""Topic-list state on a real database: a due list is claimed by one dispatcher once, and a
list that cannot be read says why and is tried again no sooner than its interval."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from pbp.jobs import dispatch, listings
from pbp.jobs.resources import utcnow
from pbp.store.db import session_scope
from pbp.store.infra import watch_table
from pbp.store.models import Thread
from tests.jobs.conftest import Res
from tests.rounds.world import World

LISTING = "http://127.0.0.1:9/forum/forum/table-1/"  # port 9 (discard): nothing answers


def _watch(res: Res, world: World) -> int:
    with session_scope(res.engine) as s:
        t = Thread(campaign_id=world.campaign_id, kind="forum",
                   url="http://127.0.0.1:9/forum/forum/table-1/topic/goblins-7/",
                   options={"preset": "machina", "listing_url": LISTING, "poll_interval": 50,
                            "allowed_hosts": ["127.0.0.1"]})
        s.add(t)
        s.flush()
        return t.id


def test_a_due_list_is_claimed_once(res: Res, world: World) -> None:
    tid = _watch(res, world)
    now = utcnow()
    first = dispatch.due_polls(res, now)
    assert first.listings == [LISTING]
    assert dict(first.threads)[tid] == 150.0  # new = busy: every 3 of its 50 s intervals (SCALE-2)
    assert dispatch.due_polls(res, now).listings == []  # claimed until its next check
    assert dispatch.due_polls(res, now + timedelta(seconds=56)).listings == [LISTING]  # 50 s + 10 %


def test_an_unreadable_list_says_why(res: Res, world: World) -> None:
    tid = _watch(res, world)
    with session_scope(res.engine) as s:
        assert listings.topic_id(s.get(Thread, tid).url, s.get(Thread, tid).options) == "7"
    assert listings.check_listing(res, LISTING) == []
    with res.engine.connect() as conn:
        row = conn.execute(select(watch_table)).mappings().one()
    assert row["key"] == LISTING and row["error_count"] == 1 and row["last_error"]
    assert row["next_check"] - row["last_check"] >= 50  # never sooner than its interval
    lease = res.leases.acquire(f"watch:{LISTING}", 60)
    assert listings.check_listing(res, LISTING) == []  # another worker reads it
    lease.release()
    with res.engine.connect() as conn:
        assert conn.execute(select(watch_table.c.error_count)).scalar() == 1
