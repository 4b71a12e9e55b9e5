"""The outbox's delivery attempts: one reply posted under its lease, a failure recorded.

Why here and not in :mod:`pbp.rounds.outbox`: the outbox decides *what* goes out and
checks the platform for the reply's marker before posting; this module holds what a
worker adds around it — the reply's lease (two workers never post one reply at once),
and on a platform error the attempt count, the cause (``last_error``) and the time
before the next try (``not_before``), or ``failed`` for the narrator once retries run out.
Nothing is dropped: a failed reply stays in the outbox until a narrator re-queues or
cancels it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..logs import log_context
from ..rounds import ladder, service
from ..sources.base import SentUnconfirmed, SourceError
from ..sources.factory import open_source
from ..store.db import session_scope
from ..store.models import Reply, Thread
from . import notify
from .resources import Resources, error_note, utcnow

log = logging.getLogger("pbp.jobs.delivery")

#: a reply in one of these states may be (re)tried; ``held``, ``sent``, ``cancelled`` not
DELIVERABLE = ("pending", "sending", "failed")


@dataclass(frozen=True)
class DueWork:
    """What the deadline sweep sends: reminders, rounds past their deadline, replies."""

    reminders: list[int]
    rounds: list[int]
    replies: list[int]
    waiting: int = 0  # pending replies whose next try (``not_before``) has not come
    #: STALL-3: rounds whose T−y notifications are due, and notifications to send
    notify_rounds: tuple[int, ...] = ()
    notes: tuple[int, ...] = ()


def due_work(session: Session, now: datetime) -> DueWork:
    """Everything due at *now*. Due times live in the database, so this catches what a
    restart, a stopped beat or a lost message missed."""
    pending = service.pending_replies(session)
    waiting = set(session.scalars(select(Reply.id).where(Reply.id.in_(pending),
                                                         Reply.not_before > now))) if pending else set()
    return DueWork(reminders=list(service.due_reminders(session, now)),
                   rounds=list(service.due_rounds(session, now)),
                   replies=[rid for rid in pending if rid not in waiting], waiting=len(waiting),
                   notify_rounds=tuple(ladder.due_notifications(session, now)),
                   notes=tuple(notify.due_notes(session, now)))


def pending_round_replies(session: Session, round_id: int) -> list[int]:
    """The replies of a round waiting in the outbox (after a reminder or a resolution)."""
    return list(session.scalars(select(Reply.id).where(Reply.round_id == round_id,
                                                       Reply.state == "pending")))


def record_delivery_failure(session: Session, reply_id: int, exc: BaseException,
                            retry_in: float | None, now: datetime) -> None:
    """Count the attempt and show its cause: pending again after *retry_in* seconds, or
    ``failed`` (kept in the outbox, cause shown; a narrator re-queues it) when None."""
    reply = session.get_one(Reply, reply_id)
    reply.attempts = (reply.attempts or 0) + 1
    reply.last_error = error_note(exc, now)
    if retry_in is not None:
        # sent but unconfirmed stays "sending": the next try looks, it does not post again
        unconfirmed = isinstance(exc, SentUnconfirmed) or reply.state == "sending"
        reply.state = "sending" if unconfirmed else "pending"
        reply.not_before = now + timedelta(seconds=retry_in)
    else:
        reply.state = "failed"


@dataclass(frozen=True)
class DeliveryOutcome:
    """The platform id of the posted reply, or a platform error to retry after ``retry_in``."""

    platform_id: str | None = None
    retry_in: float | None = None
    error: SourceError | None = None


def deliver(res: Resources, reply_id: int, retries: int = 0) -> DeliveryOutcome:
    """Post one outbox reply once, under its lease (the outbox checks the platform for the
    marker first). *retries* is how many times this delivery already failed: a retryable
    error below ``retry_max`` asks for a retry (``retry_in``), any other is held for the
    narrator."""
    with session_scope(res.engine) as s:
        reply = s.get(Reply, reply_id)
        if reply is None or reply.state not in DELIVERABLE:
            return DeliveryOutcome()
        thread = s.get_one(Thread, reply.thread_id)
        thread_id, round_id = thread.id, reply.round_id
        kind, url, options = thread.kind, thread.url, dict(thread.options or {})
    with log_context(thread_id=thread_id, round_id=round_id, reply_id=reply_id):
        lease = res.leases.acquire(f"reply:{reply_id}", res.settings.poll_lease_ttl)
        if not lease:
            log.info("delivery skipped: another worker is delivering this reply")
            return DeliveryOutcome()
        try:
            try:
                source = open_source(kind, url, options, res.settings)
                with session_scope(res.engine) as s:
                    platform_id = service.deliver_reply(s, reply_id, source)
            except SourceError as exc:
                return _delivery_failed(res, reply_id, exc, retries)
            except PbpError as exc:
                return _misconfigured(res, reply_id, exc)
            log.info("reply delivered", extra={"platform_id": platform_id})
            return DeliveryOutcome(platform_id=platform_id)
        finally:
            lease.release()


def _delivery_failed(res: Resources, reply_id: int, exc: SourceError, retries: int) -> DeliveryOutcome:
    retry = exc.retryable and retries < res.settings.retry_max
    delay = res.backoff(retries, exc.retry_after) if retry else None
    with session_scope(res.engine) as s:
        record_delivery_failure(s, reply_id, exc, delay, utcnow())
    if delay is not None:
        log.warning("delivery failed; retrying", extra={"error": str(exc), "retry_in": round(delay, 1),
                                                        "attempt": retries + 1})
        return DeliveryOutcome(retry_in=delay, error=exc)
    log.error("delivery failed; held for the narrator", extra={"error": str(exc)})
    return DeliveryOutcome(error=exc)


def _misconfigured(res: Resources, reply_id: int, exc: PbpError) -> DeliveryOutcome:
    """A permanent error (a ConfigError: no credentials, a bad source): shown on the reply
    and tried again only after the longest back-off, never at every sweep; it goes out by
    itself once the operator fixes the configuration."""
    delay = res.backoff(res.settings.retry_max)
    with session_scope(res.engine) as s:
        record_delivery_failure(s, reply_id, exc, delay, utcnow())
    log.error("delivery misconfigured; waiting", extra={"error": str(exc), "retry_in": round(delay, 1)})
    return DeliveryOutcome()
