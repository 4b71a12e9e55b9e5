"""Issue 12 item 2: a permanent error (a ConfigError on a source) is shown and backs off;
it is never retried at every poll or sweep (it was retried every ~4 s: 129 errors in 10
minutes), and a round whose thread cannot be read for that reason still resolves."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from pbp.errors import ConfigError
from pbp.jobs import delivery, threads
from pbp.jobs.resources import utcnow
from pbp.sources.scenario_file import FileSource
from pbp.store.db import session_scope
from pbp.store.models import Reply, Thread
from tests.jobs.conftest import Res
from tests.rounds.world import World

BROKEN = ConfigError("no Reddit client id in the secrets", where="secrets")


def _broken_fetch(monkeypatch: pytest.MonkeyPatch) -> None:
    def fetch(self: FileSource, cursor: object) -> None:
        raise BROKEN

    monkeypatch.setattr(FileSource, "fetch", fetch)


def test_a_config_error_on_a_poll_is_shown_and_waits(res: Res, world: World,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 12 item 2: the thread shows the ConfigError and is not due at the next ticks."""
    _broken_fetch(monkeypatch)
    before = utcnow()
    assert threads.poll_thread(res, world.thread_id) == threads.PollOutcome()
    with session_scope(res.engine) as s:
        t = s.get_one(Thread, world.thread_id)
        assert "ConfigError: secrets: no Reddit client id" in (t.last_error or "")
        assert t.error_count == 1
        assert t.next_poll is not None and t.next_poll - before >= timedelta(seconds=4)
    for seconds in (4, 8):
        with session_scope(res.engine) as s:
            due = threads.schedule_due_polls(s, before + timedelta(seconds=seconds), res.settings)
        assert world.thread_id not in dict(due)


def test_a_config_error_does_not_hold_the_round(res: Res, world: World,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 12 item 2: the final poll cannot heal a ConfigError by the next sweep, so the
    round resolves with what is stored, and the thread shows why."""
    rid = world.open(utcnow() - timedelta(days=1, seconds=5))
    _broken_fetch(monkeypatch)
    assert threads.final_poll(res, rid, world.thread_id) is True
    with session_scope(res.engine) as s:
        assert "ConfigError" in (s.get_one(Thread, world.thread_id).last_error or "")


def test_a_config_error_on_delivery_is_shown_and_waits(res: Res, world: World,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 12 item 2: the reply stays in the outbox with the cause, not due again at the
    next sweeps; it goes out by itself once the configuration is fixed."""
    rid = world.open(utcnow() - timedelta(days=1))
    with session_scope(res.engine) as s:
        reply_id = s.scalars(select(Reply.id).where(Reply.round_id == rid)).one()

    def broken(*args: object, **kwargs: object) -> None:
        raise BROKEN

    monkeypatch.setattr(delivery, "open_source", broken)
    before = utcnow()
    assert delivery.deliver(res, reply_id) == delivery.DeliveryOutcome()
    with session_scope(res.engine) as s:
        reply = s.get_one(Reply, reply_id)
        assert reply.state == "pending" and "ConfigError" in (reply.last_error or "")
        assert reply.not_before is not None
        not_before = reply.not_before
    for seconds in (4, 8):
        with session_scope(res.engine) as s:
            assert reply_id not in delivery.due_work(s, before + timedelta(seconds=seconds)).replies
    monkeypatch.undo()
    with session_scope(res.engine) as s:
        assert reply_id in delivery.due_work(s, not_before + timedelta(seconds=1)).replies
    assert delivery.deliver(res, reply_id).platform_id is not None
