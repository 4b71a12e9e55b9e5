"""STALL-3's notifications outbox, as a worker meets it: queue a round's direct
notifications at T−y, and send one under its lease, exactly once.

Why exactly once holds: the notification's ``key`` is unique (a second sweep or worker
queuing the same round raises IntegrityError, and does nothing); a send is leased, and the
row is ``sending`` (committed) before the platform is asked. A platform error — an outage,
a 429 — is raised before anything went out, so the row goes back to ``pending`` with
``not_before`` (the back-off, honouring ``retry_after``) and the next sweep tries again; the
round's clock never waits for it. A row found ``sending`` by a later attempt means a worker
died mid-send: an @mention is looked for in the thread by its marker, a private message
(which pbp cannot look up) is marked ``failed`` for the narrator rather than sent twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..logs import log_context
from ..rounds import ladder
from ..sources.base import SourceError
from ..sources.direct import send_direct
from ..store.db import session_scope
from ..store.models import Notification, Thread
from .resources import Resources, error_note, utcnow

log = logging.getLogger("pbp.jobs.notify")


def due_notes(session: Session, now: datetime) -> list[int]:
    """Notifications ready to go out at *now* (pending, their back-off over), oldest first."""
    return list(session.scalars(select(Notification.id).where(
        Notification.state == "pending",
        (Notification.not_before.is_(None)) | (Notification.not_before <= now))
        .order_by(Notification.id)))


def queue_notifications(res: Resources, round_id: int, now: datetime | None = None) -> list[int]:
    """Queue *round_id*'s T−y notifications (once); the ids to send."""
    try:
        with session_scope(res.engine) as s:
            ids = ladder.queue_notifications(s, round_id, now or utcnow())
            pending = [i for i in ids if s.get_one(Notification, i).state == "pending"]
    except IntegrityError:
        log.info("notifications already queued by another task; nothing to do")
        return []
    log.info("notifications queued", extra={"round_id": round_id, "count": len(ids)})
    return pending


@dataclass(frozen=True)
class NoteOutcome:
    """What one attempt did: sent (``platform_id``), to retry after ``retry_in``, or nothing."""

    platform_id: str | None = None
    retry_in: float | None = None
    error: SourceError | None = None


def deliver_notification(res: Resources, note_id: int, now: datetime | None = None) -> NoteOutcome:
    """Send notification *note_id* once (see the module text)."""
    with session_scope(res.engine) as s:
        note = s.get(Notification, note_id)
        if note is None or note.state not in ("pending", "sending"):
            return NoteOutcome()
        if note.state == "sending" and note.channel != "mention":
            note.state = "failed"
            note.last_error = ("an earlier attempt stopped while sending; pbp does not send a "
                               "private message twice: check the platform, then re-queue it")
            return NoteOutcome()
        thread = s.get_one(Thread, note.thread_id)
        kind, url, options = thread.kind, thread.url, dict(thread.options or {})
        channel, to, subject, body, key = note.channel, note.recipient, note.subject, note.body, note.key
        note.state = "sending"
        note.attempts = (note.attempts or 0) + 1
        retries = note.attempts - 1
    with log_context(thread_id=thread.id, notification_id=note_id):
        lease = res.leases.acquire(f"notification:{note_id}", res.settings.poll_lease_ttl)
        if not lease:
            return NoteOutcome()
        try:
            try:
                platform_id = send_direct(kind, url, options, res.settings, channel=channel, to=to,
                                          subject=subject, text=body, marker=f"pbp-reply:{key}")
            except SourceError as exc:
                return _failed(res, note_id, exc, retries, now)
            except PbpError as exc:       # no credentials, a bad preset: the narrator must act
                return _failed(res, note_id, SourceError(str(exc)), res.settings.retry_max, now)
            with session_scope(res.engine) as s:
                note = s.get_one(Notification, note_id)
                note.state, note.platform_id = "sent", platform_id
                note.sent_at, note.last_error = now or utcnow(), None
            log.info("notification sent", extra={"channel": channel, "platform_id": platform_id})
            return NoteOutcome(platform_id=platform_id)
        finally:
            lease.release()


def _failed(res: Resources, note_id: int, exc: SourceError, retries: int,
            now: datetime | None) -> NoteOutcome:
    when = now or utcnow()
    retry = exc.retryable and retries < res.settings.retry_max
    delay = res.backoff(retries, exc.retry_after) if retry else None
    with session_scope(res.engine) as s:
        note = s.get_one(Notification, note_id)
        note.last_error = error_note(exc, when)
        if delay is not None:
            note.state, note.not_before = "pending", when + timedelta(seconds=delay)
        else:
            note.state = "failed"
    if delay is not None:
        log.warning("notification failed; retrying", extra={"error": str(exc), "retry_in": round(delay, 1)})
        return NoteOutcome(retry_in=delay, error=exc)
    log.error("notification failed; held for the narrator", extra={"error": str(exc)})
    return NoteOutcome(error=exc)
