"""The outbox: replies wait here until a worker posts them, exactly once.

Delivery checks the platform for the reply's marker first (``Source.find_reply``): if
a previous attempt posted it but the answer was lost, we record that post instead of
posting again. A reply the platform accepted without showing it stays ``sending``
(:class:`~pbp.sources.base.SentUnconfirmed`): later attempts only look for it. The caller owns the transaction (workers commit, or record the failure
in a fresh one when the source raises).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..sources.base import SentUnconfirmed, Source, SourceError
from ..store import models as m
from ..store.queries import previous_part, reply_by_key
from ..store.tracker import newer_edit
from ..store.types import utcnow


def pending_replies(session: Session) -> list[int]:
    """Replies ready to post (approved or not needing approval), and replies sent but not
    yet confirmed (``sending``: looked for, never posted again), oldest first."""
    return list(session.scalars(select(m.Reply.id).where(m.Reply.state.in_(("pending", "sending")))
                                .order_by(m.Reply.id)))


def deliver_reply(session: Session, reply_id: int, source: Source, *,
                  now: datetime | None = None) -> str | None:
    """Post reply *reply_id* through *source* unless it is already there; returns the
    platform id. A held or cancelled reply is not posted (None), nor part n of a long
    reply before part n - 1 is out (None: the sweep tries again). A
    :class:`~pbp.sources.base.SourceError` propagates for the caller to record."""
    reply = session.get(m.Reply, reply_id)
    if reply is None:
        raise LookupError(f"no reply {reply_id}")
    if reply.state == "sent":
        return reply.platform_id
    if reply.state in ("held", "cancelled"):
        return None
    if reply.kind == "edit":
        return _deliver_edit(session, reply, source, now or utcnow())
    prev = previous_part(session, reply)
    if prev is not None:            # a long reply goes out part after part, threaded
        if prev.state != "sent":
            return None
        reply.in_reply_to = reply.in_reply_to or prev.platform_id
    now = now or utcnow()
    reply.attempts = (reply.attempts or 0) + 1
    found = source.find_reply(reply.marker)
    if found is None and reply.state == "sending":
        raise SentUnconfirmed("the reply was sent earlier but does not show in the thread yet; "
                              "pbp keeps looking for it and will not post it twice")
    platform_id = found if found is not None else source.reply(
        reply.body, reply.marker, in_reply_to=reply.in_reply_to)
    reply.platform_id = platform_id
    reply.state = "sent"
    reply.sent_at = now
    reply.last_error = None
    return platform_id


def _deliver_edit(session: Session, reply: m.Reply, source: Source, now: datetime) -> str | None:
    """STALL-8: put *reply*'s text into the tracker post it edits (its ``in_reply_to`` is
    the tracker's key). Waits (None) until the tracker is out; an edit a newer one
    replaces is cancelled unsent, so an old state never overwrites a new one. Editing
    twice writes the same text twice: a retry after a lost answer doubles nothing."""
    base = reply_by_key(session, reply.in_reply_to or "")
    if base is None or base.state == "cancelled":
        reply.state, reply.last_error = "cancelled", "the tracker post it edits is gone"
        return None
    if base.state != "sent" or not base.platform_id:
        return None
    if newer_edit(session, reply) is not None:
        reply.state, reply.last_error = "cancelled", "a newer tracker text replaced it before it went out"
        return None
    edit = getattr(source, "edit", None)
    if edit is None:
        raise SourceError("this platform gives pbp no way to edit its post: the tracker stays as "
                          "first posted (the status block is in every round reply)")
    reply.attempts = (reply.attempts or 0) + 1
    edit(base.platform_id, reply.body, reply.marker)
    reply.platform_id, reply.state, reply.sent_at, reply.last_error = base.platform_id, "sent", now, None
    return base.platform_id
