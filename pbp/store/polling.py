"""Reads the polling schedule and the panel's polling section need (issue 17, SCALE-2).

Apart from :mod:`.queries` because they are about the workers' pace, not the game.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from .infra import watch_table
from .models import Post, Thread


def last_post_times(session: Session, thread_ids: Iterable[int]) -> dict[int, datetime]:
    """The newest stored post's time of each thread (threads with none are absent): how
    busy a thread is decides how often its list-watched full re-read comes (SCALE-2)."""
    ids = sorted(set(thread_ids))
    if not ids:
        return {}
    rows = session.execute(select(Post.thread_id, func.max(Post.posted_at))
                           .where(Post.thread_id.in_(ids)).group_by(Post.thread_id))
    return {tid: at for tid, at in rows if at is not None}


#: the forum a thread's reads learned (its cursor's ``forum``, SCALE-2): read alone, not
#: the whole cursor (it holds up to 2,000 post ids)
LEARNED_FORUM = Thread.cursor["forum"].as_string()


def forum_thread_reads(session: Session) -> list[tuple[str, dict[str, Any], datetime | None, str | None]]:
    """(URL, options, last poll, learned forum) of every active forum thread of every
    campaign: what the campaign page measures a forum's cycle from (SCALE-2)."""
    return [(url, dict(opts or {}), last, forum) for url, opts, last, forum in session.execute(
        select(Thread.url, Thread.options, Thread.last_poll, LEARNED_FORUM)
        .where(Thread.active.is_(True), Thread.kind == "forum"))]


def listing_reads(session: Session, keys: Iterable[str]) -> dict[str, list[float]]:
    """When each topic list (by URL) was read, the last few times (epoch seconds, oldest
    first), as :mod:`pbp.jobs.listings` keeps them in its state; lists never read are absent."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    out: dict[str, list[float]] = {}
    for key, state in session.execute(select(watch_table.c.key, watch_table.c.state)
                                      .where(watch_table.c.key.in_(wanted))):
        try:
            checks = json.loads(state or "{}").get("checks") or []
        except (ValueError, AttributeError):
            checks = []
        out[key] = [float(c) for c in checks]
    return out


def active_forum_threads(session: Session) -> list[tuple[str, dict[str, Any]]]:
    """(URL, options) of every active forum thread of every campaign: a forum host's
    budget is shared by all of them, so its cycle is theirs together (SCALE-2)."""
    return [(url, dict(opts or {})) for url, opts in session.execute(
        select(Thread.url, Thread.options).where(Thread.active.is_(True), Thread.kind == "forum"))]
