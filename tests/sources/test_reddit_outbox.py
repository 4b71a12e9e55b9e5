# ruff: noqa: F811  -- fixtures are imported from reddit_fixtures by name
"""Reddit through the service layer: the outbox posts once across a lost answer, and the
poller's records go into the store as new / edited / deleted posts (SQLite)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import praw
import pytest
from reddit_fixtures import bot, player, reddit_server  # noqa: F401  (fixtures)
from sqlalchemy import select

from pbp.rounds import service
from pbp.sources.base import SourceError
from pbp.sources.reddit import RedditSource, SubredditPoller, new_cursor
from pbp.store import db as store
from pbp.store import models as m


@pytest.fixture
def db(tmp_path: Path) -> Any:
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    store.upgrade(url)
    return store.make_engine(url)


def thread_row(session: Any, url: str) -> Any:
    campaign = m.Campaign(name="Goblin Hills", slug="goblin-hills", ruleset="dnd5e")
    thread = m.Thread(campaign=campaign, kind="reddit", url=url, platform="markdown")
    session.add_all([campaign, thread])
    session.flush()
    return thread


def test_outbox_posts_once_when_the_first_answer_is_lost(db: Any, reddit_server: Any,
                                                         bot: praw.Reddit) -> None:
    sid = reddit_server.add_submission("dnd", author="pbp_bot")
    source = RedditSource(sid, reddit=bot, verify_lost=False)   # leave the check to the outbox
    with store.session_scope(db) as session:
        thread = thread_row(session, f"https://www.reddit.com/r/dnd/comments/{sid}/x/")
        reply = m.Reply(thread_id=thread.id, kind="resolution", idempotency_key="1:resolution",
                        marker="pbp-reply:1:resolution", platform="markdown", language="en",
                        body="Round 1: Brakka hits the goblin.\n\n^(pbp-reply:1:resolution)")
        session.add(reply)
        session.flush()
        reply_id = reply.id
    reddit_server.drop_reply()
    with pytest.raises(SourceError, match="lost"), store.session_scope(db) as session:
        service.deliver_reply(session, reply_id, source)           # the worker records, retries
    with store.session_scope(db) as session:
        platform_id = service.deliver_reply(session, reply_id, source)
    posted = reddit_server.comments_by("pbp_bot", "pbp-reply:1:resolution")
    assert [c.id for c in posted] == [platform_id]
    assert reddit_server.count("/api/comment") == 1


def test_poller_records_go_into_the_store(db: Any, reddit_server: Any, bot: praw.Reddit,
                                          player: praw.Reddit) -> None:
    s = reddit_server
    sid = s.add_submission("dnd", author="pbp_bot")
    with store.session_scope(db) as session:
        thread_id = thread_row(session, f"https://www.reddit.com/r/dnd/comments/{sid}/x/").id
    poller = SubredditPoller(bot, "dnd")
    cursor: Any = new_cursor(through=s.submissions[sid].created_utc - 1, num_comments=0)

    def cycle() -> None:
        nonlocal cursor
        result = poller.poll({sid: cursor}).results[sid]
        with store.session_scope(db) as session:
            service.ingest_posts(session, thread_id, result.posts)
        cursor = result.cursor                      # stored after the posts

    a = s.add_comment(sid, "I attack the goblin", author="brakka")
    b = s.add_comment(sid, "I hide", author="brakka")
    cycle()
    player.comment(a).edit(body="I attack the goblin shaman")
    player.comment(b).delete()
    cycle()
    cycle()
    with store.session_scope(db) as session:
        posts = {p.platform_id: p for p in session.scalars(select(m.Post).where(m.Post.thread_id == thread_id))}
        assert posts[a].body == "I attack the goblin shaman" and posts[a].revisions_seen == 2
        assert posts[b].deleted_at is not None
        assert [r.change for r in posts[b].revisions] == ["new", "deleted"]
