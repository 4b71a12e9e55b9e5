"""Store what a source saw: posts, every revision, deletions; then read them for the round.

Idempotent by construction: a post is unique per (thread, platform id); a revision is
stored only when the content hash changes; reading a post again finds its rolls by
(post, tag) and its declarations by (round, combatant, post). Feeding the same records
twice changes nothing.

One batch, one savepoint (SCALE-6): a poll's posts are stored and read under a single
savepoint, with no savepoint per post or roll and the thread's encounters and rounds read
once per batch, not once per post. Two things break the savepoint, and neither loses a post
or a roll: a clash with another worker (an :class:`IntegrityError`: it stored the post or
took the roll index first) reads the whole batch again in the guarded mode, a savepoint per
post and roll as before, which takes what the other worker stored; a post whose reading
fails for any other reason is left out and the batch read again without it, then that post
is stored unread (so the thread's history keeps it and an edit reads it again) and logged
with its platform id.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from ..sources.base import PostRecord, carries_marker
from ..store import models as m
from ..store.types import utcnow
from . import between
from .codec import combatant_to_model
from .declare import narrator_names, process_post
from .extensions import read_extensions
from .ladder import player_posted
from .policy import policy_for
from .reading import ParseFn, parser_roster
from .rolls import roll_batch

log = logging.getLogger("pbp.rounds.ingest")


def is_our_reply(rec: PostRecord) -> bool:
    """A reply of ours, stored but never read as a declaration: the source says its bot account wrote it (``by_bot``) AND it carries
    a reply marker in its own words. A player's post quoting our reply, or typing a
    marker, is still that player's declaration."""
    return rec.by_bot and carries_marker(rec)


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _known(session: Session, thread_id: int, records: Sequence[PostRecord]) -> dict[str, m.Post]:
    """The thread's stored posts among *records*, in one query per 500 (not one per post)."""
    ids = sorted({r.platform_id for r in records})
    known: dict[str, m.Post] = {}
    for start in range(0, len(ids), 500):
        known.update((p.platform_id, p) for p in session.scalars(
            select(m.Post).where(m.Post.thread_id == thread_id,
                                 m.Post.platform_id.in_(ids[start:start + 500]))))
    return known


class _Windows:
    """The thread's live encounters and their rounds, read once per batch: the post's
    encounter and round are then found in memory (SCALE-6; ingest opens no round)."""

    def __init__(self, session: Session, thread_id: int) -> None:
        self.session = session
        self.encounters = [e for e in session.scalars(
            select(m.Encounter).where(m.Encounter.thread_id == thread_id,
                                      m.Encounter.status.in_(("setup", "active")))
            .order_by(m.Encounter.started_at.desc(), m.Encounter.id.desc())) if e.started_at is not None]
        self.rounds: dict[int, list[m.Round]] = {}

    def encounter_at(self, at: datetime) -> m.Encounter | None:
        """Like :func:`pbp.rounds.declare.live_encounter`: the latest started by *at*."""
        return next((e for e in self.encounters if _utc(e.started_at) <= at), None)

    def round_at(self, encounter_id: int, at: datetime) -> m.Round | None:
        """Like :func:`pbp.rounds.declare.round_at`: the latest round opened by *at*."""
        if encounter_id not in self.rounds:
            self.rounds[encounter_id] = list(self.session.scalars(
                select(m.Round).where(m.Round.encounter_id == encounter_id, m.Round.state != "cancelled")
                .order_by(m.Round.number.desc())))
        return next((r for r in self.rounds[encounter_id] if _utc(r.opens_at) <= at), None)


def _store(session: Session, thread_id: int, rec: PostRecord, now: datetime,
           known: dict[str, m.Post] | None = None) -> tuple[m.Post | None, bool]:
    """(post, whether anything changed). *known*: the batch's stored posts by platform id
    (a batch needs no savepoint per post: its own savepoint covers a clash)."""
    if known is not None:
        post = known.get(rec.platform_id)
    else:
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
        if known is not None:   # a clash breaks the batch: it is read again guarded
            session.add(post)
            known[rec.platform_id] = post
            return post, True
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
    """Store *records* for the thread and read the new or changed ones for the round, as
    one batch under one savepoint (see the module docstring for a clash or a bad post).

    Returns the ids of every stored post among *records* (new, edited or unchanged).
    """
    now = now or utcnow()
    records = list(records)
    if session.get(m.Thread, thread_id) is None:
        raise LookupError(f"no thread {thread_id}")
    left_out: list[tuple[PostRecord, Exception]] = []
    guarded = False
    for _ in range(len(records) + 2):
        reading: list[PostRecord] = []   # the record being read when something breaks
        kept = [r for r in records if all(r is not bad for bad, _ in left_out)]
        try:
            with session.begin_nested(), roll_batch(session, enabled=not guarded):
                ids = _read_batch(session, thread_id, kept, now, parse, reading, guarded)
            break
        except IntegrityError:
            if guarded:
                raise
            guarded = True   # another worker stored some of it first: read it again, guarded
        except SQLAlchemyError:
            raise            # the database itself: the poll fails and is retried whole
        except Exception as exc:  # noqa: BLE001 - one bad post must not lose the batch
            if not reading:
                raise
            left_out.append((reading[-1], exc))
    else:  # pragma: no cover - every pass leaves one more post out
        raise RuntimeError("ingest could not settle its batch")
    for rec, exc in left_out:
        ids += _store_unread(session, thread_id, rec, now, exc)
    return ids


def _read_batch(session: Session, thread_id: int, records: Sequence[PostRecord], now: datetime,
                parse: ParseFn | None, reading: list[PostRecord], guarded: bool) -> list[int]:
    thread = session.get_one(m.Thread, thread_id)
    campaign = thread.campaign
    narrators = narrator_names(session, campaign, thread)
    known = None if guarded else _known(session, thread_id, records)
    windows = _Windows(session, thread_id)
    ids: list[int] = []
    cache: dict[int, tuple[Any, list[Any], Any]] = {}   # encounter -> (policy, roster, index)
    for rec in records:
        reading.append(rec)
        post, changed = _store(session, thread_id, rec, now, known)
        if post is None:
            continue
        session.flush()
        ids.append(post.id)
        if not changed or post.is_ours:
            continue
        made_by = latest_possible(post)
        encounter = windows.encounter_at(made_by)
        if encounter is None:   # STALL-1: between fights an absence is still read
            if post.author.casefold() not in narrators:
                between.record_post(session, post, campaign, now)
            continue
        rnd = windows.round_at(encounter.id, made_by)
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
        if not is_narrator:
            player_posted(session, encounter, post.author, rnd, now)   # STALL-3: the count ends
    reading.clear()
    return ids


def _store_unread(session: Session, thread_id: int, rec: PostRecord, now: datetime,
                  exc: Exception) -> list[int]:
    """Keep a post whose reading failed, unread: the thread's history has it, the log says
    why, and its next edit is read again. [] when even storing it fails."""
    log.error("a post could not be read; stored unread, the rest of the batch was read",
              extra={"thread_id": thread_id, "platform_id": rec.platform_id, "error": repr(exc)})
    try:
        with session.begin_nested():
            post, _ = _store(session, thread_id, rec, now)
            session.flush()
    except Exception as again:  # noqa: BLE001 - the rest of the batch is kept regardless
        log.error("a post could not be stored", extra={"thread_id": thread_id,
                                                       "platform_id": rec.platform_id, "error": repr(again)})
        return []
    return [post.id] if post is not None else []


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
