"""STALL-8: one tracker post per encounter, kept edited in place with the status block.

Where the bot can edit its post (checked in the sources): Reddit (``comment.edit``, praw's
``POST /api/editusertext``; :meth:`pbp.sources.reddit.RedditSource.edit`) and a forum
whose preset has an edit API (``[reply] edit_url``: Misago's ``PUT`` on the post;
:meth:`pbp.sources.forum_posting.ThreadPoster.edit`). The HTML-form presets (machina,
phpBB, SMF, MyBB...) have no edit path, so a campaign with the option on gets no tracker
there (nothing is queued: the status block at the end of every round reply says it all).

Each round that opens queues the tracker's new text: the first time as the tracker
post itself, afterwards as an ``edit`` reply (:mod:`pbp.store.tracker`), delivered by
the outbox like any reply, retried, never posted twice.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import PbpError
from ..render import render_reply
from ..sources.forum_preset import load_preset
from ..store import models as m
from ..store.queries import reply_by_key
from ..store.tracker import tracker_key
from .replies import marker_for, new_view, reply_platform
from .status import status_block


def can_edit(thread: m.Thread) -> bool:
    """Whether pbp can edit its own post in *thread* (see the module text)."""
    if thread.kind == "reddit":
        return True
    if thread.kind != "forum":
        return False
    options = thread.options or {}
    try:
        preset = load_preset(str(options.get("preset") or "machina"), options.get("overrides"))
    except PbpError:
        return False
    return bool(preset.reply is not None and preset.reply.edit_url)


def tracker_text(session: Session, rnd: m.Round, now: datetime) -> str:
    """The tracker's text for the state of *rnd*'s encounter at *now*."""
    enc = rnd.encounter
    view = new_view(rnd, "tracker", marker_for(tracker_key(enc.id)), {})
    view.status = status_block(session, enc, rnd if rnd.state == "open" else None, now)
    return render_reply(view)


def queue_tracker(session: Session, rnd: m.Round, now: datetime) -> int | None:
    """Queue the tracker of *rnd*'s encounter (post or edit) when the campaign asks for
    it and the platform can edit; the reply's id, or None."""
    enc = rnd.encounter
    if not enc.campaign.tracker_post or not can_edit(enc.thread):
        return None
    base_key = tracker_key(enc.id)
    body = tracker_text(session, rnd, now)
    base = reply_by_key(session, base_key)
    if base is not None and base.state in ("pending", "held") and base.platform_id is None:
        base.body = body            # not out yet: post the newest text in the first place
        return base.id
    if base is None:    # in approval mode the first post waits for the narrator, as every reply
        key, kind, into = base_key, "tracker", None
        state = "held" if enc.campaign.approval_mode else "pending"
    else:               # an edit waits for the tracker to be out (pbp.rounds.outbox)
        key, kind, into, state = f"{base_key}:edit:{rnd.id}", "edit", base_key, "pending"
    reply = m.Reply(thread_id=enc.thread_id, round_id=rnd.id, kind=kind, idempotency_key=key,
                    marker=marker_for(base_key), platform=reply_platform(enc.thread),
                    language=enc.campaign.language, body=body, in_reply_to=into, state=state,
                    created_at=now)
    try:
        with session.begin_nested():
            session.add(reply)
    except IntegrityError:          # this round's text is queued already
        found = reply_by_key(session, key)
        return found.id if found is not None else None
    return reply.id


__all__ = ["can_edit", "queue_tracker", "tracker_text"]
