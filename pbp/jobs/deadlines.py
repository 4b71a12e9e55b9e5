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
from sqlalchemy.orm import Session

from ..logs import log_context
from ..rounds import service
from ..store.db import session_scope
from ..store.models import Round
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
                queued = service.send_reminder(s, round_id, now or utcnow())
                replies = pending_round_replies(s, round_id)
        except IntegrityError:
            log.info("reminder already queued by another task; nothing to do")  # a concurrent run won
            return []
        log.info("reminder queued" if queued is not None else "no reminder due (already sent, "
                 "everyone posted, or the round is closed); nothing to do")
        return replies


def _not_open(session: Session, round_id: int) -> str | None:
    """Why round *round_id* needs no resolution (None: it is open), in the log's words."""
    rnd = session.get(Round, round_id)
    if rnd is None or rnd.state == "open":
        return None
    if rnd.state == "resolved":
        at = rnd.resolved_at.isoformat(timespec="seconds") if rnd.resolved_at else "an earlier run"
        return f"round {rnd.number} already resolved (at {at}, by an earlier task); nothing to do"
    if rnd.state == "resolving":
        return f"round {rnd.number} is being resolved by another task; nothing to do"
    return f"round {rnd.number} is {rnd.state}; nothing to resolve"


def resolve_round(res: Resources, round_id: int, now: datetime | None = None) -> list[int]:
    """Resolve a round whose deadline has passed, after a final poll of its thread (see
    :func:`~pbp.jobs.threads.final_poll`: a failing platform defers it to the next sweep,
    within the grace); the resolution's replies to deliver. *now* defaults to the moment of
    the resolution, after the final poll.

    The log says what this run did (issue 18): "round resolved" only from the run that
    resolved it; a run that finds the work done (a second message after a restart, a
    sweep's copy) says "round N already resolved ..." and reads no thread."""
    with session_scope(res.engine) as s:
        thread_id = thread_of_round(s, round_id)
        done = _not_open(s, round_id)
    with log_context(thread_id=thread_id, round_id=round_id):
        if done is not None:
            log.info(done)
            with session_scope(res.engine) as s:
                return pending_round_replies(s, round_id)
        if thread_id is not None and not final_poll(res, round_id, thread_id):
            return []
        when = now or utcnow()
        try:
            with session_scope(res.engine) as s:
                done = _not_open(s, round_id)
                service.resolve_round(s, round_id, when)
                rnd = s.get(Round, round_id)
                if done is None and rnd is not None and rnd.resolved_at != when:
                    done = f"round {rnd.number} already resolved by another task; nothing to do"
                number = rnd.number if rnd is not None else None
                replies = pending_round_replies(s, round_id)
        except IntegrityError:
            log.info("round already resolved by another task; nothing to do")
            return []
        if done is not None:
            log.info(done)
        else:
            log.info("round resolved", extra={"number": number})
        return replies
