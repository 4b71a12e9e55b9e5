"""STALL-9: the beat task's service call for the weekly who-owes-a-post list.

Safe to run at every beat tick and twice at once: the reply's idempotency key is one
per campaign and ISO week (:mod:`pbp.rounds.weekly_owes`). Returns the replies to
deliver, for the caller to send after the commit (a rollback leaves nothing to send).
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy.exc import IntegrityError

from ..rounds.weekly_owes import queue_weekly_owes
from ..store.db import session_scope
from .resources import Resources, utcnow

log = logging.getLogger("pbp.jobs.weekly")


def post_weekly_owes(res: Resources, now: datetime | None = None) -> list[int]:
    """Queue the weekly lists due at *now* (default: the moment it runs); their ids."""
    try:
        with session_scope(res.engine) as s:
            queued = queue_weekly_owes(s, now or utcnow())
    except IntegrityError:
        log.info("weekly list already queued by another task; nothing to do")
        return []
    if queued:
        log.info("weekly who-owes lists queued", extra={"count": len(queued)})
    return queued
