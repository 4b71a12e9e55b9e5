"""Store what a source saw: posts, every revision, deletions; then read them for the round.

Idempotent by construction: a post is unique per (thread, platform id); a revision is
stored only when the content hash changes; reading a post again finds its rolls by
(post, tag) and its declarations by (round, combatant, post). Feeding the same records
twice changes nothing, and writes nothing: posts whose content hash is the stored one are
skipped without a statement beyond the one read that found them (SCALE-6).

One batch, one savepoint (none when the batch is its session's first work: its own
transaction is then undone instead), one flush (SCALE-6): a poll's posts are stored first, all in one
flush, then read in order for the round; what the reading makes (declarations, rolls, the
rolls' posts kept beside them) goes in at the batch's end, and the new posts with it,
their ids taken ahead with the live rounds. The thread's encounters,
rounds, narrators and the campaign's hints (who may have an absence to end, a ladder count
to reset, a deleted post's roll to take back) are read once per batch
(:class:`pbp.rounds.batch.BatchReads`), not once per post; a post the batch stored itself
has no declaration or roll to look up. Two things break the savepoint, and neither loses a
post or a roll: a clash with another worker (an :class:`IntegrityError`: it stored the post
or took the roll index first) reads the whole batch again in the guarded mode, a savepoint
per post and roll as before, which takes what the other worker stored; a post whose
reading fails for any other reason is left out and the batch read again without it, then
that post is stored unread (so the thread's history keeps it and an edit reads it again)
and logged with its platform id.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session
from sqlalchemy.orm.util import identity_key

from ..sources.base import PostRecord, carries_marker
from ..store import ingest_reads
from ..store import models as m
from ..store.types import utcnow
from . import between, bulk_pg
from .batch import BatchReads
from .bulk import Row, bulk_batch, columns, insert_rows, new_row, pending
from .declare import process_post
from .extensions import read_extensions
from .ladder import player_posted
from .placing import context, place, read_ahead
from .reading import ParseFn
from .rolls import roll_batch

log = logging.getLogger("pbp.rounds.ingest")


def is_our_reply(rec: PostRecord) -> bool:
    """A reply of ours, stored but never read as a declaration: the source says its bot account wrote it (``by_bot``) AND it carries
    a reply marker in its own words. A player's post quoting our reply, or typing a
    marker, is still that player's declaration."""
    return rec.by_bot and carries_marker(rec)


def _utc(dt: datetime) -> datetime:
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def _changes(rec: PostRecord, post: Any) -> bool:
    """Whether *rec* changes what is stored of its post (else it is skipped unwritten)."""
    if post is None:
        return rec.change != "deleted"
    if rec.change == "deleted":
        return post.deleted_at is None
    return rec.revision != post.content_hash


def _store(session: Session, thread_id: int, rec: PostRecord, now: datetime,
           known: dict[str, Any] | None = None, rolled: set[int] | None = None
           ) -> tuple[m.Post | None, bool]:
    """(post, whether anything changed). *known*: the batch's stored posts by platform id,
    *rolled*: which of them have rolls (a batch needs no savepoint per post: its own
    savepoint covers a clash)."""
    if known is not None:
        post = known.get(rec.platform_id)
    else:
        post = session.scalar(select(m.Post).where(m.Post.thread_id == thread_id,
                                                   m.Post.platform_id == rec.platform_id))
    if post is None:
        if rec.change == "deleted":
            return None, False
        if known is not None:   # written in bulk by the caller; a clash breaks the batch
            post = known[rec.platform_id] = _new_post(thread_id, rec, now)
            return post, True
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
    if not _changes(rec, post):   # SCALE-6: an unchanged post is not written at all
        return post, False
    post.last_seen_at = now
    if post.id is None:   # stored earlier in this very batch: no roll can name it yet
        has_rolls = False
    elif rolled is not None:
        has_rolls = post.id in rolled
    else:
        has_rolls = session.scalar(select(m.RollRecord.id).where(m.RollRecord.post_id == post.id)
                                   .limit(1)) is not None
    revision = m.PostRevision(seen_at=now, after_roll=has_rolls)
    if isinstance(post, Row):   # new in this very batch: its revisions go in with it
        post.revisions.append(revision)
    elif "revisions" in inspect(post).unloaded:   # not loading every revision to add one
        revision.post_id = post.id
        session.add(revision)
    else:
        post.revisions.append(revision)
    post.revisions_seen += 1
    revision.number = post.revisions_seen
    if rec.change == "deleted":
        post.deleted_at = now
        revision.content_hash, revision.body, revision.text = post.content_hash, post.body, post.text
        revision.change = "deleted"
        return post, True
    revision.content_hash, revision.body, revision.text = rec.revision, rec.body, rec.text
    revision.change = "edited"
    revision.edited_at = _utc(rec.edited_at) if rec.edited_at else None
    post.body, post.text, post.content_hash = rec.body, rec.text, rec.revision
    post.edited_at = _utc(rec.edited_at) if rec.edited_at else now
    post.deleted_at = None
    return post, True


def _new_post(thread_id: int, rec: PostRecord, now: datetime) -> Any:
    """A new post and its first revision as plain rows for the batch's bulk insert
    (SCALE-6: ORM objects cost more to build than the rows cost to write); the post reads
    like the :class:`~pbp.store.models.Post` it becomes, with ``id`` set once written."""
    edited_at = _utc(rec.edited_at) if rec.edited_at else None
    return new_row(
        m.Post, thread_id=thread_id, platform_id=rec.platform_id, author=rec.author,
        posted_at=_utc(rec.posted_at), body=rec.body, text=rec.text, fmt=rec.fmt,
        content_hash=rec.revision, url=rec.url, revisions_seen=1, edited_at=edited_at,
        first_seen_at=now, last_seen_at=now, is_ours=is_our_reply(rec), deleted_at=None,
        revisions=[new_row(m.PostRevision, number=1, content_hash=rec.revision, body=rec.body,
                           text=rec.text, change="new", seen_at=now, edited_at=edited_at)])


def ingest_posts(session: Session, thread_id: int, records: Iterable[PostRecord], *,
                 now: datetime | None = None, parse: ParseFn | None = None) -> list[int]:
    """Store *records* for the thread and read the new or changed ones for the round, as
    one batch under one savepoint (see the module docstring for a clash or a bad post).

    Returns the ids of every stored post among *records* (new, edited or unchanged).
    """
    now = now or utcnow()
    records = list(records)
    # nothing of the caller's in the session yet (a poll's fresh session): the batch may be
    # the transaction itself, rolled back whole when a pass fails, and needs no savepoint
    # (SCALE-6: two statements a batch, each a round trip on PostgreSQL)
    alone = not (session.in_transaction() or session.new or session.dirty or session.deleted)
    # its campaign read with it: one query. Kept in a name for the whole batch: the
    # session's identity map holds rows weakly, and a thread let go here was read again
    # (with its campaign: two more statements) when the batch asked for it (SCALE-6)
    thread = session.identity_map.get(identity_key(m.Thread, thread_id))
    stored = None
    if thread is None:   # with the stored posts among the records: one statement
        thread, stored = ingest_reads.thread_and_known(session, thread_id,
                                                       (r.platform_id for r in records))
    if thread is None:
        raise LookupError(f"no thread {thread_id}")
    known = _known(session, thread_id, records, stored)
    if not any(_changes(r, known.get(r.platform_id)) for r in records):
        return [known[r.platform_id].id for r in records if r.platform_id in known]
    left_out: list[tuple[PostRecord, Exception]] = []
    guarded = False
    first: dict[str, Any] | None = known
    for _ in range(len(records) + 2):
        reading: list[PostRecord] = []   # the record being read when something breaks
        kept = [r for r in records if all(r is not bad for bad, _ in left_out)]
        if left_out or guarded:
            first = None
        try:
            with nullcontext() if alone else session.begin_nested(), \
                    roll_batch(session, enabled=not guarded), bulk_batch(session, enabled=not guarded):
                ids = _read_batch(session, thread, kept, now, parse, reading, guarded, first)
            break
        except BaseException as exc:
            if alone:   # what leaving the savepoint did: the pass is undone
                session.rollback()
            if isinstance(exc, IntegrityError) and not guarded:
                guarded = True   # another worker stored some of it first: read it again, guarded
                continue
            if isinstance(exc, SQLAlchemyError) or not isinstance(exc, Exception) or not reading:
                raise            # the database itself: the poll fails and is retried whole
            left_out.append((reading[-1], exc))   # one bad post must not lose the batch
    else:  # pragma: no cover - every pass leaves one more post out
        raise RuntimeError("ingest could not settle its batch")
    for rec, exc in left_out:
        ids += _store_unread(session, thread_id, rec, now, exc)
    return ids


def _known(session: Session, thread_id: int, records: Sequence[PostRecord],
           stored: dict[str, Any] | None = None) -> dict[str, Any]:
    """The thread's stored posts among *records*, by platform id: as read first
    (:class:`~pbp.store.ingest_reads.KnownPost`: an id, a content hash, times; *stored*:
    read already, with the thread), and as ORM posts those a record changes (a second
    query, only when one does: edits are rare)."""
    known: dict[str, Any] = stored if stored is not None else ingest_reads.known_posts(
        session, thread_id, (r.platform_id for r in records))
    changing = {k.id for r in records if (k := known.get(r.platform_id)) is not None and _changes(r, k)}
    if changing:
        for post in ingest_reads.posts_by_id(session, changing).values():
            known[post.platform_id] = post
    return known


def _read_batch(session: Session, thread: m.Thread, records: Sequence[PostRecord], now: datetime,
                parse: ParseFn | None, reading: list[PostRecord], guarded: bool,
                first: dict[str, Any] | None) -> list[int]:
    """Store every record (one flush), then read the changed posts in order. *first*: the
    stored posts read before the batch began (None once a pass was rolled back)."""
    batch = BatchReads(session, thread)
    thread_id = thread.id
    known = rolled = None
    if not guarded:
        if first is not None:
            known = dict(first)
        else:   # a savepoint rolled back expired what was read before: read it again
            known = _known(session, thread_id, records)
        rolled = ingest_reads.posts_with_rolls(
            session, (known[r.platform_id].id for r in records
                      if r.platform_id in known and _changes(r, known[r.platform_id])))
    if known is not None:   # guarded, a stored post's time is read only as it is stored
        batch.since = min([_utc(r.posted_at) for r in records]
                          + [_utc(p.posted_at) for p in known.values()], default=None)
        # ids for the new posts, taken with the live rounds (PostgreSQL: _insert_posts)
        batch.new_posts = len({r.platform_id for r in records
                               if r.platform_id not in known and r.change != "deleted"})
    stored: list[m.Post] = []
    fresh: dict[str, m.Post] = {}   # the posts this batch inserts, by platform id
    to_read: dict[str, PostRecord] = {}   # platform id -> its last record, at its first place
    for rec in records:
        reading.append(rec)
        before = None if known is None else known.get(rec.platform_id)
        post, changed = _store(session, thread_id, rec, now, known, rolled)
        if post is None:
            continue
        stored.append(post)
        if changed and before is None and rec.change != "deleted" and post.revisions_seen == 1:
            fresh[rec.platform_id] = post
        if rec.change == "deleted" and changed:
            batch.deleted_in_batch = True
        if changed and not post.is_ours:
            to_read[rec.platform_id] = rec
            place(batch, post)
    reading.clear()
    if known is not None:   # the new posts are plain rows, their ids set as they are written
        _insert_posts(session, thread_id, list(fresh.values()), batch.post_ids)
    session.flush()   # the edits and deletions of known posts
    by_id = {p.platform_id: p for p in stored}
    for platform_id, rec in to_read.items():   # the new posts read first, together
        if platform_id in fresh:
            reading.append(rec)
            read_ahead(session, batch, by_id[platform_id], parse)
            reading.clear()
    for platform_id, rec in to_read.items():
        reading.append(rec)
        _read_one(session, batch, by_id[platform_id], rec, now, parse, fresh=platform_id in fresh)
    reading.clear()
    return [p.id for p in stored]


def _insert_posts(session: Session, thread_id: int, posts: Sequence[Any],
                  ids: list[int] | None = None) -> None:
    """Write the batch's new posts (plain rows) and their revisions in one statement each
    (SCALE-6: the unit of work wrote them row by row), each post's id set from RETURNING
    (a pass rolled back leaves nothing in the session: the rows were never in it). With
    *ids* taken for them already (by the live read), the posts wait with the batch's
    other rows instead, written with them (on PostgreSQL in one statement:
    :mod:`pbp.rounds.bulk_pg`) before any statement that could read them."""
    if not posts:
        return
    rows = pending(session)
    if ids is not None and len(ids) >= len(posts) and rows is not None:
        for post, post_id in zip(posts, ids, strict=False):
            post.id = post_id
        rows.posts.extend(posts)
        return
    connection = session.connection()
    if connection.dialect.name == "postgresql":   # both in one statement (pbp.rounds.bulk_pg)
        made = bulk_pg.insert_posts(connection, [columns(p) for p in posts],
                                    [(p.platform_id, columns(r)) for p in posts for r in p.revisions])
        if made is not None:
            ids = {str(pid): int(i) for i, pid in made}
            for post in posts:
                post.id = ids[post.platform_id]
            return
    made = insert_rows(session, m.Post, [columns(p) for p in posts], ("id", "platform_id"))
    ids = {str(pid): int(i) for i, pid in made}
    if len(ids) < len(posts):   # pragma: no cover - an SQLite without RETURNING (< 3.35)
        ids = {pid: p.id for pid, p in ingest_reads.known_posts(
            session, thread_id, (p.platform_id for p in posts)).items()}
    for post in posts:
        post.id = ids[post.platform_id]
    insert_rows(session, m.PostRevision, [
        {**columns(r), "post_id": p.id} for p in posts for r in p.revisions])


def _read_one(session: Session, batch: BatchReads, post: m.Post, rec: PostRecord,
              now: datetime, parse: ParseFn | None, *, fresh: bool) -> None:
    """Read one stored post for its round (or, between fights, for absences)."""
    found = context(session, batch, post)
    if found is None:   # STALL-1: between fights an absence is still read
        if post.author.casefold() not in batch.narrators:
            between.record_post(session, post, batch.campaign, now)
            batch.absent.add(post.author.casefold())   # it may have announced one
        return
    encounter, rnd, (policy, roster, indexed, cast), is_narrator = found
    counts = not is_narrator and batch.ladder_counts(post.author)   # read before any row waits
    read_extensions(session, post, encounter, rnd, now, is_narrator=is_narrator)
    process_post(session, post, now=now, policy=policy, encounter=encounter, rnd=rnd,
                 is_narrator=is_narrator,
                 edited_at=_utc(rec.edited_at) if rec.edited_at else None, parse=parse,
                 roster=roster, indexed=indexed, batch=batch, fresh=fresh, cast=cast,
                 readings=batch.readings.pop(post.id, None))
    if counts:
        player_posted(session, encounter, post.author, rnd, now)   # STALL-3: the count ends
        batch.ladder.discard(post.author.casefold())


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
