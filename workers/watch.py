"""Forum topic-list watching: one request per forum tells which watched threads grew.

Why: polling 1,000 threads one by one costs 1,000 requests a cycle even when every
thread page answers 304. A thread whose options name its forum's topic list
(``listing_url``) is instead checked through :class:`pbp.sources.forum_watch.ForumWatcher`
every poll interval, and read itself only when its last post changed — plus a full
re-read every ``recheck_factor`` intervals (default 10) for edits and deletions, which
do not move a topic's last post, and for anything the listing walk did not reach.

The listing's state (last post per topic, ETag) lives in ``pbp_watch_state``, beside the
leases (:mod:`pbp.store.infra`, migration 0004); losing a row costs one full listing walk.
"""

from __future__ import annotations

import functools
import json
import time
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from pbp.store.infra import watch_table

from .locks import metadata

#: a listing-watched thread is re-read in full every this many poll intervals
RECHECK_FACTOR = 10


def ensure_table(engine: Engine) -> None:
    key = id(engine)
    if key not in _ensured:
        metadata.create_all(engine, tables=[watch_table], checkfirst=True)
        _ensured.add(key)


_ensured: set[int] = set()


def load_state(conn: Any, key: str) -> tuple[dict[str, Any] | None, float]:
    row = conn.execute(sa.select(watch_table.c.state, watch_table.c.next_check)
                       .where(watch_table.c.key == key)).first()
    return (json.loads(row[0]), float(row[1])) if row else (None, 0.0)


def save_state(conn: Any, key: str, *, state: dict[str, Any] | None = None, next_check: float,
               error: str | None = None) -> None:
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


def due_listings(conn: Any, urls: set[str], now: float) -> list[str]:
    """Listing URLs whose next check has come (never checked counts as due)."""
    if not urls:
        return []
    rows = dict(conn.execute(sa.select(watch_table.c.key, watch_table.c.next_check)
                             .where(watch_table.c.key.in_(sorted(urls)))).all())
    return [u for u in sorted(urls) if rows.get(u, 0.0) <= now]


def claim_listing(conn: Any, key: str, now: float, until: float) -> bool:
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
def _preset(name: str, overrides_json: str) -> Any:
    from pbp.sources.forum_preset import load_preset

    return load_preset(name, json.loads(overrides_json) or None)


def topic_id(url: str, options: dict[str, Any]) -> str | None:
    """The forum's topic id of a thread URL, by its preset's thread pattern."""
    preset = _preset(options.get("preset", "machina"), json.dumps(options.get("overrides") or {},
                                                                     sort_keys=True))
    m = preset.thread.pattern.match(url)
    return m.group("tid") if m and "tid" in m.groupdict() else None


def watcher_for(listing_url: str, options: dict[str, Any], settings: Any) -> Any:
    from pbp.sources.forum_watch import ForumWatcher

    return ForumWatcher(listing_url, _preset(options.get("preset", "machina"),
                                             json.dumps(options.get("overrides") or {}, sort_keys=True)),
                        settings=settings, allowed_hosts=options.get("allowed_hosts"))
