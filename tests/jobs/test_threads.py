"""Polling state on a real database: due polls, cursor and last poll with the posts,
errors a narrator can read, the thread lease, and the last poll before a resolution."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select

from pbp.jobs import threads
from pbp.jobs.resources import utcnow
from pbp.sources.base import SourceError
from pbp.sources.scenario_file import FileSource, append_post
from pbp.store.db import session_scope
from pbp.store.models import Post, Round, Thread
from tests.jobs.conftest import Res
from tests.rounds.world import World


def _thread(res: Res, thread_id: int) -> Thread:
    with session_scope(res.engine) as s:
        t = s.get(Thread, thread_id)
        s.expunge(t)
        return t


def _posts(res: Res, thread_id: int) -> int:
    with session_scope(res.engine) as s:
        return int(s.scalar(select(func.count()).select_from(Post).where(Post.thread_id == thread_id)))


def _fail_fetch(monkeypatch: pytest.MonkeyPatch, exc: SourceError) -> None:
    def fetch(self: FileSource, cursor: object) -> None:
        raise exc

    monkeypatch.setattr(FileSource, "fetch", fetch)


def test_due_threads_move_to_their_next_poll(res: Res, world: World) -> None:
    now = utcnow()
    with session_scope(res.engine) as s:
        watched = Thread(campaign_id=world.campaign_id, kind="file", url="x",
                         options={"poll_interval": 20, "listing_url": "http://forum/f/1/"})
        later = Thread(campaign_id=world.campaign_id, kind="file", url="y",
                       next_poll=now + timedelta(minutes=5))
        idle = Thread(campaign_id=world.campaign_id, kind="file", url="z", active=False)
        s.add_all([watched, later, idle])
        s.flush()
        ids = watched.id, later.id
    with session_scope(res.engine) as s:
        due = dict(threads.schedule_due_polls(s, now, res.settings))
    # the world's thread (never polled) at the setting's 30 s; the listing-watched one,
    # made just now and so busy, read in full every RECHECK_MIN_FACTOR (3) of its own 20 s
    # intervals (SCALE-2)
    assert due == {world.thread_id: 30.0, ids[0]: 60.0}
    t = _thread(res, world.thread_id)
    assert 27 <= (t.next_poll - now).total_seconds() <= 33  # +- 10 % jitter
    with session_scope(res.engine) as s:
        assert threads.schedule_due_polls(s, now, res.settings) == []  # nothing due twice


def test_scale2_full_rereads_of_listed_threads_follow_their_activity(res: Res, world: World) -> None:
    """SCALE-2: a list-watched thread is re-read in full after a quarter of the time it has
    been quiet: its last post 40 min ago -> every 600 s; two days ago -> the bound,
    ``full_reread_hours`` (6 h = 21,600 s); never a fixed 1/10 of the threads."""
    now = utcnow()
    opts = {"poll_interval": 20, "listing_url": "http://forum/f/1/"}
    with session_scope(res.engine) as s:
        busy = Thread(campaign_id=world.campaign_id, kind="file", url="busy", options=opts)
        quiet = Thread(campaign_id=world.campaign_id, kind="file", url="quiet", options=opts)
        s.add_all([busy, quiet])
        s.flush()
        for t, age in ((busy, timedelta(minutes=40)), (quiet, timedelta(days=2))):
            s.add(Post(thread_id=t.id, platform_id=f"p{t.id}", author="brakka",
                       posted_at=now - age, body="I wait", text="I wait", content_hash="h"))
        ids = busy.id, quiet.id
        s.get(Thread, world.thread_id).active = False
    with session_scope(res.engine) as s:
        due = dict(threads.schedule_due_polls(s, now, res.settings))
    assert res.settings.full_reread_hours == 6.0
    assert due == {ids[0]: 600.0, ids[1]: 21600.0}


def test_a_poll_stores_posts_with_the_cursor_and_clears_errors(res: Res, world: World,
                                                                tmp_path: Path) -> None:
    with session_scope(res.engine) as s:
        t = s.get(Thread, world.thread_id)
        t.error_count, t.last_error = 4, "earlier failure"
    before = utcnow()
    assert threads.poll_thread(res, world.thread_id) == threads.PollOutcome(stored=2)
    t = _thread(res, world.thread_id)
    assert t.cursor and t.last_poll >= before - timedelta(seconds=1)
    assert (t.error_count, t.last_error) == (0, None)
    assert threads.poll_thread(res, world.thread_id).stored == 0  # the cursor was kept
    append_post(tmp_path / "thread.yaml", "carol", "Cyd waits")
    assert threads.poll_thread(res, world.thread_id).stored == 1
    assert _posts(res, world.thread_id) == 3


def test_a_thread_leased_elsewhere_or_inactive_is_not_read(res: Res, world: World) -> None:
    lease = res.leases.poll_lease(f"poll:{world.thread_id}", 60)
    assert threads.poll_thread(res, world.thread_id) == threads.PollOutcome()
    with pytest.raises(threads.Busy):
        threads.fetch_and_store(res, world.thread_id)
    lease.release()
    with session_scope(res.engine) as s:
        s.get(Thread, world.thread_id).active = False
    assert threads.fetch_and_store(res, world.thread_id) is None
    assert _posts(res, world.thread_id) == 0 and _thread(res, world.thread_id).last_poll is None


def test_a_retryable_error_is_recorded_and_asks_for_a_retry(res: Res, world: World,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_fetch(monkeypatch, SourceError("HTTP 503 from the forum", retry_after=40))
    now = utcnow()
    out = threads.poll_thread(res, world.thread_id, retries=0)
    assert out.retry_in is not None and 40 <= out.retry_in <= 42  # never before retry-after
    assert isinstance(out.error, SourceError)
    t = _thread(res, world.thread_id)
    assert t.error_count == 1 and "SourceError: HTTP 503 from the forum" in t.last_error
    assert 39 <= (t.next_poll - now).total_seconds() <= 43
    # out of tries (retry_max = 3): no retry, a long pause, the count goes on
    out = threads.poll_thread(res, world.thread_id, retries=3)
    assert out.retry_in is None and out.error is not None
    t = _thread(res, world.thread_id)
    assert t.error_count == 2 and (t.next_poll - now).total_seconds() >= 30  # backoff(3) >= 8 * 2 / 2


def test_an_error_that_will_not_go_away_is_shown_without_a_retry(res: Res, world: World,
                                                                 tmp_path: Path) -> None:
    (tmp_path / "thread.yaml").unlink()  # the file source answers "not found", not retryable
    out = threads.poll_thread(res, world.thread_id, retries=0)
    assert out.retry_in is None and "scenario file not found" in str(out.error)
    t = _thread(res, world.thread_id)
    assert t.error_count == 1 and "scenario file not found" in t.last_error


def _open_round(res: Res, world: World, deadline_ago: timedelta) -> int:
    rid = world.open(utcnow() - timedelta(days=1))
    with session_scope(res.engine) as s:
        s.get(Round, rid).deadline = utcnow() - deadline_ago
    return rid


def test_the_final_poll_reads_posts_made_before_the_deadline(res: Res, world: World) -> None:
    rid = _open_round(res, world, timedelta(seconds=5))
    with session_scope(res.engine) as s:
        assert threads.thread_of_round(s, rid) == world.thread_id
    assert threads.final_poll(res, rid, world.thread_id) is True
    assert _posts(res, world.thread_id) == 2


def test_a_failing_platform_defers_the_resolution_within_the_grace(
        res: Res, world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_fetch(monkeypatch, SourceError("connection refused", retryable=True))
    rid = _open_round(res, world, timedelta(seconds=5))
    assert threads.final_poll(res, rid, world.thread_id) is False  # 5 s < the 600 s grace
    assert _thread(res, world.thread_id).error_count == 1
    with session_scope(res.engine) as s:
        s.get(Round, rid).deadline = utcnow() - timedelta(seconds=601)
    assert threads.final_poll(res, rid, world.thread_id) is True  # past it: what is stored
    lease = res.leases.poll_lease(f"poll:{world.thread_id}", 60)
    with session_scope(res.engine) as s:
        s.get(Round, rid).deadline = utcnow() - timedelta(seconds=5)
    assert threads.final_poll(res, rid, world.thread_id) is False  # another worker polls
    lease.release()


def test_a_lasting_error_or_a_closed_round_does_not_wait(res: Res, world: World,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _fail_fetch(monkeypatch, SourceError("thread deleted (404)"))
    rid = _open_round(res, world, timedelta(seconds=5))
    assert threads.final_poll(res, rid, world.thread_id) is True  # retrying will not help
    with session_scope(res.engine) as s:
        s.get(Round, rid).state = "resolved"
    assert threads.final_poll(res, rid, world.thread_id) is True
