"""Thin tasks: ids in, the service layer (pbp.rounds.service) does the work.

What each task may assume about delivery (Celery delivers at least once) and why its
``acks_late`` is what it is:

==================  =========  ===============================================================
task                acks_late  a re-run is...
==================  =========  ===============================================================
dispatch_polls      no         periodic; a lost one is replaced by the next beat tick
watch_forum         yes        harmless: reads a topic list, sends polls (leased)
sweep_deadlines     no         periodic; same
poll_thread         yes        harmless: the thread lease serialises polls, posts are unique
                               per (thread, platform id), the cursor is saved with the posts
ingest_posts        yes        harmless: same uniqueness
send_reminder       yes        harmless: the reminder reply's idempotency key is unique
resolve_round       yes        harmless: a resolved round is not resolved again, and its
                               reply's idempotency key is unique
deliver_reply       no         NOT harmless if the platform is slow to show the post; a lost
                               message leaves the reply pending in the outbox, and the next
                               sweep re-sends it (after a marker check on the platform)
==================  =========  ===============================================================

Platform errors (:class:`~pbp.sources.base.SourceError` with ``retryable``) retry with
exponential backoff and jitter, honouring ``retry_after``; after ``retry_max`` tries (a setting) the
thread or reply shows the cause (``last_error``) to the narrator. Nothing is dropped:
a failed reply stays in the outbox until a narrator re-queues or cancels it.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta, timezone
from typing import Any

from celery import shared_task
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError

from pbp.errors import PbpError
from pbp.logs import log_context
from pbp.settings import Settings
from pbp.sources.base import FetchResult, PostRecord, SourceError
from pbp.sources.factory import open_source
from pbp.store.db import session_scope
from pbp.store.models import Reply, Round, Thread

from . import runtime as rtm
from . import watch
from .runtime import enqueue_after_commit, jittered

log = logging.getLogger("workers.tasks")


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _service() -> Any:
    from pbp.rounds import service

    return service


def _rt(task: Any) -> rtm.Runtime:
    settings: Settings | None = getattr(task.app, "pbp_settings", None)
    return rtm.runtime(settings)


def _poll_interval(thread: Thread, settings: Settings) -> float:
    return float((thread.options or {}).get("poll_interval") or settings.poll_interval)


# --- periodic ------------------------------------------------------------------------------


@shared_task(name="pbp.dispatch_polls", bind=True, ignore_result=True)
def dispatch_polls(self: Any) -> int:
    """Enqueue a poll for every active thread whose own (jittered) next-poll time has come,
    and a topic-list check for every forum listing that is due (workers/watch.py)."""
    rt = _rt(self)
    now = _now()
    listings: dict[str, dict[str, Any]] = {}
    with session_scope(rt.engine) as s:
        q = (select(Thread).where(Thread.active.is_(True))
             .where((Thread.next_poll.is_(None)) | (Thread.next_poll <= now))
             .order_by(Thread.next_poll).limit(5000))
        if rt.engine.dialect.name == "postgresql":
            q = q.with_for_update(skip_locked=True)
        threads = list(s.scalars(q))
        for t in threads:
            interval = _poll_interval(t, rt.settings)
            if (t.options or {}).get("listing_url"):
                interval *= watch.RECHECK_FACTOR  # the listing says when it grew
            t.next_poll = now + timedelta(seconds=jittered(interval))
            enqueue_after_commit(s, poll_thread.si(t.id).set(expires=max(30.0, interval)))
        for (opts,) in s.execute(select(Thread.options).where(Thread.active.is_(True))):
            url = (opts or {}).get("listing_url")
            if url:
                listings.setdefault(url, dict(opts))
    claimed: list[str] = []
    if listings:
        watch.ensure_table(rt.engine)
        ts = now.timestamp()
        with rt.engine.begin() as conn:  # committed before anything is sent
            for url in watch.due_listings(conn, set(listings), ts):
                interval = float(listings[url].get("poll_interval") or rt.settings.poll_interval)
                if watch.claim_listing(conn, url, ts, ts + jittered(interval)):
                    claimed.append(url)
        for url in claimed:
            watch_forum.si(url).apply_async()
    sent = len(claimed)
    if threads or sent:
        log.debug("dispatched polls", extra={"count": len(threads), "listings": sent})
    return len(threads)


@shared_task(name="pbp.watch_forum", bind=True, acks_late=True, ignore_result=True)
def watch_forum(self: Any, listing_url: str) -> int:
    """Read a forum's topic list; poll only the watched threads whose last post changed."""
    rt = _rt(self)
    with log_context(listing=listing_url, task=self.request.id):
        lease = rt.leases.acquire(f"watch:{listing_url}", rt.settings.poll_lease_ttl)
        if not lease:
            return 0
        try:
            watch.ensure_table(rt.engine)
            with session_scope(rt.engine) as s:
                rows = [(t.id, t.url, dict(t.options or {})) for t in s.scalars(
                    select(Thread).where(Thread.active.is_(True)))
                    if (t.options or {}).get("listing_url") == listing_url]
            if not rows:
                return 0
            options = rows[0][2]
            by_topic: dict[str, list[int]] = {}
            for tid, url, opts in rows:
                topic = watch.topic_id(url, opts)
                if topic is not None:
                    by_topic.setdefault(topic, []).append(tid)
            interval = float(options.get("poll_interval") or rt.settings.poll_interval)
            with rt.engine.begin() as conn:
                state, _ = watch.load_state(conn, listing_url)
            try:
                result = watch.watcher_for(listing_url, options, rt.settings).changed(state or None)
            except SourceError as exc:
                delay = max(interval, rt.backoff(min(self.request.retries, 6), exc.retry_after))
                with rt.engine.begin() as conn:
                    watch.save_state(conn, listing_url, next_check=time.time() + delay,
                                     error=f"{type(exc).__name__}: {exc}"[:2000])
                log.warning("topic list failed", extra={"error": str(exc), "retry_in": round(delay, 1)})
                return 0
            due = sorted({tid for topic in result.changed for tid in by_topic.get(topic, ())})
            with rt.engine.begin() as conn:
                watch.save_state(conn, listing_url, state=dict(result.state),
                                 next_check=time.time() + jittered(interval))
            for tid in due:
                poll_thread.si(tid).apply_async()
            log.info("topic list read", extra={"changed": len(due), "requests": result.requests,
                                               "not_modified": result.not_modified})
            return len(due)
        finally:
            lease.release()


@shared_task(name="pbp.sweep_deadlines", bind=True, ignore_result=True)
def sweep_deadlines(self: Any) -> dict[str, int]:
    """Send what is due: reminders, rounds past their deadline, undelivered replies.

    Due times live in the database, so this catches everything a restart, a stopped
    beat or a lost message missed. Sending a task twice is harmless (see the table above).
    """
    rt = _rt(self)
    svc = _service()
    now = _now()
    expires = max(30, rt.settings.deadline_sweep_interval * 2)
    with session_scope(rt.engine) as s:
        reminders = list(svc.due_reminders(s, now))
        rounds = list(svc.due_rounds(s, now))
        replies = [rid for rid in svc.pending_replies(s)]
        waiting = {r.id for r in s.scalars(select(Reply).where(Reply.id.in_(replies),
                                                               Reply.not_before > now))} if replies else set()
        for rid in reminders:
            enqueue_after_commit(s, send_reminder.si(rid).set(expires=expires))
        for rid in rounds:
            enqueue_after_commit(s, resolve_round.si(rid).set(expires=expires))
        for rid in replies:
            if rid not in waiting:
                enqueue_after_commit(s, deliver_reply.si(rid).set(expires=expires))
    counts = {"reminders": len(reminders), "rounds": len(rounds),
              "replies": len(replies) - len(waiting)}
    if any(counts.values()):
        log.info("sweep sent due work", extra=counts)
    return counts


# --- polling -------------------------------------------------------------------------------


def _record_thread_error(rt: rtm.Runtime, thread_id: int, exc: BaseException, retry_in: float | None) -> None:
    with session_scope(rt.engine) as s:
        t = s.get(Thread, thread_id)
        if t is None:
            return
        t.error_count = (t.error_count or 0) + 1
        t.last_error = f"{_now():%Y-%m-%d %H:%M:%SZ} {type(exc).__name__}: {exc}"[:2000]
        if retry_in is not None:
            t.next_poll = _now() + timedelta(seconds=retry_in)


class _Busy(Exception):
    """Another worker holds the thread's lease."""


def _fetch_and_store(rt: rtm.Runtime, thread_id: int) -> tuple[FetchResult, int] | None:
    """Fetch what is new in one thread and store it with the new cursor, under its lease.
    None when the thread is gone or inactive; raises :class:`_Busy` when leased elsewhere
    and the source's errors as they are."""
    lease = rt.leases.acquire(f"poll:{thread_id}", rt.settings.poll_lease_ttl)
    if not lease:
        raise _Busy(thread_id)
    try:
        with session_scope(rt.engine) as s:
            t = s.get(Thread, thread_id)
            if t is None or not t.active:
                return None
            kind, url, options, cursor = t.kind, t.url, dict(t.options or {}), t.cursor
        source = open_source(kind, url, options, rt.settings)
        result: FetchResult = source.fetch(cursor)
        with session_scope(rt.engine) as s:
            post_ids = _service().ingest_posts(s, thread_id, list(result.posts)) if result.posts else []
            t = s.get(Thread, thread_id)
            t.cursor = dict(result.cursor)
            t.last_poll = _now()
            t.error_count = 0
            t.last_error = None
        # An idle poll is the common case (every few seconds per thread): DEBUG, not INFO.
        log.log(logging.INFO if result.posts else logging.DEBUG, "polled",
                extra={"new": len(result.posts), "requests": result.requests,
                       "bytes": result.bytes, "not_modified": result.not_modified})
        return result, len(post_ids)
    finally:
        lease.release()


@shared_task(name="pbp.poll_thread", bind=True, acks_late=True, ignore_result=True, max_retries=None)
def poll_thread(self: Any, thread_id: int) -> int:
    """Fetch what is new in one thread and store it with the new cursor, under a lease."""
    rt = _rt(self)
    with log_context(thread_id=thread_id, task=self.request.id):
        try:
            done = _fetch_and_store(rt, thread_id)
        except _Busy:
            log.info("poll skipped: another worker holds the thread")
            return 0
        except SourceError as exc:
            return _retry_or_give_up(self, rt, thread_id, exc)
        except PbpError as exc:  # unreadable source (a broken scenario file): visible, no retry
            _record_thread_error(rt, thread_id, exc, None)
            log.error("poll failed", extra={"error": str(exc)})
            return 0
        return done[1] if done else 0


def _retry_or_give_up(task: Any, rt: rtm.Runtime, thread_id: int, exc: SourceError) -> int:
    retries = task.request.retries
    if exc.retryable and retries < rt.settings.retry_max:
        delay = rt.backoff(retries, exc.retry_after)
        _record_thread_error(rt, thread_id, exc, delay)
        log.warning("poll failed; retrying", extra={"error": str(exc), "retry_in": round(delay, 1),
                                                    "attempt": retries + 1})
        raise task.retry(countdown=delay, exc=exc, max_retries=rt.settings.retry_max)
    # Not retryable (404, login refused, layout changed) or out of tries: visible, and the
    # thread keeps its schedule (the next poll tries again after a long pause).
    _record_thread_error(rt, thread_id, exc, rt.backoff(rt.settings.retry_max, exc.retry_after))
    log.error("poll failed", extra={"error": str(exc), "retryable": exc.retryable})
    return 0


@shared_task(name="pbp.ingest_posts", bind=True, acks_late=True, ignore_result=True)
def ingest_posts(self: Any, thread_id: int, records: list[dict[str, Any]]) -> list[int]:
    """Store posts that came from elsewhere (a batch poller, a pasted post) for a thread."""
    rt = _rt(self)
    with log_context(thread_id=thread_id, task=self.request.id):
        posts = [_record(r) for r in records]
        with session_scope(rt.engine) as s:
            ids = list(_service().ingest_posts(s, thread_id, posts))
        log.info("ingested", extra={"new": len(ids)})
        return ids


def record_to_json(p: PostRecord) -> dict[str, Any]:
    return {"platform_id": p.platform_id, "author": p.author, "posted_at": p.posted_at.isoformat(),
            "body": p.body, "text": p.text, "fmt": p.fmt, "change": p.change, "revision": p.revision,
            "edited_at": p.edited_at.isoformat() if p.edited_at else None, "url": p.url,
            "extra": dict(p.extra)}


def _record(d: dict[str, Any]) -> PostRecord:
    d = dict(d)
    d["posted_at"] = datetime.fromisoformat(d["posted_at"])
    if d.get("edited_at"):
        d["edited_at"] = datetime.fromisoformat(d["edited_at"])
    return PostRecord(**d)


# --- rounds ------------------------------------------------------------------------------------


def _thread_of_round(rt: rtm.Runtime, round_id: int) -> int | None:
    with session_scope(rt.engine) as s:
        rnd = s.get(Round, round_id)
        return rnd.encounter.thread_id if rnd is not None else None


def _enqueue_round_replies(s: Any, round_id: int) -> None:
    for rid in s.scalars(select(Reply.id).where(Reply.round_id == round_id, Reply.state == "pending")):
        enqueue_after_commit(s, deliver_reply.si(rid))


@shared_task(name="pbp.send_reminder", bind=True, acks_late=True, ignore_result=True)
def send_reminder(self: Any, round_id: int) -> None:
    """Queue the reminder of a round whose reminder time has come; then deliver it."""
    rt = _rt(self)
    with log_context(thread_id=_thread_of_round(rt, round_id), round_id=round_id, task=self.request.id):
        try:
            with session_scope(rt.engine) as s:
                _service().send_reminder(s, round_id, _now())
                _enqueue_round_replies(s, round_id)
        except IntegrityError:
            log.info("reminder already queued")  # a concurrent run won: nothing to do
            return
        log.info("reminder queued")


@shared_task(name="pbp.resolve_round", bind=True, acks_late=True, ignore_result=True,
             autoretry_for=(OperationalError,), retry_backoff=2, retry_backoff_max=60,
             retry_jitter=True, max_retries=10)
def resolve_round(self: Any, round_id: int) -> None:
    """Resolve a round whose deadline has passed; its reply goes to the outbox, then out."""
    rt = _rt(self)
    thread_id = _thread_of_round(rt, round_id)
    with log_context(thread_id=thread_id, round_id=round_id, task=self.request.id):
        if thread_id is not None and not _final_poll(self, rt, round_id, thread_id):
            return
        try:
            with session_scope(rt.engine) as s:
                _service().resolve_round(s, round_id, _now())
                _enqueue_round_replies(s, round_id)
        except IntegrityError:
            log.info("round already resolved by another worker")
            return
        log.info("round resolved")


def _final_poll(task: Any, rt: rtm.Runtime, round_id: int, thread_id: int) -> bool:
    """Read the thread once more before resolving, so a post made before the deadline but
    not yet polled (a worker backlog, a broker or platform outage) still counts.

    Returns False when the resolution is deferred: the platform failed and the round is
    less than the ``final_poll_grace`` setting past its deadline. Nothing is scheduled: the round stays
    due, so the next sweep tries again (a per-message retry count would restart with every
    sweep); past the grace it is resolved with what is stored.
    """
    with session_scope(rt.engine) as s:
        rnd = s.get(Round, round_id)
        if rnd is None or rnd.state != "open":
            return True
        overdue = (_now() - rnd.deadline).total_seconds()
    try:
        _fetch_and_store(rt, thread_id)
        return True
    except _Busy:
        reason = "another worker is polling the thread"
    except SourceError as exc:
        if not exc.retryable:
            log.warning("final poll failed; resolving with what is stored", extra={"error": str(exc)})
            return True
        _record_thread_error(rt, thread_id, exc, None)
        reason = str(exc)
    if overdue >= rt.settings.final_poll_grace:
        log.warning("final poll failed past the grace; resolving with what is stored",
                    extra={"error": reason})
        return True
    log.info("resolution waits for the thread's last poll (next sweep)", extra={"error": reason})
    return False


# --- delivery ------------------------------------------------------------------------------------


@shared_task(name="pbp.deliver_reply", bind=True, acks_late=False, ignore_result=True, max_retries=None)
def deliver_reply(self: Any, reply_id: int) -> str | None:
    """Post one outbox reply once: the service checks the platform for the marker first."""
    rt = _rt(self)
    with session_scope(rt.engine) as s:
        reply = s.get(Reply, reply_id)
        if reply is None or reply.state not in ("pending", "sending", "failed"):
            return None
        thread = s.get(Thread, reply.thread_id)
        thread_id, round_id = thread.id, reply.round_id
        kind, url, options = thread.kind, thread.url, dict(thread.options or {})
    with log_context(thread_id=thread_id, round_id=round_id, reply_id=reply_id, task=self.request.id):
        lease = rt.leases.acquire(f"reply:{reply_id}", rt.settings.poll_lease_ttl)
        if not lease:
            log.info("delivery skipped: another worker is delivering this reply")
            return None
        try:
            source = open_source(kind, url, options, rt.settings)
            try:
                with session_scope(rt.engine) as s:
                    platform_id = _service().deliver_reply(s, reply_id, source)
            except SourceError as exc:
                return _delivery_failed(self, rt, reply_id, exc)
            log.info("reply delivered", extra={"platform_id": platform_id})
            return platform_id
        finally:
            lease.release()


def _delivery_failed(task: Any, rt: rtm.Runtime, reply_id: int, exc: SourceError) -> None:
    retries = task.request.retries
    retry = exc.retryable and retries < rt.settings.retry_max
    delay = rt.backoff(retries, exc.retry_after) if retry else None
    with session_scope(rt.engine) as s:
        reply = s.get(Reply, reply_id)
        reply.attempts = (reply.attempts or 0) + 1
        reply.last_error = f"{_now():%Y-%m-%d %H:%M:%SZ} {type(exc).__name__}: {exc}"[:2000]
        if retry:
            reply.state = "pending"
            reply.not_before = _now() + timedelta(seconds=delay)
        else:
            reply.state = "failed"  # kept in the outbox, cause shown; a narrator re-queues it
    if retry:
        log.warning("delivery failed; retrying", extra={"error": str(exc), "retry_in": round(delay, 1),
                                                        "attempt": retries + 1})
        raise task.retry(countdown=delay, exc=exc, max_retries=rt.settings.retry_max)
    log.error("delivery failed; held for the narrator", extra={"error": str(exc)})
    return None
