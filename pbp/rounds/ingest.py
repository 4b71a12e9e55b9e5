"""Store what a source saw: posts, every revision, deletions; then read them for the round.

Idempotent by construction: a post is unique per (thread, platform id); a revision is
stored only when the content hash changes; reading a post again finds its rolls by
(post, tag) and its declarations by (round, combatant, post). Feeding the same records
twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..sources.base import PostRecord, carries_marker
from ..store import models as m
from ..store.types import utcnow
from . import between
from .codec import combatant_to_model
from .declare import live_encounter, narrator_names, process_post, round_at
from .extensions import read_extensions
from .policy import policy_for
from .reading import ParseFn, parser_roster


def is_our_reply(rec: PostRecord) -> bool:
    """A reply of ours, stored but never read as a declaration: the source says its bot account wrote it (``by_bot``) AND it carries
    a reply marker in its own words. A player's post quoting our reply, or typing a
    marker, is still that player's declaration."""
    return rec.by_bot and carries_marker(rec)


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _store(session: Session, thread_id: int, rec: PostRecord, now: datetime
           ) -> tuple[m.Post | None, bool]:
    """(post, whether anything changed)."""
    post = session.scalar(select(m.Post).where(m.Post.thread_id == thread_id,
                                               m.Post.platform_id == rec.platform_id))
    if post is None:
        if rec.change == "deleted":
            return None, False
        post = m.Post(thread_id=thread_id, platform_id=rec.platform_id, author=rec.author,
                      posted_at=_utc(rec.posted_at), body=rec.body, text=rec.text, fmt=rec.fmt,
                      content_hash=rec.revision, url=rec.url, revisions_seen=1,
                      edited_at=_utc(rec.edited_at) if rec.edited_at else None,
                      first_seen_at=now, last_seen_at=now,
                      is_ours=is_our_reply(rec))
        post.revisions.append(m.PostRevision(number=1, content_hash=rec.revision, body=rec.body,
                                             text=rec.text, change="new", seen_at=now,
                                             edited_at=post.edited_at))
        try:
            with session.begin_nested():
                session.add(post)
        except IntegrityError:   # another worker stored it first: treat as seen
            return _store(session, thread_id, rec, now)
        return post, True
    post.last_seen_at = now
    has_rolls = session.scalar(select(m.RollRecord.id).where(m.RollRecord.post_id == post.id)
                               .limit(1)) is not None
    if rec.change == "deleted":
        if post.deleted_at is not None:
            return post, False
        post.deleted_at = now
        post.revisions_seen += 1
        post.revisions.append(m.PostRevision(number=post.revisions_seen, content_hash=post.content_hash,
                                             body=post.body, text=post.text, change="deleted",
                                             seen_at=now, after_roll=has_rolls))
        return post, True
    if rec.revision == post.content_hash:
        return post, False
    post.revisions_seen += 1
    post.revisions.append(m.PostRevision(number=post.revisions_seen, content_hash=rec.revision,
                                         body=rec.body, text=rec.text, change="edited",
                                         seen_at=now, after_roll=has_rolls,
                                         edited_at=_utc(rec.edited_at) if rec.edited_at else None))
    post.body, post.text, post.content_hash = rec.body, rec.text, rec.revision
    post.edited_at = _utc(rec.edited_at) if rec.edited_at else now
    post.deleted_at = None
    return post, True


def ingest_posts(session: Session, thread_id: int, records: Iterable[PostRecord], *,
                 now: datetime | None = None, parse: ParseFn | None = None) -> list[int]:
    """Store *records* for the thread and read the new or changed ones for the round.

    Returns the ids of every stored post among *records* (new, edited or unchanged).
    """
    now = now or utcnow()
    thread = session.get(m.Thread, thread_id)
    if thread is None:
        raise LookupError(f"no thread {thread_id}")
    campaign = thread.campaign
    narrators = narrator_names(session, campaign, thread)
    ids: list[int] = []
    cache: dict[int, tuple[Any, list[Any], Any]] = {}   # encounter -> (policy, roster, index)
    for rec in records:
        post, changed = _store(session, thread_id, rec, now)
        if post is None:
            continue
        session.flush()
        ids.append(post.id)
        if not changed or post.is_ours:
            continue
        made_by = latest_possible(post)
        encounter = live_encounter(session, thread_id, made_by)
        if encounter is None:   # STALL-1: between fights an absence is still read
            if post.author.casefold() not in narrators:
                between.record_post(session, post, campaign, now)
            continue
        rnd = round_at(session, encounter.id, made_by)
        post.round_id = rnd.id if rnd is not None else None
        if encounter.id not in cache:
            models = [combatant_to_model(c) for c in encounter.combatants]
            cache[encounter.id] = (policy_for(campaign, encounter), models, parser_roster(models))
        policy, roster, indexed = cache[encounter.id]
        is_narrator = post.author.casefold() in narrators
        read_extensions(session, post, encounter, rnd, now, is_narrator=is_narrator)
        process_post(session, post, now=now, policy=policy, encounter=encounter, rnd=rnd,
                     is_narrator=is_narrator,
                     edited_at=_utc(rec.edited_at) if rec.edited_at else None, parse=parse,
                     roster=roster, indexed=indexed)
    return ids


_MINUTE = timedelta(seconds=59, microseconds=999_999)


def latest_possible(post: m.Post) -> datetime:
    """The latest moment *post* may have been made, to find the round it belongs to.

    Why: most forums print times to the minute. A player who answers the opening reply at
    10:57:50 shows as "10:57", which is before a round opened at 10:57:42; read as printed,
    the declaration fell before every round and was dropped without a word (walked on a real
    django-machina thread). A time printed to the minute may stand for any second of it, but
    never for later than pbp first saw the post. Lateness is still judged on the printed time
    (the earliest reading), so both readings are the player's benefit of the doubt.
    """
    at = post.posted_at
    if at.second or at.microsecond:
        return at
    seen = post.first_seen_at or at
    return min(at + _MINUTE, max(seen, at))
