"""Forum topic-list watching: one request per forum tells which watched threads grew.

Why: polling 1,000 threads one by one costs 1,000 requests a cycle even when every
thread page answers 304, and at a forum's 30 requests a minute that is a 33-minute cycle.
A forum thread whose preset says where its forum's topic list lives (``[listing]``
``forum_pattern`` and ``url``: :func:`listing_of`, by default since SCALE-2), or whose
options name one (``listing_url``; empty turns it off), is instead checked through
:class:`pbp.sources.forum_watch.ForumWatcher` every poll interval, and read itself only when its last post changed — plus a full
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
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session

from ..errors import ConfigError
from ..settings import Settings
from ..sources.base import SourceError
from ..sources.forum_preset import ForumPreset, load_preset
from ..sources.forum_watch import ForumWatcher
from ..store.db import reading
from ..store.infra import create_tables, watch_table
from ..store.models import Thread
from ..store.polling import LEARNED_FORUM
from .resources import Resources
from .schedule import jittered

log = logging.getLogger("pbp.jobs.listings")

#: read times of a topic list kept in its state (the measured cycle: SCALE-2)
CHECKS_KEPT = 6


def ensure_table(engine: Engine) -> None:
    """Create ``pbp_watch_state`` on a bare engine (tests); migrations make it otherwise."""
    key = id(engine)
    if key not in _ensured:
        create_tables(engine, [watch_table])
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


def _preset_of(options: dict[str, Any]) -> ForumPreset:
    """The thread's preset: parsed once per process per file version (load_preset's cache)."""
    return load_preset(options.get("preset", "machina"), options.get("overrides") or None)


#: why a thread is watched as it is (:attr:`ListingChoice.reason`): codes, said in the
#: narrator's language by the panel (:mod:`pbp.panel.polling`), *detail* filled in
REASONS = ("named", "off", "no-preset", "no-listing", "no-list-url", "no-forum", "not-learned",
           "preset", "learned")


@dataclass(frozen=True)
class ListingChoice:
    """How a forum thread is watched (SCALE-2): through *url*, its forum's topic list, or
    alone (*url* None) for the *reason* (a code of :data:`REASONS`; *detail* the preset's
    name or what was wrong with it) the narrator reads on the campaign page."""

    url: str | None
    reason: str
    detail: str = ""


def listing_of(kind: str, url: str, options: dict[str, Any],
               forum: str | None = None) -> ListingChoice:
    """The topic list a thread is watched through, found from its preset by default.

    A ``listing_url`` in the thread's options wins; an empty or false one turns the topic
    list off for that thread. Otherwise the preset's ``[listing]`` says where the engine's
    list of a thread's forum lives (``forum_pattern`` on the thread URL, ``url``), or, for
    engines whose topic URLs do not name their forum (SMF, MyBB, Misago), *forum*: what a
    read of the thread learned (the ``forum`` of its cursor, :func:`learned_forum`). A
    preset without it, or a URL it cannot read, leaves the thread polled alone, with the reason.
    """
    if "listing_url" in options:
        named = options.get("listing_url")
        return ListingChoice(str(named), "named") if named else ListingChoice(None, "off")
    if kind != "forum":
        return ListingChoice(None, "")
    return _derived(url, json.dumps(options, sort_keys=True, default=str), forum)


def learned_forum(cursor: Any) -> str | None:
    """The forum a thread's reads learned (SCALE-2), from its cursor."""
    forum = cursor.get("forum") if isinstance(cursor, dict) else None
    return str(forum) if forum else None


@functools.lru_cache(maxsize=20_000)
def _derived(url: str, options_json: str, forum: str | None) -> ListingChoice:
    options = json.loads(options_json)
    try:
        preset = _preset_of(options)
    except ConfigError as exc:
        return ListingChoice(None, "no-preset", str(exc))
    spec = preset.listing
    if spec is None:
        return ListingChoice(None, "no-listing", preset.name)
    m = preset.thread.pattern.match(url)
    groups = {k: v for k, v in m.groupdict().items() if v is not None} if m else {}
    if spec.learns_forum:
        if not forum:
            return ListingChoice(None, "not-learned", preset.name)
        groups["forum"] = forum
    found = spec.listing_url(url, groups) if m else None
    if found is None:
        return ListingChoice(None, "no-list-url" if not spec.url else "no-forum", preset.name)
    return ListingChoice(found, "learned" if spec.learns_forum else "preset")


def topic_id(url: str, options: dict[str, Any]) -> str | None:
    """The forum's topic id of a thread URL, by its preset's thread pattern."""
    m = _preset_of(options).thread.pattern.match(url)
    return m.group("tid") if m and "tid" in m.groupdict() else None


def watcher_for(listing_url: str, options: dict[str, Any], settings: Settings) -> ForumWatcher:
    return ForumWatcher(listing_url, _preset_of(options), settings=settings,
                        allowed_hosts=options.get("allowed_hosts"))


def active_listings(session: Session) -> dict[str, dict[str, Any]]:
    """Each topic list some active thread is watched through (:func:`listing_of`), with
    that thread's options."""
    listings: dict[str, dict[str, Any]] = {}
    for kind, url, opts, forum in session.execute(
            sa.select(Thread.kind, Thread.url, Thread.options, LEARNED_FORUM)
            .where(Thread.active.is_(True))):
        listing = listing_of(kind, url, dict(opts or {}), forum).url
        if listing:
            listings.setdefault(listing, dict(opts or {}))
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


def _watched_threads(engine: Engine, listing_url: str
                     ) -> tuple[dict[str, list[int]], dict[str, Any], dict[int, float]]:
    """The watched threads of a listing by topic id, the first one's options, and when
    each was last read (0: never)."""
    with reading(engine).connect() as conn:
        rows = [(tid, url, dict(opts or {}), last) for tid, kind, url, opts, last, forum in conn.execute(
            sa.select(Thread.id, Thread.kind, Thread.url, Thread.options, Thread.last_poll, LEARNED_FORUM)
            .where(Thread.active.is_(True)))
            if listing_of(kind, url, dict(opts or {}), forum).url == listing_url]
    by_topic: dict[str, list[int]] = {}
    for tid, url, opts, _ in rows:
        topic = topic_id(url, opts)
        if topic is not None:
            by_topic.setdefault(topic, []).append(tid)
    read_at = {tid: (_epoch(last) if last is not None else 0.0) for tid, _, _, last in rows}
    return by_topic, (rows[0][2] if rows else {}), read_at


def _epoch(at: datetime) -> float:
    """SQLite hands back naive UTC times."""
    return (at if at.tzinfo is not None else at.replace(tzinfo=UTC)).timestamp()


def check_listing(res: Resources, listing_url: str, retries: int = 0) -> list[int]:
    """Read a forum's topic list under its lease; the watched threads whose last post
    changed, to poll. A failed read is recorded on the listing and moves its next check
    (backoff after *retries* failures, never sooner than its interval)."""
    lease = res.leases.acquire(f"watch:{listing_url}", res.settings.poll_lease_ttl)
    if not lease:
        return []
    try:
        ensure_table(res.engine)
        by_topic, options, read_at = _watched_threads(res.engine, listing_url)
        if not options:
            return []
        return _read_listing(res, listing_url, options, by_topic, read_at, retries)
    finally:
        lease.release()


def _read_listing(res: Resources, listing_url: str, options: dict[str, Any],
                  by_topic: dict[str, list[int]], read_at: dict[int, float],
                  retries: int) -> list[int]:
    interval = float(options.get("poll_interval") or res.settings.poll_interval)
    with reading(res.engine).connect() as conn:
        state, _ = load_state(conn, listing_url)
    started = time.time()
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
    if not (state or {}).get("last_posts"):
        # the first walk counts every listed topic as changed: read only the threads not
        # read within an interval (their own first poll has their posts), not all again
        due = [tid for tid in due if read_at.get(tid, 0.0) < started - interval]
    new_state = dict(result.state)
    # when the list was read, the last few times: the campaign page's measured cycle
    new_state["checks"] = [*list((state or {}).get("checks") or [])[-(CHECKS_KEPT - 1):],
                           round(started, 1)]
    with res.engine.begin() as conn:
        save_state(conn, listing_url, state=new_state,
                   next_check=time.time() + jittered(interval))
    log.info("topic list read", extra={"changed": len(due), "requests": result.requests,
                                       "not_modified": result.not_modified})
    return due
