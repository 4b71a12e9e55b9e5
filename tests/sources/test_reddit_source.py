# ruff: noqa: F811  -- fixtures are imported from reddit_fixtures by name
"""RedditSource (one submission) through the real praw client against the local Reddit."""

from __future__ import annotations

import time
from typing import Any

import praw
import pytest
from reddit_fixtures import bot, client, player, reddit_server  # noqa: F401  (fixtures)

from pbp.sources.base import Source, SourceError
from pbp.sources.reddit import RedditSource, parse_submission_id


@pytest.fixture
def thread(reddit_server: Any, bot: praw.Reddit) -> tuple[Any, str, RedditSource]:
    sid = reddit_server.add_submission("dnd", author="pbp_bot")
    return reddit_server, sid, RedditSource(sid, reddit=bot)


def changes(result: Any) -> list[tuple[str, str]]:
    return [(p.change, p.body) for p in result.posts]


def test_is_a_source(thread: Any) -> None:
    assert isinstance(thread[2], Source)
    with pytest.raises(Exception, match="not a Reddit submission"):
        parse_submission_id("https://example.org/forum/12")


def test_new_comment_is_seen_once(thread: Any) -> None:
    s, sid, src = thread
    cid = s.add_comment(sid, "I attack the *goblin* [roll]1d20+5[/roll]", author="brakka")
    first = src.fetch(None)
    assert [(p.platform_id, p.change, p.author) for p in first.posts] == [(cid, "new", "brakka")]
    post = first.posts[0]
    assert post.fmt == "markdown" and post.text == "I attack the *goblin* [roll]1d20+5[/roll]"
    assert post.extra["reply_to_submission"] is True and post.posted_at.tzinfo is not None
    assert first.requests >= 1
    again = src.fetch(first.cursor)
    assert again.posts == []
    assert src.fetch(again.cursor).posts == []


def test_edit_and_delete_done_by_a_player_through_praw(thread: Any, player: praw.Reddit) -> None:
    s, sid, src = thread
    keep = s.add_comment(sid, "I move 30 ft", author="brakka")
    gone = s.add_comment(sid, "I cast fireball", author="brakka")
    s.add_comment(f"t1_{gone}", "wait, really?", author="mira")   # keeps the deleted one visible
    cursor = src.fetch(None).cursor
    player.comment(keep).edit(body="I move 25 ft and attack")
    player.comment(gone).delete()
    result = src.fetch(cursor)
    by_id = {p.platform_id: p for p in result.posts}
    assert by_id[keep].change == "edited" and by_id[keep].body == "I move 25 ft and attack"
    assert by_id[keep].edited_at is not None
    assert by_id[gone].change == "deleted" and by_id[gone].extra["deleted"] == "deleted"
    assert src.fetch(result.cursor).posts == []                     # each change once


def test_removed_and_vanished_comments_are_deleted(thread: Any) -> None:
    s, sid, src = thread
    removed = s.add_comment(sid, "spam", author="brakka")
    s.add_comment(f"t1_{removed}", "child keeps it in the tree")
    vanished = s.add_comment(sid, "oops", author="mira")            # no replies: leaves no trace
    cursor = src.fetch(None).cursor
    s.delete_comment(removed, removed=True)
    s.delete_comment(vanished)
    result = src.fetch(cursor)
    assert {(p.platform_id, p.change, p.extra["deleted"]) for p in result.posts} == {
        (removed, "deleted", "removed"), (vanished, "deleted", "vanished")}


def test_grace_period_edit_without_edited_time_is_an_edit(thread: Any) -> None:
    s, sid, src = thread
    cid = s.add_comment(sid, "I attack", author="brakka")
    cursor = src.fetch(None).cursor
    s.comments[cid].body = "I defend"            # Reddit's ninja edit: edited stays false
    (post,) = src.fetch(cursor).posts
    assert (post.change, post.body, post.edited_at) == ("edited", "I defend", None)


def test_more_comments_are_expanded_and_nested(thread: Any) -> None:
    s, sid, src = thread
    s.tree_budget, s.more_batch, s.max_depth = 4, 3, 3
    tops = [s.add_comment(sid, f"top {i}") for i in range(9)]
    parent = tops[0]
    chain = []
    for i in range(7):                            # deeper than max_depth: "continue this thread"
        parent = s.add_comment(f"t1_{parent}", f"deep {i}")
        chain.append(parent)
    result = src.fetch(None)
    assert sorted(p.platform_id for p in result.posts) == sorted(tops + chain)
    parents = {p.platform_id: p.extra["parent_id"] for p in result.posts}
    assert parents[chain[-1]] == f"t1_{chain[-2]}"
    kinds = {path for _, path in s.calls}
    assert "/api/morechildren/" in kinds
    assert result.cursor["through"] == max(c.created_utc for c in s.comments.values())


def test_reply_to_submission_and_to_comment(thread: Any) -> None:
    s, sid, src = thread
    cid = s.add_comment(sid, "attack!", author="brakka")
    top = src.reply("Round 1 resolved. [](#pbp:r1)", "pbp:r1")
    under = src.reply("Brakka hits. [](#pbp:r1c)", "pbp:r1c", in_reply_to=f"t1_{cid}")
    assert s.comments[top].parent_id == f"t3_{sid}" and s.comments[top].author == "pbp_bot"
    assert s.comments[under].parent_id == f"t1_{cid}"
    assert src.find_reply("pbp:r1c") == under and src.find_reply("pbp:nope") is None
    with pytest.raises(SourceError, match="marker"):
        src.reply("no marker here", "pbp:r2")
    with pytest.raises(SourceError, match="10000"):
        src.reply("x" * 10_001 + "pbp:r3", "pbp:r3")


def test_lost_reply_answer_is_posted_once(thread: Any) -> None:
    s, _, src = thread
    s.drop_reply()                                # committed, then the connection closes
    rid = src.reply("Round 2 resolved. [](#pbp:r2)", "pbp:r2")
    assert [c.id for c in s.comments_by("pbp_bot", "pbp:r2")] == [rid]
    assert s.count("/api/comment") == 1           # no hidden prawcore retry of the POST
    # the outbox's own retry goes through find_reply first and finds it
    assert src.find_reply("pbp:r2") == rid


def test_lost_reply_without_self_check_says_to_look_first(reddit_server: Any, bot: praw.Reddit) -> None:
    sid = reddit_server.add_submission("dnd")
    src = RedditSource(sid, reddit=bot, verify_lost=False)
    reddit_server.drop_reply()
    with pytest.raises(SourceError, match="find_reply") as info:
        src.reply("hi pbp:x", "pbp:x")
    assert info.value.retryable and info.value.where and "/api/comment" in info.value.where
    assert src.find_reply("pbp:x") is not None                   # what deliver_reply checks
    assert len(reddit_server.comments_by("pbp_bot", "pbp:x")) == 1


def test_html_429_says_what_and_where_and_the_cursor_stays(thread: Any) -> None:
    s, sid, src = thread
    s.add_comment(sid, "first", author="brakka")
    cursor = src.fetch(None).cursor
    unread = s.add_comment(sid, "unread declaration", author="brakka")
    s.fail(rf"^/comments/{sid}", 429, retry_after=7)
    with pytest.raises(SourceError) as info:
        src.fetch(cursor)
    err = info.value
    assert "429" in err.message and "Too Many Requests" in err.message and "HTML" in err.message
    assert err.where and f"/comments/{sid}/" in err.where and err.where.startswith("GET http")
    assert err.retry_after == 7 and err.retryable
    calls = len(s.calls)
    t0 = time.monotonic()
    with pytest.raises(SourceError, match="backing off"):         # no network while waiting
        src.fetch(cursor)
    assert len(s.calls) == calls and time.monotonic() - t0 < 0.5
    src.backoff.succeeded()                                       # the wait is over
    assert [p.platform_id for p in src.fetch(cursor).posts] == [unread]


def test_403_and_404_are_not_retryable(thread: Any, bot: praw.Reddit) -> None:
    s, _, src = thread
    s.fail(r"^/comments/", 403)
    with pytest.raises(SourceError, match="403") as info:
        src.fetch(None)
    assert not info.value.retryable and info.value.retry_after is None
    missing = RedditSource("zzzzzz", reddit=bot)
    with pytest.raises(SourceError, match="404"):
        missing.fetch(None)


def test_response_size_is_bounded(reddit_server: Any) -> None:
    small = client(reddit_server, max_bytes=2_000)
    sid = reddit_server.add_submission("dnd")
    for i in range(5):
        reddit_server.add_comment(sid, f"comment {i} " * 20)
    with pytest.raises(SourceError, match="too large"):
        RedditSource(sid, reddit=small).fetch(None)


def test_from_options_reads_credentials_from_secrets(reddit_server: Any, monkeypatch: Any) -> None:
    from pbp.settings import load_settings
    from pbp.sources.factory import open_source

    for k, v in {"PBP_SECRET_REDDIT__COM_CLIENTID": "cid", "PBP_SECRET_REDDIT__COM_CLIENTSECRET": "sec",
                 "PBP_SECRET_REDDIT__COM_USERNAME": "pbp_bot",
                 "PBP_SECRET_REDDIT__COM_PASSWORD": "pw"}.items():
        monkeypatch.setenv(k, v)
    sid = reddit_server.add_submission("dnd")
    reddit_server.add_comment(sid, "hello")
    src = open_source("reddit", f"https://www.reddit.com/r/dnd/comments/{sid}/x/",
                      {"oauth_url": reddit_server.url, "reddit_url": reddit_server.url},
                      load_settings(env={"PBP_DATA_DIR": "/tmp/pbp-reddit-test", "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"}))
    assert isinstance(src, RedditSource) and [p.body for p in src.fetch(None).posts] == ["hello"]


def test_subreddit_of_a_thread(reddit_server: Any, bot: praw.Reddit) -> None:
    from pbp.sources.reddit import subreddit_of

    sid = reddit_server.add_submission("Pathfinder_RPG")
    assert subreddit_of(f"https://www.reddit.com/r/dnd/comments/{sid}/x/") == "dnd"
    assert subreddit_of(sid, bot) == "Pathfinder_RPG"          # one call, at registration
    with pytest.raises(SourceError, match="404"):
        subreddit_of("zzzzzz", bot)


def test_ratelimit_api_error_on_reply_defers_without_sleeping(thread: Any) -> None:
    s, sid, src = thread
    s.fail(r"^/api/comment", api_error=("RATELIMIT", "You are doing that too much. Try again in "
                                        "6 seconds.", "ratelimit"))
    t0 = time.monotonic()
    with pytest.raises(SourceError, match="RATELIMIT|too much") as info:
        src.reply("Round 3. [](#pbp:r3)", "pbp:r3")
    assert info.value.retry_after == 6 and time.monotonic() - t0 < 1.0
    assert s.comments_by("pbp_bot", "pbp:r3") == [] and s.count("/api/comment") == 1
    s.fail(r"^/api/comment", api_error=("THREAD_LOCKED", "Comments are locked.", None))
    src.backoff.succeeded()
    with pytest.raises(SourceError, match="locked") as info:
        src.reply("Round 3. [](#pbp:r3)", "pbp:r3")
    assert not info.value.retryable
