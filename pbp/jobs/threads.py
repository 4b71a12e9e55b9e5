"""Polling one watched thread: what is new is stored with the thread's new cursor.

Why the cursor is written here, with the posts, in one transaction: a poll that dies half
way leaves the old cursor, so the next poll reads the same posts again, and posts are
unique per (thread, platform id). The fetch itself happens between two transactions (no
database transaction is held over a network call) under the thread's lease, so two
workers never read one thread at once. Errors are the narrator's to see: a thread keeps
``error_count`` and ``last_error`` until a poll succeeds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..rounds import service
from ..settings import Settings
from ..sources.base import FetchResult, SourceError
from ..sources.factory import open_source
from ..store.db import reading, session_scope
from ..store.models import Round, Thread
from ..store.polling import last_post_times
from .groups import group_key
from .listings import learned_forum, listing_of
from .resources import Busy, Resources, error_note, utcnow
from .schedule import jittered

log = logging.getLogger("pbp.jobs.threads")

#: a listing-watched thread's full re-read (edits, deletions: they do not move a topic's
#: last post) comes after this share of the time it has been quiet (SCALE-2): a thread
#: whose last post is 40 min old is re-read every 10 min, one quiet for two days every
#: ``full_reread_hours`` (the bound on the oldest unchecked), a busy one every
#: :data:`RECHECK_MIN_FACTOR` poll intervals
RECHECK_QUIET_SHARE = 0.25
RECHECK_MIN_FACTOR = 3
#: the bound when ``full_reread_hours`` is 0 (never a forced re-read of every page)
RECHECK_MAX_SECONDS = 6 * 3600.0
#: kept for callers that spoke of the old fixed fraction: the recheck of a thread quiet
#: for about 40 poll intervals
RECHECK_FACTOR = 10


def recheck_interval(interval: float, quiet_for: float, settings: Settings) -> float:
    """Seconds until a listing-watched thread is read in full again (SCALE-2): in
    proportion to how long it has been quiet, between a few poll intervals and the bound.

    >>> s = Settings(full_reread_hours=6.0)
    >>> recheck_interval(60, 0, s), recheck_interval(60, 2400, s), recheck_interval(60, 2 * 86400, s)
    (180.0, 600.0, 21600.0)
    """
    bound = settings.full_reread_hours * 3600 if settings.full_reread_hours > 0 else RECHECK_MAX_SECONDS
    low = RECHECK_MIN_FACTOR * float(interval)
    return max(low, min(bound, RECHECK_QUIET_SHARE * max(0.0, quiet_for)))


def poll_interval(thread: Thread, settings: Settings) -> float:
    """Seconds between two polls of *thread*: its own ``poll_interval`` or the setting."""
    return float((thread.options or {}).get("poll_interval") or settings.poll_interval)


def schedule_due_polls(session: Session, now: datetime, settings: Settings) -> list[tuple[int, float]]:
    """Move every active thread whose next poll has come to its next (jittered) poll time;
    (thread id, interval) for each, so the caller sends one poll that expires with it.

    A thread watched through its forum's topic list is read in full only as often as its
    activity asks (:func:`recheck_interval`): the list says when it grew. A Reddit thread of a
    subreddit group (:mod:`.groups`) is not sent at all: its subreddit's cycle reads it. On PostgreSQL the rows
    are locked (``SKIP LOCKED``), so two dispatchers never send the same thread twice.
    """
    q = (select(Thread).where(Thread.active.is_(True))
         .where((Thread.next_poll.is_(None)) | (Thread.next_poll <= now))
         .order_by(Thread.next_poll).limit(5000))
    if session.get_bind().dialect.name == "postgresql":
        q = q.with_for_update(skip_locked=True)
    due = []
    threads = list(session.scalars(q))
    listed = {t.id for t in threads
              if listing_of(t.kind, t.url, dict(t.options or {}), learned_forum(t.cursor)).url is not None}
    last_posts = last_post_times(session, sorted(listed))
    for t in threads:
        interval = poll_interval(t, settings)
        if t.id in listed:
            quiet_since = last_posts.get(t.id) or t.created_at or now
            interval = recheck_interval(interval, (now - _aware(quiet_since)).total_seconds(),
                                        settings)
        t.next_poll = now + timedelta(seconds=jittered(interval))
        if group_key(t, settings) is None:   # a subreddit's threads go by its listing
            due.append((t.id, interval))
    return due


def _aware(at: datetime) -> datetime:
    """SQLite hands back naive UTC times."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Target:
    """What opening a thread's source takes, read in one short transaction."""

    kind: str
    url: str
    options: dict[str, Any]
    cursor: Any


#: the threads table itself: an idle poll's read and write are Core statements (SCALE-3)
_THREADS = cast(Table, Thread.__table__)
_TARGET = (select(_THREADS.c.kind, _THREADS.c.url, _THREADS.c.options, _THREADS.c.cursor)
           .where(_THREADS.c.id == bindparam("tid"), _THREADS.c.active.is_(True)))
#: an idle poll's one write, built once (its compiled form is cached): the cursor,
#: ``last_poll`` and the cleared errors
_STORE = (update(_THREADS).where(_THREADS.c.id == bindparam("tid"))
          .values(cursor=bindparam("new_cursor", type_=_THREADS.c.cursor.type),
                  last_poll=bindparam("polled_at", type_=_THREADS.c.last_poll.type),
                  error_count=0, last_error=None))


def poll_target(session: Session | Connection, thread_id: int) -> Target | None:
    """The source and cursor of an active thread; None when it is gone or inactive.
    One Core SELECT of four columns, no ORM object (an idle poll's read, SCALE-3)."""
    row = session.execute(_TARGET, {"tid": thread_id}).first()
    if row is None:
        return None
    return Target(row.kind, row.url, dict(row.options or {}), row.cursor)


def store_poll(session: Session | Connection, thread_id: int, result: FetchResult,
               now: datetime) -> list[int]:
    """Store a fetch's posts with its cursor; a good poll clears the thread's errors.

    The cursor, ``last_poll`` and the cleared errors go in one UPDATE, in the caller's one
    transaction with the posts: an idle poll is one write transaction of one statement
    (SCALE-3), no ORM load and flush of the row."""
    post_ids: list[int] = []
    if result.posts:
        assert isinstance(session, Session), "posts are ingested through the ORM"
        post_ids = list(service.ingest_posts(session, thread_id, list(result.posts)))
    session.execute(_STORE, {"tid": thread_id, "new_cursor": dict(result.cursor), "polled_at": now})
    return post_ids


def record_thread_error(session: Session, thread_id: int, exc: BaseException,
                        retry_in: float | None, now: datetime) -> None:
    """Count a failed poll and show its cause; *retry_in* seconds moves the next poll."""
    t = session.get(Thread, thread_id)
    if t is None:
        return
    t.error_count = (t.error_count or 0) + 1
    t.last_error = error_note(exc, now)
    if retry_in is not None:
        t.next_poll = now + timedelta(seconds=retry_in)


def fetch_and_store(res: Resources, thread_id: int) -> int | None:
    """Fetch what is new in one thread and store it with the new cursor, under its lease:
    the number of posts stored, None when the thread is gone or inactive. Raises
    :class:`~pbp.jobs.resources.Busy` when the thread is leased elsewhere and the source's
    errors as they are."""
    lease = res.leases.poll_lease(f"poll:{thread_id}", res.settings.poll_lease_ttl)
    if not lease:
        raise Busy(thread_id)
    try:
        with reading(res.engine).connect() as conn:   # a read: no write lock, no ORM session
            target = poll_target(conn, thread_id)
        if target is None:
            return None
        source = open_source(target.kind, target.url, target.options, res.settings)
        result = source.fetch(target.cursor)
        if result.posts:
            with session_scope(res.engine) as s:
                stored = store_poll(s, thread_id, result, utcnow())
        else:                                       # idle: one UPDATE, one transaction
            with res.engine.begin() as conn:
                stored = store_poll(conn, thread_id, result, utcnow())
        # An idle poll is the common case (every few seconds per thread): DEBUG, not INFO.
        log.log(logging.INFO if result.posts else logging.DEBUG, "polled",
                extra={"new": len(result.posts), "requests": result.requests,
                       "bytes": result.bytes, "not_modified": result.not_modified})
        return len(stored)
    finally:
        lease.release()


@dataclass(frozen=True)
class PollOutcome:
    """What a poll did: posts stored, or a platform error to retry after ``retry_in``."""

    stored: int = 0
    retry_in: float | None = None
    error: SourceError | None = None


def poll_thread(res: Resources, thread_id: int, retries: int = 0) -> PollOutcome:
    """One poll of a thread, its failure recorded for the narrator. *retries* is how many
    times this poll already failed: a retryable error below ``retry_max`` asks for a retry
    (``retry_in``); past it, or not retryable (404, login refused, layout changed), the
    thread keeps its schedule after a long pause. An unreadable or misconfigured source (a
    broken scenario file, a ConfigError) is shown and waits the same long pause: a
    permanent error is never retried every poll."""
    try:
        return PollOutcome(stored=fetch_and_store(res, thread_id) or 0)
    except Busy:
        log.info("poll skipped: another worker holds the thread")
    except SourceError as exc:
        return _poll_failed(res, thread_id, exc, retries)
    except PbpError as exc:   # permanent (a ConfigError): shown, and the next poll waits long
        with session_scope(res.engine) as s:
            record_thread_error(s, thread_id, exc, res.backoff(res.settings.retry_max), utcnow())
        log.error("poll failed", extra={"error": str(exc)})
    return PollOutcome()


def _poll_failed(res: Resources, thread_id: int, exc: SourceError, retries: int) -> PollOutcome:
    retry_max = res.settings.retry_max
    if exc.retryable and retries < retry_max:
        delay = res.backoff(retries, exc.retry_after)
        with session_scope(res.engine) as s:
            record_thread_error(s, thread_id, exc, delay, utcnow())
        log.warning("poll failed; retrying", extra={"error": str(exc), "retry_in": round(delay, 1),
                                                    "attempt": retries + 1})
        return PollOutcome(retry_in=delay, error=exc)
    with session_scope(res.engine) as s:
        record_thread_error(s, thread_id, exc, res.backoff(retry_max, exc.retry_after), utcnow())
    log.error("poll failed", extra={"error": str(exc), "retryable": exc.retryable})
    return PollOutcome(error=exc)


def thread_of_round(session: Session, round_id: int) -> int | None:
    rnd = session.get(Round, round_id)
    return rnd.encounter.thread_id if rnd is not None else None


def final_poll(res: Resources, round_id: int, thread_id: int) -> bool:
    """Read the thread once more before resolving, so a post made before the deadline but
    not yet polled (a worker backlog, a broker or platform outage) still counts.

    Returns False when the resolution is deferred: the platform failed and the round is
    less than the ``final_poll_grace`` setting past its deadline. Nothing is scheduled: the
    round stays due, so the next sweep tries again (a per-message retry count would restart
    with every sweep); past the grace it is resolved with what is stored.
    """
    with session_scope(res.engine) as s:
        rnd = s.get(Round, round_id)
        if rnd is None or rnd.state != "open":
            return True
        overdue = (utcnow() - rnd.deadline).total_seconds()
    try:
        fetch_and_store(res, thread_id)
        return True
    except Busy:
        reason = "another worker is polling the thread"
    except SourceError as exc:
        if not exc.retryable:
            log.warning("final poll failed; resolving with what is stored", extra={"error": str(exc)})
            return True
        with session_scope(res.engine) as s:
            record_thread_error(s, thread_id, exc, None, utcnow())
        reason = str(exc)
    except PbpError as exc:   # a ConfigError will not heal by the next sweep: resolve now
        with session_scope(res.engine) as s:
            record_thread_error(s, thread_id, exc, res.backoff(res.settings.retry_max), utcnow())
        log.warning("final poll failed; resolving with what is stored", extra={"error": str(exc)})
        return True
    if overdue >= res.settings.final_poll_grace:
        log.warning("final poll failed past the grace; resolving with what is stored",
                    extra={"error": reason})
        return True
    log.info("resolution waits for the thread's last poll (next sweep)", extra={"error": reason})
    return False
