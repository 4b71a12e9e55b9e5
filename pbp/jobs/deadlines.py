"""A round's deadlines, as a worker meets them: the reminder, and the resolution after
one last read of the thread.

Both are safe to run twice (Celery delivers at least once): the reminder reply's and the
resolution's idempotency keys are unique, so a concurrent double raises IntegrityError
at commit, and that run does nothing. Each returns the round's replies now waiting in
the outbox, for the caller to deliver — after the commit, so no delivery reads a reply
that a rollback removed.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy.exc import IntegrityError

from ..logs import log_context
from ..rounds import service
from ..store.db import session_scope
from .delivery import pending_round_replies
from .resources import Resources, utcnow
from .threads import final_poll, thread_of_round

log = logging.getLogger("pbp.jobs.deadlines")


def send_reminder(res: Resources, round_id: int, now: datetime | None = None) -> list[int]:
    """Queue the reminder of a round whose reminder time has come (at *now*, default: the
    moment it is queued); its replies to deliver."""
    with session_scope(res.engine) as s:
        thread_id = thread_of_round(s, round_id)
    with log_context(thread_id=thread_id, round_id=round_id):
        try:
            with session_scope(res.engine) as s:
                service.send_reminder(s, round_id, now or utcnow())
                replies = pending_round_replies(s, round_id)
        except IntegrityError:
            log.info("reminder already queued")  # a concurrent run won: nothing to do
            return []
        log.info("reminder queued")
        return replies


def resolve_round(res: Resources, round_id: int, now: datetime | None = None) -> list[int]:
    """Resolve a round whose deadline has passed, after a final poll of its thread (see
    :func:`~pbp.jobs.threads.final_poll`: a failing platform defers it to the next sweep,
    within the grace); the resolution's replies to deliver. *now* defaults to the moment of
    the resolution, after the final poll."""
    with session_scope(res.engine) as s:
        thread_id = thread_of_round(s, round_id)
    with log_context(thread_id=thread_id, round_id=round_id):
        if thread_id is not None and not final_poll(res, round_id, thread_id):
            return []
        try:
            with session_scope(res.engine) as s:
                service.resolve_round(s, round_id, now or utcnow())
                replies = pending_round_replies(s, round_id)
        except IntegrityError:
            log.info("round already resolved by another worker")
            return []
        log.info("round resolved")
        return replies
