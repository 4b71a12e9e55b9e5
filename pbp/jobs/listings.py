"""Forum topic-list watching: one request per forum tells which watched threads grew.

Why: polling 1,000 threads one by one costs 1,000 requests a cycle even when every
thread page answers 304. A thread whose options name its forum's topic list
(``listing_url``) is instead checked through :class:`pbp.sources.forum_watch.ForumWatcher`
every poll interval, and read itself only when its last post changed — plus a full
re-read as often as its activity asks (:func:`~pbp.jobs.threads.recheck_interval`) for edits
and deletions, which do not move a topic's last post, and for anything the listing walk
did not reach.

The listing's state (last post per topic, ETag) lives in ``pbp_watch_state``, beside the
leases (:mod:`pbp.store.infra`, migration 0004); losing a row costs one full listing walk.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from ..settings import Settings
from ..sources.base import SourceError
from ..sources.forum_preset import ForumPreset, load_preset
from ..sources.forum_watch import ForumWatcher
from ..store.db import session_scope
from ..store.infra import watch_table
from ..store.models import Thread
from .resources import Resources
from .schedule import jittered

log = logging.getLogger("pbp.jobs.listings")


def ensure_table(engine: Engine) -> None:
    """Create ``pbp_watch_state`` on a bare engine (tests); migrations make it otherwise."""
    key = id(engine)
    if key not in _ensured:
        watch_table.metadata.create_all(engine, tables=[watch_table], checkfirst=True)
        _ensured.add(key)


_ensured: set[int] = set()


def load_state(conn: Connection, key: str) -> tuple[dict[str, Any] | None, float]:
    row = conn.execute(sa.select(watch_table.c.state, watch_table.c.next_check)
                       .where(watch_table.c.key == key)).first()
    return (json.loads(row[0]), float(row[1])) if row else (None, 0.0)


def save_state(conn: Connection, key: str, *, state: dict[str, Any] | None = None,
               next_check: float, error: str | None = None) -> None:
    values: dict[str, Any] = {"next_check": next_check, "last_check": time.time()}
    if state is not None:
        values["state"] = json.dumps(state)
    values["last_error"] = error
    done = conn.execute(watch_table.update().where(watch_table.c.key == key).values(
        **values, error_count=(watch_table.c.error_count + 1) if error else 0)).rowcount
    if not done:
        conn.execute(watch_table.insert().values(key=key, state=values.get("state", "{}"),
                                                 next_check=next_check, last_check=values["last_check"],
                                                 last_error=error, error_count=1 if error else 0))


def due_listings(conn: Connection, urls: set[str], now: float) -> list[str]:
    """Listing URLs whose next check has come (never checked counts as due)."""
    if not urls:
        return []
    rows = dict(conn.execute(sa.select(watch_table.c.key, watch_table.c.next_check)
                             .where(watch_table.c.key.in_(sorted(urls)))).all())
    return [u for u in sorted(urls) if rows.get(u, 0.0) <= now]


def claim_listing(conn: Connection, key: str, now: float, until: float) -> bool:
    """Move a due listing's next check to *until* (so one dispatcher sends it once)."""
    done = conn.execute(watch_table.update().where(watch_table.c.key == key,
                                                   watch_table.c.next_check <= now)
                        .values(next_check=until)).rowcount
    if done:
        return True
    exists = conn.execute(sa.select(watch_table.c.key).where(watch_table.c.key == key)).first()
    if exists:
        return False
    conn.execute(watch_table.insert().values(key=key, state="{}", next_check=until, error_count=0))
    return True


@functools.lru_cache(maxsize=64)
def _preset(name: str, overrides_json: str) -> ForumPreset:
    return load_preset(name, json.loads(overrides_json) or None)


def _preset_of(options: dict[str, Any]) -> ForumPreset:
    return _preset(options.get("preset", "machina"),
                   json.dumps(options.get("overrides") or {}, sort_keys=True))


def topic_id(url: str, options: dict[str, Any]) -> str | None:
    """The forum's topic id of a thread URL, by its preset's thread pattern."""
    m = _preset_of(options).thread.pattern.match(url)
    return m.group("tid") if m and "tid" in m.groupdict() else None


def watcher_for(listing_url: str, options: dict[str, Any], settings: Settings) -> ForumWatcher:
    return ForumWatcher(listing_url, _preset_of(options), settings=settings,
                        allowed_hosts=options.get("allowed_hosts"))


def active_listings(session: Session) -> dict[str, dict[str, Any]]:
    """Each topic list some active thread is watched through, with that thread's options."""
    listings: dict[str, dict[str, Any]] = {}
    for (opts,) in session.execute(sa.select(Thread.options).where(Thread.active.is_(True))):
        url = (opts or {}).get("listing_url")
        if url:
            listings.setdefault(url, dict(opts))
    return listings


def claim_due_listings(engine: Engine, listings: dict[str, dict[str, Any]], now: float,
                       settings: Settings) -> list[str]:
    """The listings whose check has come, each claimed until its next (jittered) check;
    committed before the caller sends anything."""
    if not listings:
        return []
    ensure_table(engine)
    claimed = []
    with engine.begin() as conn:
        for url in due_listings(conn, set(listings), now):
            interval = float(listings[url].get("poll_interval") or settings.poll_interval)
            if claim_listing(conn, url, now, now + jittered(interval)):
                claimed.append(url)
    return claimed


def _watched_threads(engine: Engine, listing_url: str) -> tuple[dict[str, list[int]], dict[str, Any]]:
    """The watched threads of a listing by topic id, and the first one's options."""
    with session_scope(engine) as s:
        rows = [(t.id, t.url, dict(t.options or {})) for t in s.scalars(
            sa.select(Thread).where(Thread.active.is_(True)))
            if (t.options or {}).get("listing_url") == listing_url]
    by_topic: dict[str, list[int]] = {}
    for tid, url, opts in rows:
        topic = topic_id(url, opts)
        if topic is not None:
            by_topic.setdefault(topic, []).append(tid)
    return by_topic, (rows[0][2] if rows else {})


def check_listing(res: Resources, listing_url: str, retries: int = 0) -> list[int]:
    """Read a forum's topic list under its lease; the watched threads whose last post
    changed, to poll. A failed read is recorded on the listing and moves its next check
    (backoff after *retries* failures, never sooner than its interval)."""
    lease = res.leases.acquire(f"watch:{listing_url}", res.settings.poll_lease_ttl)
    if not lease:
        return []
    try:
        ensure_table(res.engine)
        by_topic, options = _watched_threads(res.engine, listing_url)
        if not options:
            return []
        return _read_listing(res, listing_url, options, by_topic, retries)
    finally:
        lease.release()


def _read_listing(res: Resources, listing_url: str, options: dict[str, Any],
                  by_topic: dict[str, list[int]], retries: int) -> list[int]:
    interval = float(options.get("poll_interval") or res.settings.poll_interval)
    with res.engine.begin() as conn:
        state, _ = load_state(conn, listing_url)
    try:
        result = watcher_for(listing_url, options, res.settings).changed(state or None)
    except SourceError as exc:
        delay = max(interval, res.backoff(min(retries, 6), exc.retry_after))
        with res.engine.begin() as conn:
            save_state(conn, listing_url, next_check=time.time() + delay,
                       error=f"{type(exc).__name__}: {exc}"[:2000])
        log.warning("topic list failed", extra={"error": str(exc), "retry_in": round(delay, 1)})
        return []
    due = sorted({tid for topic in result.changed for tid in by_topic.get(topic, ())})
    with res.engine.begin() as conn:
        save_state(conn, listing_url, state=dict(result.state),
                   next_check=time.time() + jittered(interval))
    log.info("topic list read", extra={"changed": len(due), "requests": result.requests,
                                       "not_modified": result.not_modified})
    return due
