"""Thin tasks: ids in, one call to the service layer (pbp.jobs, over pbp.rounds.service).

What each task may assume about delivery (Celery delivers at least once) and why its
``acks_late`` is what it is:

==================  =========  ===============================================================
task                acks_late  a re-run is...
==================  =========  ===============================================================
dispatch_polls      no         periodic; a lost one is replaced by the next beat tick
watch_forum         yes        harmless: reads a topic list, sends polls (leased)
watch_subreddit     yes        harmless: one subreddit's cycle under its lease; cursors are
                               saved with the posts, as for poll_thread
sweep_deadlines     no         periodic; same
heartbeat           no         periodic; a row overwritten (issue 18)
weekly_owes         no         periodic; the list's key is one per campaign and ISO week
poll_thread         yes        harmless: the thread lease serialises polls, posts are unique
                               per (thread, platform id), the cursor is saved with the posts
ingest_posts        yes        harmless: same uniqueness
send_reminder       yes        harmless: the reminder reply's idempotency key is unique
queue_notifications yes        harmless: a notification's key (round:player:step) is unique
deliver_notif...    no         leased, ``sending`` committed first; a retry after a 429 or an
                               outage comes from the row's ``not_before`` (the next sweep)
resolve_round       yes        harmless: a resolved round is not resolved again, and its
                               reply's idempotency key is unique
deliver_reply       no         NOT harmless if the platform is slow to show the post; a lost
                               message leaves the reply pending in the outbox, and the next
                               sweep re-sends it (after a marker check on the platform)
==================  =========  ===============================================================

Platform errors (:class:`~pbp.sources.base.SourceError` with ``retryable``) retry with
exponential backoff and jitter, honouring ``retry_after``; after ``retry_max`` tries (a setting) the
thread or reply shows the cause (``last_error``) to the narrator. Nothing is dropped:
a failed reply stays in the outbox until a narrator re-queues or cancels it. The service
records each failure and says how long to wait; a task only turns that into a Celery
retry, and sends what the service says is due once its transaction has committed.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from sqlalchemy.exc import OperationalError

from pbp.jobs import (
    deadlines,
    delivery,
    dispatch,
    health,
    listings,
    notify,
    subreddits,
    threads,
    weekly,
)
from pbp.jobs.resources import utcnow
from pbp.logs import log_context
from pbp.rounds import service
from pbp.settings import Settings
from pbp.sources.base import PostRecord
from pbp.store.db import session_scope

from . import runtime as rtm
from .runtime import enqueue_after_commit

log = logging.getLogger("workers.tasks")


def _rt(task: Any) -> rtm.Runtime:
    settings: Settings | None = getattr(task.app, "pbp_settings", None)
    return rtm.runtime(settings)


def _deliver_all(reply_ids: list[int]) -> None:
    rtm.send(deliver_reply.si(rid) for rid in reply_ids)


# --- periodic ------------------------------------------------------------------------------


@shared_task(name="pbp.dispatch_polls", bind=True, ignore_result=True)
def dispatch_polls(self: Any) -> int:
    """Enqueue a poll for every active thread whose own (jittered) next-poll time has come,
    a topic-list check for every forum listing that is due (pbp/jobs/listings.py) and a
    cycle for every subreddit group that is due (pbp/jobs/subreddits.py)."""
    due = dispatch.due_polls(_rt(self), utcnow())
    rtm.send(poll_thread.si(tid).set(expires=max(30.0, interval)) for tid, interval in due.threads)
    for url in due.listings:
        watch_forum.si(url).apply_async()
    for key in due.subreddits:
        watch_subreddit.si(key).apply_async()
    if due.threads or due.listings or due.subreddits:
        log.debug("dispatched polls", extra={"count": len(due.threads), "listings": len(due.listings),
                                             "subreddits": len(due.subreddits)})
    return len(due.threads)


@shared_task(name="pbp.watch_forum", bind=True, acks_late=True, ignore_result=True)
def watch_forum(self: Any, listing_url: str) -> int:
    """Read a forum's topic list; poll only the watched threads whose last post changed."""
    with log_context(listing=listing_url, task=self.request.id):
        due = listings.check_listing(_rt(self), listing_url, self.request.retries)
        for tid in due:
            poll_thread.si(tid).apply_async()
        return len(due)


@shared_task(name="pbp.watch_subreddit", bind=True, acks_late=True, ignore_result=True)
def watch_subreddit(self: Any, key: str) -> int:
    """One listing call for every watched submission of a subreddit (issue 17 item 1)."""
    with log_context(listing=key, task=self.request.id):
        return subreddits.check_subreddit(_rt(self), key, self.request.retries)


@shared_task(name="pbp.sweep_deadlines", bind=True, ignore_result=True)
def sweep_deadlines(self: Any) -> dict[str, int]:
    """Send what is due: reminders, rounds past their deadline, undelivered replies.

    Due times live in the database, so this catches everything a restart, a stopped
    beat or a lost message missed. Sending a task twice is harmless (see the table above).
    """
    rt = _rt(self)
    expires = max(30, rt.settings.deadline_sweep_interval * 2)
    with session_scope(rt.engine) as s:
        due = delivery.due_work(s, utcnow())
        for sig in ([send_reminder.si(rid) for rid in due.reminders]
                    + [resolve_round.si(rid) for rid in due.rounds]
                    + [deliver_reply.si(rid) for rid in due.replies]
                    + [queue_notifications.si(rid) for rid in due.notify_rounds]
                    + [deliver_notification.si(nid) for nid in due.notes]):
            enqueue_after_commit(s, sig.set(expires=expires))
    counts = {"reminders": len(due.reminders), "rounds": len(due.rounds), "replies": len(due.replies),
              "notify_rounds": len(due.notify_rounds), "notifications": len(due.notes)}
    if any(counts.values()):
        log.info("sweep sent due work", extra=counts)
    return counts


@shared_task(name="pbp.heartbeat", bind=True, ignore_result=True)
def heartbeat(self: Any) -> None:
    """Say "this worker takes tasks from the rounds queue": ``worker:<hostname>``'s row, read
    by the dashboard, ``pbp status`` and ``/healthz`` (pbp/jobs/health.py)."""
    health.record(_rt(self).engine, f"worker:{self.request.hostname or 'worker'}", "worker")


@shared_task(name="pbp.weekly_owes", bind=True, ignore_result=True)
def weekly_owes(self: Any) -> int:
    """STALL-9: queue each campaign's weekly who-owes-a-post list when its weekday and hour
    have come (once per ISO week), then deliver it (after the commit)."""
    queued = weekly.post_weekly_owes(_rt(self), utcnow())
    _deliver_all(queued)
    return len(queued)


# --- polling -------------------------------------------------------------------------------


@shared_task(name="pbp.poll_thread", bind=True, acks_late=True, ignore_result=True, max_retries=None,
             send_events=False)
def poll_thread(self: Any, thread_id: int) -> int:
    """Fetch what is new in one thread and store it with the new cursor, under a lease.

    No task events (SCALE-3): a poll every few seconds per thread, most of them idle,
    would be three event messages each (received, started, succeeded), a tenth of the
    worker's CPU a poll; Flower still shows every other task, and a thread's polls, errors
    and lag are on the campaign page and in ``pbp status``."""
    rt = _rt(self)
    with log_context(thread_id=thread_id, task=self.request.id):
        outcome = threads.poll_thread(rt, thread_id, self.request.retries)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in, exc=outcome.error, max_retries=rt.settings.retry_max)
    return outcome.stored


@shared_task(name="pbp.ingest_posts", bind=True, acks_late=True, ignore_result=True)
def ingest_posts(self: Any, thread_id: int, records: list[dict[str, Any]]) -> list[int]:
    """Store posts that came from elsewhere (a batch poller, a pasted post) for a thread."""
    rt = _rt(self)
    with log_context(thread_id=thread_id, task=self.request.id):
        with session_scope(rt.engine) as s:
            ids = list(service.ingest_posts(s, thread_id, [PostRecord.from_json(r) for r in records]))
        log.info("ingested", extra={"new": len(ids)})
        return ids


# --- rounds ------------------------------------------------------------------------------------


@shared_task(name="pbp.send_reminder", bind=True, acks_late=True, ignore_result=True)
def send_reminder(self: Any, round_id: int) -> None:
    """Queue the reminder of a round whose reminder time has come; then deliver it."""
    with log_context(round_id=round_id, task=self.request.id):
        _deliver_all(deadlines.send_reminder(_rt(self), round_id))


@shared_task(name="pbp.resolve_round", bind=True, acks_late=True, ignore_result=True,
             autoretry_for=(OperationalError,), retry_backoff=2, retry_backoff_max=60,
             retry_jitter=True, max_retries=10)
def resolve_round(self: Any, round_id: int) -> None:
    """Resolve a round whose deadline has passed; its reply goes to the outbox, then out."""
    with log_context(round_id=round_id, task=self.request.id):
        _deliver_all(deadlines.resolve_round(_rt(self), round_id))


# --- delivery ------------------------------------------------------------------------------------


@shared_task(name="pbp.deliver_reply", bind=True, acks_late=False, ignore_result=True, max_retries=None)
def deliver_reply(self: Any, reply_id: int) -> str | None:
    """Post one outbox reply once: the service checks the platform for the marker first."""
    rt = _rt(self)
    with log_context(reply_id=reply_id, task=self.request.id):
        outcome = delivery.deliver(rt, reply_id, self.request.retries)
    if outcome.retry_in is not None:
        raise self.retry(countdown=outcome.retry_in, exc=outcome.error, max_retries=rt.settings.retry_max)
    return outcome.platform_id


# --- STALL-3: direct notifications ----------------------------------------------------------


@shared_task(name="pbp.queue_notifications", bind=True, acks_late=True, ignore_result=True)
def queue_notifications(self: Any, round_id: int) -> None:
    """Queue a round's T−y direct notifications (once); then send them."""
    with log_context(round_id=round_id, task=self.request.id):
        for nid in notify.queue_notifications(_rt(self), round_id):
            deliver_notification.delay(nid)


@shared_task(name="pbp.deliver_notification", bind=True, acks_late=False, ignore_result=True)
def deliver_notification(self: Any, notification_id: int) -> str | None:
    """Send one notification once; a failed try waits in the row for the next sweep."""
    with log_context(notification_id=notification_id, task=self.request.id):
        return notify.deliver_notification(_rt(self), notification_id).platform_id
