"""Delivery state on a real database: one reply posted under its lease, a platform error
counted and shown, pending again after the retry time or held for the narrator; what the
sweep finds due; a round's deadlines (reminder, resolution) and the replies they leave."""

from __future__ import annotations

import logging
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from pbp.jobs import deadlines, delivery
from pbp.jobs.resources import utcnow
from pbp.sources.base import SourceError
from pbp.sources.scenario_file import FileSource, append_post
from pbp.store.db import session_scope
from pbp.store.models import Post, Reply, Round, Thread
from tests.jobs.conftest import Res
from tests.rounds.world import World


def _opening(res: Res, world: World) -> tuple[int, int]:
    """Round 1, opened a day ago, and its opening reply (pending in the outbox)."""
    rid = world.open(utcnow() - timedelta(days=1))
    with session_scope(res.engine) as s:
        reply_id = s.scalars(select(Reply.id).where(Reply.round_id == rid)).one()
    return rid, reply_id


def _posts(res: Res, thread_id: int) -> int:
    with session_scope(res.engine) as s:
        return len(list(s.scalars(select(Post.id).where(Post.thread_id == thread_id))))


def _reply(res: Res, reply_id: int) -> Reply:
    with session_scope(res.engine) as s:
        reply = s.get(Reply, reply_id)
        s.expunge(reply)
        return reply


def _refuse(monkeypatch: pytest.MonkeyPatch, exc: SourceError) -> list[str]:
    calls: list[str] = []

    def reply(self: FileSource, text: str, marker: str, *, in_reply_to: str | None = None) -> str:
        calls.append(marker)
        raise exc

    monkeypatch.setattr(FileSource, "reply", reply)
    return calls


def test_a_reply_is_posted_once(res: Res, world: World, tmp_path: Path) -> None:
    _, reply_id = _opening(res, world)
    out = delivery.deliver(res, reply_id)
    assert out.platform_id is not None and out.retry_in is None
    reply = _reply(res, reply_id)
    assert (reply.state, reply.platform_id, reply.attempts) == ("sent", out.platform_id, 1)
    assert delivery.deliver(res, reply_id) == delivery.DeliveryOutcome()  # sent: not again
    assert len(FileSource(tmp_path / "thread.yaml").replies()) == 1


def test_a_reply_leased_elsewhere_is_left_alone(res: Res, world: World) -> None:
    _, reply_id = _opening(res, world)
    lease = res.leases.acquire(f"reply:{reply_id}", 60)
    assert delivery.deliver(res, reply_id) == delivery.DeliveryOutcome()
    lease.release()
    assert _reply(res, reply_id).state == "pending"


def test_flood_control_keeps_the_reply_pending_until_its_retry_time(
        res: Res, world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    _, reply_id = _opening(res, world)
    calls = _refuse(monkeypatch, SourceError("flood control: wait 30 seconds", retry_after=30))
    now = utcnow()
    out = delivery.deliver(res, reply_id, retries=0)
    assert out.retry_in is not None and 30 <= out.retry_in <= 32
    reply = _reply(res, reply_id)
    assert reply.state == "pending" and reply.attempts == 1  # one try, counted once
    assert "SourceError: flood control" in reply.last_error
    assert reply.not_before >= now + timedelta(seconds=29)
    with session_scope(res.engine) as s:
        due = delivery.due_work(s, utcnow())
    assert reply_id not in due.replies and due.waiting == 1
    with session_scope(res.engine) as s:
        assert reply_id in delivery.due_work(s, now + timedelta(seconds=60)).replies
    # out of tries (retry_max = 3): held for the narrator, still in the outbox
    out = delivery.deliver(res, reply_id, retries=3)
    assert out.retry_in is None and out.error is not None
    reply = _reply(res, reply_id)
    assert (reply.state, reply.attempts) == ("failed", 2) and len(calls) == 2


def test_a_refused_reply_is_held_at_once(res: Res, world: World,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _, reply_id = _opening(res, world)
    _refuse(monkeypatch, SourceError("login refused"))
    assert delivery.deliver(res, reply_id).retry_in is None
    assert _reply(res, reply_id).state == "failed"
    with session_scope(res.engine) as s:
        assert delivery.due_work(s, utcnow()).replies == []  # a narrator re-queues it


def test_the_resolution_reads_the_thread_first_and_leaves_its_reply(res: Res, world: World) -> None:
    rid, opening = _opening(res, world)
    with session_scope(res.engine) as s:
        s.get(Round, rid).deadline = utcnow() - timedelta(seconds=1)
        due = delivery.due_work(s, utcnow())
    assert due.rounds == [rid] and due.replies == [opening]
    replies = deadlines.resolve_round(res, rid)
    with session_scope(res.engine) as s:
        rnd = s.get(Round, rid)
        kinds = {r.id: r.kind for r in s.scalars(select(Reply).where(Reply.round_id == rid))}
        assert rnd.state == "resolved"
    assert _posts(res, world.thread_id) == 2  # the final poll read the thread
    assert sorted(replies) == sorted(kinds) and "resolution" in kinds.values()
    assert deadlines.resolve_round(res, rid) == sorted(replies)  # resolved once; same replies


def test_a_reminder_names_who_has_not_posted(res: Res, world: World) -> None:
    rid, opening = _opening(res, world)
    with session_scope(res.engine) as s:  # reminders 2 h before the deadline (the world's)
        s.get(Round, rid).deadline = utcnow() + timedelta(hours=1)
        assert delivery.due_work(s, utcnow()).reminders == [rid]
    replies = deadlines.send_reminder(res, rid)
    assert len(replies) == 2 and opening in replies
    reminder = _reply(res, max(replies))
    assert reminder.kind == "reminder"
    # that threshold is spent: no second reminder; the same replies still wait
    assert sorted(deadlines.send_reminder(res, rid)) == sorted(replies)
    with session_scope(res.engine) as s:
        assert delivery.due_work(s, utcnow()).reminders == []


def test_a_second_resolution_says_the_round_was_already_resolved(
        res: Res, world: World, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 18 item 4: the run that finds the round resolved says so ("round 1 already
    resolved ..."), reads no thread, and never logs a second "round resolved"."""
    rid, _opening_id = _opening(res, world)
    with session_scope(res.engine) as s:
        s.get(Round, rid).deadline = utcnow() - timedelta(seconds=1)
    with caplog.at_level(logging.INFO, logger="pbp.jobs"):
        first = deadlines.resolve_round(res, rid)
        polled = _posts(res, world.thread_id)
        append_post(Path(_thread_url(res, world)), "alice", "a post after the resolution")
        second = deadlines.resolve_round(res, rid)
    said = [r.getMessage() for r in caplog.records if r.name == "pbp.jobs.deadlines"]
    assert said.count("round resolved") == 1, said
    assert said[-1].startswith("round 1 already resolved (at ") and said[-1].endswith("nothing to do")
    assert second == first                                 # the same replies still to deliver
    assert _posts(res, world.thread_id) == polled          # the second run read no thread


def _thread_url(res: Res, world: World) -> str:
    with session_scope(res.engine) as s:
        return s.get(Thread, world.thread_id).url
