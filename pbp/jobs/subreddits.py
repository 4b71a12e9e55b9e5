"""Reddit by subreddit: one listing call a cycle for every watched submission of a subreddit.

Why (issue 17 item 1): a submission polled on its own (:meth:`RedditSource.fetch`) costs
one API call a cycle, so at Reddit's 100 calls a minute and a 60 s interval about 100
watched submissions spend a client's whole budget. :class:`~pbp.sources.reddit.SubredditPoller`
reads the subreddit's newest comments once and reads a submission's tree only where that
window cannot reach back far enough and its comment count moved.

So the dispatcher groups active Reddit threads by subreddit (from the URL, which the panel
keeps) and endpoint, and claims each group like a forum's topic list: its next check lives
in ``pbp_watch_state`` under ``reddit:<endpoint>:r/<subreddit>``, and one worker at a time
reads it (a lease of that name). Those threads are not polled one by one any more; a thread
whose options say ``poll = "thread"``, or whose URL names no subreddit, still is. The
final read before a round is resolved (:func:`pbp.jobs.threads.final_poll`) stays a tree
read of that one submission: once a round, it makes sure nothing posted in time is missed.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from ..settings import Settings
from ..sources.base import SourceError
from ..sources.reddit import SubredditPoller
from ..sources.reddit_tree import parse_submission_id
from ..store.db import session_scope
from ..store.models import Thread
from .groups import group_key
from .listings import claim_due_listings, ensure_table, save_state
from .resources import Resources, utcnow
from .schedule import jittered
from .threads import record_thread_error, store_poll

log = logging.getLogger("pbp.jobs.subreddits")

def active_groups(session: Session, settings: Settings) -> dict[str, dict[str, Any]]:
    """Each subreddit group some active thread is in, with the first thread's options."""
    groups: dict[str, dict[str, Any]] = {}
    for t in session.scalars(sa.select(Thread).where(Thread.active.is_(True),
                                                     Thread.kind == "reddit")):
        key = group_key(t, settings)
        if key is not None:
            groups.setdefault(key, dict(t.options or {}))
    return groups


def claim_due_groups(res: Resources, groups: dict[str, dict[str, Any]], now: float) -> list[str]:
    """The groups whose check has come, each claimed until its next (jittered) check."""
    return claim_due_listings(res.engine, groups, now, res.settings)


@dataclass(frozen=True)
class _Member:
    thread_id: int
    submission: str
    cursor: Any


def _members(res: Resources, key: str) -> tuple[list[_Member], dict[str, Any], int]:
    """The group's threads, the first one's options, and how many groups share its
    endpoint (and so its API budget)."""
    endpoint = key.rsplit(":r/", 1)[0]
    groups: set[str] = set()
    rows = []
    with session_scope(res.engine) as s:
        for t in s.scalars(sa.select(Thread).where(Thread.active.is_(True), Thread.kind == "reddit")):
            k = group_key(t, res.settings)
            if k is not None and k.rsplit(":r/", 1)[0] == endpoint:
                groups.add(k)
                if k == key:
                    rows.append(t)
        members = [_Member(t.id, parse_submission_id(t.url), t.cursor) for t in rows]
        return members, (dict(rows[0].options or {}) if rows else {}), len(groups)


def tree_budget(settings: Settings, interval: float, groups: int) -> int:
    """Tree reads one group may make a cycle: the endpoint's calls for one interval
    (``reddit_calls_per_minute``) shared by its groups, less each group's listing and its
    two ``/api/info`` calls (recheck, screen). At least one, so every backlog moves."""
    per_cycle = settings.reddit_calls_per_minute * interval / 60.0
    return max(1, int(per_cycle / max(groups, 1)) - 3)


def check_subreddit(res: Resources, key: str, retries: int = 0) -> int:
    """One cycle of a subreddit group under its lease: the posts stored. A failed listing
    is recorded on the group and on each of its threads (the narrator sees it on the
    source) and moves the group's next check (backoff after *retries* failures)."""
    lease = res.leases.acquire(f"watch:{key}", res.settings.poll_lease_ttl)
    if not lease:
        return 0
    try:
        ensure_table(res.engine)
        members, options, groups = _members(res, key)
        if not members:
            return 0
        return _cycle(res, key, members, options, retries, groups)
    finally:
        lease.release()


def _cycle(res: Resources, key: str, members: list[_Member], options: dict[str, Any],
           retries: int, groups: int) -> int:
    interval = float(options.get("poll_interval") or res.settings.poll_interval)
    by_sub: dict[str, list[int]] = defaultdict(list)
    cursors: dict[str, Any] = {}
    for m in members:
        by_sub[m.submission].append(m.thread_id)
        cursors.setdefault(m.submission, m.cursor)
    subreddit = key.rsplit(":r/", 1)[1]
    try:
        poller = SubredditPoller.from_settings(subreddit, options, res.settings,
                                               max_tree_reads=tree_budget(res.settings, interval, groups))
        out = poller.poll(cursors)
    except SourceError as exc:
        delay = max(interval, res.backoff(min(retries, 6), exc.retry_after))
        now = utcnow()
        with session_scope(res.engine) as s:
            for m in members:
                record_thread_error(s, m.thread_id, exc, None, now)
        with res.engine.begin() as conn:
            save_state(conn, key, next_check=time.time() + delay,
                       error=f"{type(exc).__name__}: {exc}"[:2000])
        log.warning("subreddit listing failed", extra={"group": key, "error": str(exc),
                                                       "retry_in": round(delay, 1)})
        return 0
    stored = _store(res, out.results, by_sub, out.errors)
    with res.engine.begin() as conn:
        save_state(conn, key, state={"requests": out.requests, "gaps": len(out.gaps),
                                     "trees": len(out.tree_reads), "deferred": len(out.deferred),
                                     "watched": len(cursors)},
                   next_check=time.time() + jittered(interval))
    log.log(logging.INFO if stored else logging.DEBUG, "subreddit polled",
            extra={"group": key, "new": stored, "requests": out.requests,
                   "trees": len(out.tree_reads), "deferred": len(out.deferred)})
    return stored


def _store(res: Resources, results: dict[str, Any], by_sub: dict[str, list[int]],
           errors: dict[str, SourceError]) -> int:
    """Each submission's posts with its cursor: the idle ones (nothing new) together in
    one transaction, each one with posts in its own (a failed ingest keeps only that
    thread's old cursor, so its posts are read again)."""
    now = utcnow()
    stored = 0
    idle = [(tid, r) for sid, r in results.items() if not r.posts for tid in by_sub[sid]]
    if idle:
        with session_scope(res.engine) as s:
            for tid, r in idle:
                store_poll(s, tid, r, now)
    for sid, r in results.items():
        if r.posts:
            for tid in by_sub[sid]:
                with session_scope(res.engine) as s:
                    stored += len(store_poll(s, tid, r, now))
    if errors:
        with session_scope(res.engine) as s:
            for sid, err in errors.items():
                for tid in by_sub[sid]:
                    record_thread_error(s, tid, err, None, now)
    return stored
