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

from pbp.jobs import dispatch, listings, threads
from pbp.jobs.listings import listing_of
from pbp.jobs.resources import utcnow
from pbp.sources.forum import forget_sessions
from pbp.sources.forum_watch import ForumWatcher
from pbp.sources.http import reset_host_intervals
from pbp.store.models import Thread
from tests.harness.misago.helpers import player_posts, visible_posts
from tests.sources import test_forum_listing_default as _default
from tests.sources.test_forum_listing_default import _watch
from tests.sources.test_forum_misago import new_thread, settings, source
from workers.runtime import Runtime

pytestmark = pytest.mark.integration


rt = _default.rt   # the worker runtime on SQLite, host interval 0 (pytest finds it by name)


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


def test_scale2_misago_thread_joins_its_list_after_its_first_read(misago: Any, rt: Runtime) -> None:
    """SCALE-2, through the jobs: a Misago thread never read is polled alone; its first
    poll stores the category in its cursor, so the next dispatch checks the category's
    list; a player's post is found through the list and only then is the thread polled."""
    url, tid, _ = new_thread(misago, "Joins its list", 2)
    thread = _watch(rt, url, preset="misago")
    due = dispatch.due_polls(rt, utcnow())
    assert due.listings == [] and [t for t, _ in due.threads] == [thread]
    assert threads.poll_thread(rt, thread).stored == 2
    listing = f"{misago.base}/api/threads/?category={_category(misago.base, tid)}"
    with rt.engine.begin() as conn:
        conn.execute(Thread.__table__.update().values(next_poll=None))
    assert dispatch.due_polls(rt, utcnow()).listings == [listing]
    assert listings.check_listing(rt, listing) == []           # read just now
    player_posts(misago.base, tid, "The door creaks")
    assert listings.check_listing(rt, listing) == [thread]
    assert threads.poll_thread(rt, thread).stored == 1
