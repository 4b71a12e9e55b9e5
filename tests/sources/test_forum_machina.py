"""End to end on a real forum engine: django-machina on SQLite (tests/harness/machina/),
run both as shipped (no validators) and with Django's ConditionalGetMiddleware (ETag/304).

A player posts through the forum's own form with a plain browser-like client (not pbp's
code), pbp's ForumSource reads it, pbp's bot replies through the form, and the reply is
on the thread page an anonymous visitor sees.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from pbp.settings import load_settings
from pbp.sources.base import LayoutError, Source, SourceError
from pbp.sources.forum import ForumSource, forget_sessions
from pbp.sources.forum_watch import ForumWatcher
from pbp.sources.http import reset_host_intervals
from tests.harness.machina.helpers import player_posts, visible_posts

pytestmark = pytest.mark.integration

BOT = {"username": "pbpbot", "password": "botpass"}


@pytest.fixture(autouse=True)
def _fresh_sessions() -> None:
    forget_sessions()
    reset_host_intervals()


def settings() -> Any:
    return load_settings(env={"PBP_MIN_HOST_INTERVAL": "0", "PBP_USER_AGENT": "pbp-tests/1",
                              "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})


def source(url: str, creds: dict[str, str] | None = None, **kw: Any) -> ForumSource:
    return ForumSource(url, "machina", settings=settings(), credentials=creds or BOT, **kw)


def test_end_to_end_declaration_read_and_reply_visible(machina_any: Any, new_topic: Any) -> None:
    topic = new_topic(machina_any, "E2E goblin ambush", 1)
    src = source(topic)
    assert isinstance(src, Source)
    first = src.fetch(None)
    assert [p.author for p in first.posts] == ["admin"]

    declaration = 'I attack the goblin [roll]1d20+5[/roll] "Die, beast!"'
    pid = player_posts(machina_any.base, topic, declaration)
    got = src.fetch(first.cursor)
    assert [(p.platform_id, p.author, p.text, p.change) for p in got.posts] == [
        (str(pid), "player", declaration, "new")]
    assert got.requests == 1 and not got.not_modified
    assert got.posts[0].url.endswith(f"?post={pid}#{pid}")

    marker = "[pbp:r1-e2e]"
    reply_id = src.reply(f"Round 1: the goblin takes 9 damage. {marker}", marker)
    assert int(reply_id) > pid
    assert visible_posts(topic)[reply_id] == f"Round 1: the goblin takes 9 damage. {marker}"
    assert src.find_reply(marker) == reply_id
    assert src.find_reply("[pbp:never-posted]") is None
    after = src.fetch(got.cursor)
    assert [(p.platform_id, p.author) for p in after.posts] == [(reply_id, "pbpbot")]


def test_idle_thread_costs_one_request_and_no_parse(machina_any: Any, new_topic: Any,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    topic = new_topic(machina_any, "Idle corridor", 7)
    src = source(topic)
    if time.gmtime().tm_sec > 50:   # machina prints the render minute: its ETag changes then
        time.sleep(61 - time.gmtime().tm_sec)
    first = src.fetch(None)
    assert len(first.posts) == 7 and first.cursor["page"] == 2
    assert (first.cursor["etag"] is not None) == machina_any.etag

    def no_parse(*a: Any, **k: Any) -> None:
        raise AssertionError("an idle thread must not be parsed")
    monkeypatch.setattr(src, "_parse", no_parse)
    idle = src.fetch(first.cursor)
    assert idle.posts == [] and idle.not_modified and idle.requests == 1
    if machina_any.etag:
        assert idle.bytes < 1000      # a 304: headers only
    else:
        assert idle.bytes > 5000      # no validators: the page, hashed, not parsed


def test_pages_walk_back_edits_and_deletions(machina_any: Any, new_topic: Any) -> None:
    topic = new_topic(machina_any, "Long siege", 12)
    src = source(topic)
    first = src.fetch(None)
    ids = [p.platform_id for p in first.posts]
    assert len(ids) == 12 and ids == sorted(ids, key=int) and first.requests == 3
    assert [p.extra["page"] for p in first.posts] == [1] * 5 + [2] * 5 + [3] * 2
    # a new page appears: the source jumps to it and walks back no further than needed
    new = [player_posts(machina_any.base, topic, f"I hold the gate, turn {i}") for i in range(5)]
    grown = src.fetch(first.cursor)
    assert [int(p.platform_id) for p in grown.posts] == new
    assert grown.cursor["page"] == 4 and grown.requests == 2
    # an edit on the last page and a deletion before it
    machina_any.seed("edit", str(new[-1]), "I hold the gate, turn 4 (edited)")
    machina_any.seed("delete", str(new[0]))
    changed = src.fetch(grown.cursor)
    got = {(p.platform_id, p.change) for p in changed.posts}
    assert got == {(str(new[-1]), "edited"), (str(new[0]), "deleted")}
    edited = next(p for p in changed.posts if p.change == "edited")
    assert edited.text == "I hold the gate, turn 4 (edited)"
    assert src.fetch(changed.cursor).posts == []


def test_an_edit_on_an_earlier_page_is_seen_by_the_full_re_read(machina: Any, new_topic: Any) -> None:
    """issue 14 point 7: a poll reads the last page, so an edit on page 1 of a 3-page
    thread is not seen by it; the full re-read (a narrator's request here; every
    ``full_reread_hours`` otherwise) reads every page, parses only the pages whose hash
    changed, and reports that edit, once."""
    topic = new_topic(machina, "Old pages", 12)
    src = source(topic)
    first = src.fetch(None)
    assert first.cursor["full_at"] and sorted(first.cursor["page_hashes"]) == ["1", "2", "3"]
    page1 = [p.platform_id for p in first.posts if p.extra["page"] == 1]
    machina.seed("edit", page1[1], "I climb the wall instead (edited)")
    assert src.fetch(first.cursor).posts == []          # the last page did not change
    src.reread_requested_at = time.time()
    parsed: list[int] = []
    real_parse = src._parse
    src._parse = lambda resp, n: parsed.append(n) or real_parse(resp, n)  # type: ignore[method-assign]
    full = src.fetch(first.cursor)
    assert [(p.platform_id, p.change, p.text) for p in full.posts] == [
        (page1[1], "edited", "I climb the wall instead (edited)")]
    assert full.requests == 3 and sorted(parsed) == [1, 3]   # page 2's hash had not changed
    assert full.cursor["full_at"] >= src.reread_requested_at
    assert src.fetch(full.cursor).posts == []            # asked once, done once


def test_full_re_reads_come_by_themselves_every_few_hours(machina: Any, new_topic: Any) -> None:
    """issue 14 point 7: with ``full_reread_hours`` passed since the last full read, the
    next poll reads every page without anyone asking; with 0 it never does."""
    topic = new_topic(machina, "Older pages", 12)
    src = source(topic)
    first = src.fetch(None)
    stale = {**first.cursor, "full_at": time.time() - 7 * 3600}     # the default is 6 h
    assert src.fetch(stale).requests == 3
    never = ForumSource(topic, "machina", settings=settings().with_overrides(full_reread_hours=0),
                        credentials=BOT)
    assert never.fetch(stale).requests == 1


def test_missing_thread_is_an_error_with_its_url(machina: Any) -> None:
    url = machina.base + "/forum/forum/adventures-2/topic/no-such-topic-9999/"
    with pytest.raises(SourceError) as err:
        source(url).fetch(None)
    assert "thread not found (HTTP 404)" in str(err.value) and url in str(err.value)
    assert err.value.retry_after is None


def test_login_refused_says_who_and_where(machina: Any, new_topic: Any) -> None:
    topic = new_topic(machina, "Locked door", 1)
    with pytest.raises(SourceError) as err:
        source(topic, {"username": "pbpbot", "password": "wrong"}).reply("hello [pbp:x]", "[pbp:x]")
    assert "login refused for bot account 'pbpbot'" in str(err.value)
    assert "/accounts/login/" in str(err.value) and not err.value.retryable
    assert "hello" not in " ".join(visible_posts(topic).values())


def test_missing_credentials_name_the_variable(machina: Any, new_topic: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PBP_SECRET_127_0_0_1_USERNAME", raising=False)
    topic = new_topic(machina, "Nobody home", 1)
    src = ForumSource(topic, "machina", settings=settings())
    with pytest.raises(SourceError, match="PBP_SECRET_127_0_0_1_USERNAME"):
        src.reply("x [pbp:y]", "[pbp:y]")


def test_credentials_from_environment(machina: Any, new_topic: Any,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PBP_SECRET_127_0_0_1_USERNAME", "pbpbot")
    monkeypatch.setenv("PBP_SECRET_127_0_0_1_PASSWORD", "botpass")
    topic = new_topic(machina, "Env secrets", 1)
    src = ForumSource(topic, "machina", settings=settings())
    pid = src.reply("From the environment [pbp:env]", "[pbp:env]")
    assert visible_posts(topic)[pid] == "From the environment [pbp:env]"


def test_session_is_reused_between_replies(machina: Any, new_topic: Any) -> None:
    topic = new_topic(machina, "Two rounds", 1)
    src = source(topic)
    before = src.bot_client.requests_made
    src.reply("Round 1 [pbp:s1]", "[pbp:s1]")
    first_cost = src.bot_client.requests_made - before
    other = source(topic)           # a new source object, as a new task would make
    before = other.bot_client.requests_made
    other.reply("Round 2 [pbp:s2]", "[pbp:s2]")
    second_cost = other.bot_client.requests_made - before
    assert second_cost < first_cost  # no second login (login page + POST + redirect)


def test_flood_control_html_429_is_retried_later(machina_flood: Any, new_topic: Any) -> None:
    topic = new_topic(machina_flood, "Hasty bard", 1)
    src = source(topic)
    src.reply("First verse [pbp:f1]", "[pbp:f1]")
    with pytest.raises(SourceError) as err:
        src.reply("Second verse [pbp:f2]", "[pbp:f2]")
    assert err.value.retryable and err.value.retry_after == 30
    assert "flood control" in str(err.value) and "/post/create/" in str(err.value)
    assert src.find_reply("[pbp:f2]") is None


def test_layout_change_is_an_error_not_zero_posts(machina: Any, new_topic: Any) -> None:
    topic = new_topic(machina, "Redesign", 2)
    src = ForumSource(topic, "machina", settings=settings(), credentials=BOT,
                      overrides={"post": {"container": "article.post-v2"}})
    with pytest.raises(LayoutError) as err:
        src.fetch(None)
    assert "'article.post-v2' matched nothing" in str(err.value) and topic in str(err.value)
    src = ForumSource(topic, "machina", settings=settings(), credentials=BOT,
                      overrides={"reply": {"form": "form#new-editor"}})
    with pytest.raises(LayoutError, match="form#new-editor"):
        src.reply("x [pbp:l]", "[pbp:l]")


def test_only_configured_hosts(machina: Any, new_topic: Any) -> None:
    topic = new_topic(machina, "Gatekeeper", 1)
    with pytest.raises(SourceError, match="not configured"):
        ForumSource(topic.replace("127.0.0.1", "localhost"), "machina", settings=settings(),
                    allowed_hosts=["127.0.0.1"])
    src = source(topic, allowed_hosts=["127.0.0.1"])
    assert src.fetch(None).posts


def test_topic_list_tells_which_threads_changed(machina: Any, new_topic: Any) -> None:
    a = new_topic(machina, "Watch A", 1)
    b = new_topic(machina, "Watch B", 1)
    forum = re.match(r"(.*/forum/forum/[^/]+/)", a).group(1)
    watcher = ForumWatcher(forum, "machina", settings=settings())
    first = watcher.changed(None)
    tid_a, tid_b = source(a).topic_id, source(b).topic_id
    assert {tid_a, tid_b} <= first.changed
    quiet = watcher.changed(first.state)
    assert quiet.changed == frozenset() and quiet.requests == 1
    player_posts(machina.base, b, "I sneak past the guard")
    moved = watcher.changed(quiet.state)
    assert moved.changed == {tid_b} and moved.requests == 1


def test_factory_opens_a_forum_source(machina: Any, new_topic: Any) -> None:
    from pbp.sources.factory import open_source
    topic = new_topic(machina, "Factory made", 1)
    src = open_source("forum", topic, {"preset": "machina", "allowed_hosts": ["127.0.0.1"]},
                      settings())
    assert isinstance(src, ForumSource) and src.fetch(None).posts[0].author == "admin"
