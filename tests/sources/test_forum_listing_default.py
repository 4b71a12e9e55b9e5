"""SCALE-2 (issue 17 item 2): a forum's topic list is found from its preset and used by
default, against the real django-machina harness; a preset without one polls its threads
one by one and says why."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from pbp.jobs import dispatch, listings, threads
from pbp.jobs.listings import listing_of
from pbp.jobs.resources import utcnow
from pbp.settings import load_settings
from pbp.sources.forum import forget_sessions
from pbp.sources.http import reset_host_intervals
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Base, Campaign, Post, Thread
from tests.harness.machina.helpers import player_posts
from workers.locks import DatabaseLease
from workers.runtime import Runtime

pytestmark = pytest.mark.integration


@pytest.fixture
def rt(tmp_path: Path) -> Iterator[Runtime]:
    forget_sessions()
    reset_host_intervals()
    settings = load_settings(env={"PBP_DATA_DIR": str(tmp_path / "var"), "PBP_MIN_HOST_INTERVAL": "0",
                                  "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1", "PBP_POLL_INTERVAL": "60"})
    engine = make_engine(f"sqlite:///{tmp_path}/pbp.sqlite")
    Base.metadata.create_all(engine)
    yield Runtime(settings, engine, DatabaseLease(engine))
    engine.dispose()


def _watch(rt: Runtime, url: str, **options: Any) -> int:
    with session_scope(rt.engine) as s:
        c = Campaign(name="c", slug=f"c-{len(url)}-{url[-12:].strip('/')}", ruleset="forum-d20")
        s.add(c)
        s.flush()
        t = Thread(campaign_id=c.id, kind="forum", url=url, platform="markdown",
                   options={"preset": "machina", "allowed_hosts": ["127.0.0.1"], **options})
        s.add(t)
        s.flush()
        return int(t.id)


def _posts(rt: Runtime, tid: int) -> list[str]:
    with session_scope(rt.engine) as s:
        return list(s.scalars(select(Post.body).where(Post.thread_id == tid)))


def test_scale2_machina_topic_list_is_found_from_the_preset(machina: Any, new_topic: Any) -> None:
    """SCALE-2: the forum view a machina topic lives in (/forum/forum/<slug>-<id>/) is its
    topic list, with no ``listing_url`` in the thread's options."""
    topic = new_topic(machina, "Found by default", 1)
    forum = re.match(r"(.*/forum/forum/[^/]+-\d+/)topic/", topic)
    assert forum is not None
    choice = listing_of("forum", topic, {"preset": "machina"})
    assert choice.url == forum.group(1) and choice.reason == "preset"


def test_scale2_threads_are_watched_through_the_derived_list(machina: Any, new_topic: Any,
                                                             rt: Runtime) -> None:
    """SCALE-2: dispatch checks the derived list; after the thread's own first read the
    list's first walk polls nothing again; a player's post moves the topic and only then
    is the thread polled, and the post stored."""
    topic = new_topic(machina, "Watched by its list", 1)
    quiet = new_topic(machina, "Quiet neighbour", 1)
    tid, other = _watch(rt, topic), _watch(rt, quiet)
    forum = listing_of("forum", topic, {"preset": "machina"}).url
    due = dispatch.due_polls(rt, utcnow())
    assert due.listings == [forum]
    assert {t for t, _ in due.threads} == {tid, other}       # their first reads, alone
    assert threads.poll_thread(rt, tid).stored == 1
    assert threads.poll_thread(rt, other).stored == 1
    assert listings.check_listing(rt, forum) == []           # both read just now
    assert listings.check_listing(rt, forum) == []           # nothing moved
    player_posts(machina.base, topic, "I hide behind the barrel")
    assert listings.check_listing(rt, forum) == [tid]
    assert threads.poll_thread(rt, tid).stored == 1
    assert any("barrel" in body for body in _posts(rt, tid))


def test_scale2_a_preset_without_a_list_polls_alone_with_its_reason(rt: Runtime) -> None:
    """SCALE-2: SMF 2.1's topic URL does not name its board: until a read of the thread
    learned it (its breadcrumb), the thread is polled alone, and the reason code says so;
    a preset with no ``[listing]`` (phpBB 3: no forum list page was saved to read one
    from) says that; a thread whose options turn the list off is polled alone too."""
    smf = _watch(rt, "http://127.0.0.1:8102/index.php?topic=2.0", preset="smf21")
    off = _watch(rt, "http://127.0.0.1:8002/forum/forum/a-1/topic/b-2/", listing_url="")
    choice = listing_of("forum", "http://127.0.0.1:8102/index.php?topic=2.0", {"preset": "smf21"})
    assert (choice.url, choice.reason, choice.detail) == (None, "not-learned", "smf21")
    choice = listing_of("forum", "http://127.0.0.1:8102/viewtopic.php?t=2", {"preset": "phpbb3"})
    assert (choice.url, choice.reason, choice.detail) == (None, "no-listing", "phpbb3")
    assert listing_of("forum", "http://127.0.0.1:8002/forum/forum/a-1/topic/b-2/",
                      {"preset": "machina", "listing_url": ""}).reason == "off"
    due = dispatch.due_polls(rt, utcnow())
    assert due.listings == [] and {t for t, _ in due.threads} == {smf, off}
