"""Which watched threads are polled together rather than one by one (issue 17 item 1).

Apart from :mod:`.subreddits` because the per-thread scheduler (:mod:`.threads`) must
skip them too, and :mod:`.subreddits` builds on :mod:`.threads`.
"""

from __future__ import annotations

from ..errors import ConfigError
from ..settings import Settings
from ..sources.reddit_tree import subreddit_of
from ..store.models import Thread

_PREFIX = "reddit:"


def group_key(thread: Thread, settings: Settings) -> str | None:
    """The subreddit group a Reddit thread is polled in, or None to poll it on its own."""
    opts = thread.options or {}
    if thread.kind != "reddit" or opts.get("poll") == "thread":
        return None
    sub = subreddit_in(thread.url)
    if sub is None:
        return None
    endpoint = opts.get("oauth_url") or settings.reddit_oauth_url
    return f"{_PREFIX}{endpoint}:r/{sub.lower()}"


def subreddit_in(url: str) -> str | None:
    """The subreddit a submission URL names; None when it does not say (``redd.it/ID``):
    asking Reddit would cost a call every dispatch, so such a thread is polled alone."""
    try:
        return subreddit_of(url)
    except ConfigError:
        return None
