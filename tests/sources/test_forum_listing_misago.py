"""SCALE-2 (issue 17 item 2), live: Misago's topic list is its JSON API's thread list of a
category (``/api/threads/?category=ID``: ``results``, each thread's ``id`` and
``last_post``), read by the watcher; the category comes from the thread's posts API
(``category.id``), learned at a read of the thread and kept in its cursor.

A real Misago 0.39.6 (tests/harness/misago/); the oracle is what Misago itself answers a
plain client (the thread's ``category`` and its posts' ids), not pbp. Posts are written by
the player's own client (tests/harness/misago/helpers.py).
"""

from __future__ import annotations

from typing import Any

import pytest
import requests

from pbp.jobs.listings import listing_of
from pbp.sources.forum import forget_sessions
from pbp.sources.forum_watch import ForumWatcher
from pbp.sources.http import reset_host_intervals
from tests.harness.misago.helpers import player_posts, visible_posts
from tests.sources.test_forum_misago import new_thread, settings, source

pytestmark = pytest.mark.integration


@pytest.fixture(autouse=True)
def _fresh_sessions() -> None:
    forget_sessions()
    reset_host_intervals()


def _category(base: str, tid: str) -> str:
    """The thread's category as Misago's thread API says it."""
    return str(requests.get(f"{base}/api/threads/{tid}/", timeout=30).json()["category"]["id"])


def test_scale2_misago_thread_is_watched_through_its_categorys_api_list(misago: Any) -> None:
    """SCALE-2: the first read keeps the thread's category in its cursor; the list URL is
    the category's thread API; its first walk gives each thread's newest post id; a
    player's post moves only that thread, with the new post's id as its marker."""
    url, tid, _ = new_thread(misago, "Listed by category", 3)
    quiet_url, quiet, _ = new_thread(misago, "Quiet by category", 2)
    category = _category(misago.base, tid)
    assert listing_of("forum", url, {"preset": "misago"}).reason == "not-learned"
    first = source(url).fetch(None)
    assert first.cursor["forum"] == category
    choice = listing_of("forum", url, {"preset": "misago"}, first.cursor["forum"])
    assert (choice.url, choice.reason) == (f"{misago.base}/api/threads/?category={category}", "learned")
    assert choice.url is not None
    watcher = ForumWatcher(choice.url, "misago", settings=settings())
    walk = watcher.changed(None)
    newest = {t: str(max(int(i) for i in visible_posts(misago.base, t))) for t in (tid, quiet)}
    assert {t: walk.last_posts[t] for t in (tid, quiet)} == newest
    assert {tid, quiet} <= walk.changed and walk.requests == 1
    assert watcher.changed(walk.state).changed == frozenset()
    new_id = player_posts(misago.base, tid, "I listen at the door")
    moved = watcher.changed(walk.state)
    assert moved.changed == frozenset({tid}) and moved.last_posts[tid] == str(new_id)
    assert source(quiet_url).fetch(None).cursor["forum"] == category   # one list for both
