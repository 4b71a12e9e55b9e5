"""What the narrator sees of each forum's polling (issue 17, SCALE-2): the host's budget
(requests a minute its interval allows, and how many went in the last minute, from the
budget every worker process shares) and how long one cycle over its threads takes.

Why an estimate and not a measurement: a cycle is one request per thread polled alone
plus one per topic list, at most one request per ``min_host_interval``; that is what
decides whether a forum's threads are read within the poll interval.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.orm import Session

from ..settings import Settings
from ..store.budget import shared_budget, usage_in
from ..store.polling import active_forum_threads


@dataclass(frozen=True)
class HostPolling:
    """One forum host as the panel shows it."""

    host: str
    threads: int            # active threads on the host (every campaign)
    listings: int           # topic lists read for them
    alone: int              # threads polled one by one (no topic list)
    per_minute: float       # requests a minute the host's interval allows (0: no limit)
    last_minute: int        # requests sent to it in the last minute, by every worker
    cycle_seconds: float    # one cycle: every list and every thread polled alone


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
    per_host: dict[str, list[dict[str, Any]]] = {h: [] for h in hosts}
    for url, opts in active_forum_threads(session):
        if _host(url) in per_host:
            per_host[_host(url)].append(opts)
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
        opts = per_host[h]
        listings = len({o["listing_url"] for o in opts if o.get("listing_url")})
        alone = sum(1 for o in opts if not o.get("listing_url"))
        cycle = max(float(settings.poll_interval), (alone + listings) * max(interval, 0.0))
        out.append(HostPolling(h, len(opts), listings, alone,
                               60.0 / interval if interval > 0 else 0.0,
                               used.get(f"host:{h}", 0), cycle))
    return out
