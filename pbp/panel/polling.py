"""What the narrator sees of each forum's polling (issue 17, SCALE-2): the host's budget
(requests a minute its interval allows, and how many went in the last minute, from the
budget every worker process shares), how long one cycle over its threads should take
(estimated) and how long it does take (measured), and why threads are read one by one.

The estimate is one request per thread polled alone plus one per topic list, at most one
request per ``min_host_interval``. The measurement is what the workers left behind: the
gaps between a topic list's last reads (:mod:`pbp.jobs.listings` keeps them) and, for
threads polled alone, how long the least recently read of them has waited.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from statistics import median
from typing import Any
from urllib.parse import urlsplit

from flask_babel import lazy_gettext as _l
from sqlalchemy.orm import Session

from ..jobs.listings import ListingChoice, listing_of
from ..settings import Settings
from ..store.budget import shared_budget, usage_in
from ..store.polling import forum_thread_reads, listing_reads


@dataclass(frozen=True)
class HostPolling:
    """One forum host as the panel shows it."""

    host: str
    threads: int            # active threads on the host (every campaign)
    listings: int           # topic lists read for them
    alone: int              # threads polled one by one (no topic list)
    per_minute: float       # requests a minute the host's interval allows (0: no limit)
    last_minute: int        # requests sent to it in the last minute, by every worker
    cycle_seconds: float    # one cycle: every list and every thread polled alone (estimate)
    measured_seconds: float | None = None   # the cycle the workers kept (None: not yet read)
    #: why threads are polled alone, most common first: (reason code, detail) of
    #: :class:`~pbp.jobs.listings.ListingChoice`, said by :func:`reason_words`
    alone_reasons: tuple[tuple[str, str], ...] = ()


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def forum_polling(session: Session, settings: Settings, campaign_urls: Iterable[str],
                  database_url: str = "") -> list[HostPolling]:
    """The hosts of *campaign_urls* (the campaign's forum threads), each with its budget
    and cycle time counted over every campaign's active threads on that host. The budget
    is read where the workers keep it: the panel's database (*database_url*) or Redis."""
    hosts = sorted({_host(u) for u in campaign_urls} - {""})
    if not hosts:
        return []
    per_host: dict[str, list[tuple[ListingChoice, datetime | None]]] = {h: [] for h in hosts}
    for url, opts, last, forum in forum_thread_reads(session):
        if _host(url) in per_host:
            per_host[_host(url)].append((listing_of("forum", url, opts, forum), last))
    now = datetime.now(UTC)
    reads = listing_reads(session, {c.url for rows in per_host.values() for c, _ in rows if c.url})
    interval = settings.min_host_interval
    keys = [f"host:{h}" for h in hosts]
    where = settings.rate_budget_url
    if interval <= 0 or where in ("none", "local"):
        uses = []        # no budget shared by the workers to show
    elif where.split("://", 1)[0] in {"redis", "rediss"} or database_url.startswith("sqlite"):
        # Redis, or SQLite's budget file beside the database (pbp.store.budget.budget_database)
        budget = shared_budget(database_url, where, settings.broker_keyprefix)
        uses = budget.usage(keys) if budget is not None else []
    else:
        uses = usage_in(session, keys)
    used = {u.key: u.window_calls for u in uses}
    out = []
    for h in hosts:
        rows = per_host[h]
        lists = {c.url for c, _ in rows if c.url}
        alone_rows = [(c, last) for c, last in rows if not c.url]
        cycle = max(float(settings.poll_interval), (len(alone_rows) + len(lists)) * max(interval, 0.0))
        reasons = Counter((c.reason, c.detail) for c, _ in alone_rows)
        out.append(HostPolling(h, len(rows), len(lists), len(alone_rows),
                               60.0 / interval if interval > 0 else 0.0,
                               used.get(f"host:{h}", 0), cycle,
                               measured_cycle([reads.get(u, []) for u in lists],
                                              [last for _, last in alone_rows], now),
                               tuple(r for r, _ in reasons.most_common())))
    return out


#: the reasons of :data:`pbp.jobs.listings.REASONS` a thread is polled alone, in words
_REASONS = {
    "off": _l("topic list turned off in the thread's options"),
    "no-preset": _l("no preset: %(detail)s"),
    "no-listing": _l("preset '%(detail)s' has no topic list ([listing])"),
    "no-list-url": _l("preset '%(detail)s' does not say where its topic list is"),
    "no-forum": _l("preset '%(detail)s' cannot tell the forum of this thread URL"),
    "not-learned": _l("preset '%(detail)s': its forum is learned at the thread's first read"),
}


def reason_words(reason: tuple[str, str]) -> str:
    """A (code, detail) of :attr:`HostPolling.alone_reasons` in the narrator's language
    (an unknown code as it is: a worker newer than the panel)."""
    code, detail = reason
    words = _REASONS.get(code)
    return str(words) % {"detail": detail} if words is not None else f"{code} {detail}".strip()


def init_app(app: Any) -> None:
    app.jinja_env.filters["listing_reason"] = reason_words


def measured_cycle(list_reads: list[list[float]], alone_reads: list[datetime | None],
                   now: datetime) -> float | None:
    """The cycle the workers kept: the longest median gap between a topic list's reads,
    or the longest a thread polled alone has waited since its last read (threads never
    read yet do not count), whichever is longer; None before anything was read twice.

    >>> at = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    >>> measured_cycle([[0.0, 61.0, 125.0]], [at.replace(minute=0), None], at.replace(minute=1))
    62.5
    >>> measured_cycle([], [], at) is None
    True
    """
    gaps = [median(b - a for a, b in zip(r, r[1:], strict=False)) for r in list_reads if len(r) > 1]
    waits = [(now - (a if a.tzinfo else a.replace(tzinfo=UTC))).total_seconds()
             for a in alone_reads if a is not None]
    found = gaps + waits
    return max(found) if found else None
