"""SCALE-3 (issue 17 item 3): an idle poll is cheap. Counted on the real SQLite and
PostgreSQL engines with SQLAlchemy's own events, leases in the real Redis."""

from __future__ import annotations

import secrets

import pytest

from pbp.jobs import threads
from tests.jobs.conftest import Res
from tests.rounds.world import World
from tests.sql_log import Transactions
from workers.locks import RedisLease

REDIS = "redis://127.0.0.1:6379/15"


@pytest.fixture
def redis_leases() -> RedisLease:
    return RedisLease(REDIS, prefix=f"test-{secrets.token_hex(4)}:pbp:lease:")


def idle_polls(res: Res, world: World, polls: int) -> Transactions:
    """The scenario's two posts read, then *polls* polls that find nothing new, their
    transactions counted (SCALE-3)."""
    assert threads.poll_thread(res, world.thread_id).stored == 2   # the scenario's two posts
    counted = Transactions(res.engine)
    try:
        for _ in range(polls):
            assert threads.poll_thread(res, world.thread_id).stored == 0
    finally:
        counted.close()
    return counted


def test_scale3_idle_poll_is_one_write_transaction_with_redis_leases(
        res: Res, world: World, redis_leases: RedisLease) -> None:
    """SCALE-3: with leases in Redis, a poll that finds nothing new writes once (cursor,
    last_poll and the cleared errors in one UPDATE) and reads once; the lease costs the
    database nothing."""
    res.leases = redis_leases  # type: ignore[assignment]
    counted = idle_polls(res, world, 3)
    assert counted.writes == 3            # one a poll
    assert counted.ended == 6             # and one read a poll: the thread's target


def test_scale3_idle_poll_moves_last_poll(res: Res, world: World, redis_leases: RedisLease) -> None:
    """SCALE-3: the one write of an idle poll still records it for the narrator."""
    from pbp.store.db import session_scope
    from pbp.store.models import Thread

    res.leases = redis_leases  # type: ignore[assignment]
    threads.poll_thread(res, world.thread_id)
    with session_scope(res.engine) as s:
        first = s.get_one(Thread, world.thread_id).last_poll
    threads.poll_thread(res, world.thread_id)
    with session_scope(res.engine) as s:
        t = s.get_one(Thread, world.thread_id)
        assert t.last_poll is not None and first is not None and t.last_poll > first
        assert t.error_count == 0 and t.cursor


def test_scale3_redis_lease_makes_no_database_transaction(res: Res, redis_leases: RedisLease) -> None:
    """SCALE-3: acquiring, refusing and releasing a Redis lease touches no database."""
    counted = Transactions(res.engine)
    try:
        held = redis_leases.acquire("poll:1", 30)
        assert held and not redis_leases.acquire("poll:1", 30)
        assert held.extend(30)
        held.release()
        assert redis_leases.acquire("poll:1", 30)
    finally:
        counted.close()
    assert counted.ended == 0


def test_scale3_redis_lease_release_frees_only_its_own(redis_leases: RedisLease) -> None:
    """SCALE-3: the release script (EVALSHA) deletes the key only for its holder."""
    a = redis_leases.acquire("poll:2", 0.05)
    assert a
    import time
    time.sleep(0.1)                      # a's lease expired; b takes it
    b = redis_leases.acquire("poll:2", 30)
    assert b
    a.release()                          # must not free b's
    assert not redis_leases.acquire("poll:2", 30)
    b.release()
    assert redis_leases.acquire("poll:2", 30)
