"""What the dispatcher sends each tick: threads, forum topic lists, subreddit groups.

Apart from :mod:`.listings` and :mod:`.subreddits` because it joins them, and both sit
on :mod:`.threads`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..store.db import session_scope
from .listings import active_listings, claim_due_listings
from .resources import Resources
from .subreddits import active_groups, claim_due_groups
from .threads import schedule_due_polls


@dataclass(frozen=True)
class DuePolls:
    """(thread id, interval) per thread polled alone, topic lists, subreddit groups."""

    threads: list[tuple[int, float]]
    listings: list[str]
    subreddits: list[str]


def due_polls(res: Resources, now: datetime) -> DuePolls:
    """The threads whose next poll has come (moved to their next one), the topic lists and
    the subreddit groups whose check has come (claimed), all committed before the caller
    sends anything."""
    with session_scope(res.engine) as s:
        threads = schedule_due_polls(s, now, res.settings)
        listings = active_listings(s)
        groups = active_groups(s, res.settings)
    return DuePolls(threads, claim_due_listings(res.engine, listings, now.timestamp(), res.settings),
                    claim_due_groups(res, groups, now.timestamp()))
