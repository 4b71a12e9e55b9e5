# ruff: noqa: F811  -- fixtures are imported from reddit_fixtures by name
"""Issue 12 item 1 on the local Reddit: the bot knows its own comments by author and marker
together; a player quoting (``>``) or typing a marker never passes for the bot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import praw
import pytest
from reddit_fixtures import bot, player, reddit_server  # noqa: F401  (fixtures)

from pbp.rounds import service
from pbp.sources.reddit import RedditSource
from pbp.store import db as store
from pbp.store import models as m

MARKER = "pbp-reply:7:resolution"


@pytest.fixture
def db(tmp_path: Path) -> Any:
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    store.upgrade(url)
    return store.make_engine(url)


def test_a_typed_or_quoted_marker_never_satisfies_find_reply(reddit_server: Any, bot: praw.Reddit) -> None:
    """issue 12 item 1: only the bot's comment with the marker outside quotes is ours."""
    s = reddit_server
    sid = s.add_submission("dnd", author="pbp_bot")
    src = RedditSource(sid, reddit=bot)
    typed = s.add_comment(sid, f"I attack the goblin {MARKER}", author="brakka")
    quoted = s.add_comment(sid, f"> Round 7 resolved.\n>\n> ^({MARKER})\n\nI hide", author="lyra")
    assert src.find_reply(MARKER) is None
    ours = src.reply(f"Round 7 resolved.\n\n^({MARKER})", MARKER)
    assert src.find_reply(MARKER) == ours
    marked = {p.platform_id: p.by_bot for p in src.fetch(None).posts}
    assert marked == {typed: False, quoted: False, ours: True}


def test_the_bot_quoting_itself_is_not_a_reply_either(reddit_server: Any, bot: praw.Reddit) -> None:
    """issue 12 item 1: the marker must be in the comment's own words, not in a quote."""
    s = reddit_server
    sid = s.add_submission("dnd", author="pbp_bot")
    src = RedditSource(sid, reddit=bot)
    s.add_comment(sid, f"> ^({MARKER})\n\nsee above", author="pbp_bot")
    assert src.find_reply(MARKER) is None


def test_a_read_only_client_knows_no_reply_of_its_own(reddit_server: Any, player: praw.Reddit) -> None:
    """issue 12 item 1: without the bot's account nothing is taken for the bot's (the old
    code accepted any author when it had none)."""
    sid = reddit_server.add_submission("dnd")
    reddit_server.add_comment(sid, f"Round 7 resolved. ^({MARKER})", author="brakka")
    src = RedditSource(sid, reddit=player)
    src.bot_account = lambda: None  # type: ignore[method-assign]
    assert src.find_reply(MARKER) is None


def test_delivery_posts_the_result_over_a_players_typed_marker(db: Any, reddit_server: Any,
                                                              bot: praw.Reddit) -> None:
    """issue 12 item 1: a player's comment holding the result's marker does not make the
    outbox mark the result as sent: it is posted, once, by the bot."""
    sid = reddit_server.add_submission("dnd", author="pbp_bot")
    reddit_server.add_comment(sid, f"ha! {MARKER}", author="brakka")
    source = RedditSource(sid, reddit=bot)
    with store.session_scope(db) as session:
        campaign = m.Campaign(name="Goblin Hills", slug="goblin-hills", ruleset="dnd5e")
        thread = m.Thread(campaign=campaign, kind="reddit", platform="markdown",
                          url=f"https://www.reddit.com/r/dnd/comments/{sid}/x/")
        session.add_all([campaign, thread])
        session.flush()
        reply = m.Reply(thread_id=thread.id, kind="resolution", idempotency_key="7:resolution",
                        marker=MARKER, platform="markdown", language="en",
                        body=f"Round 7: Brakka hits the goblin.\n\n^({MARKER})")
        session.add(reply)
        session.flush()
        reply_id = reply.id
    with store.session_scope(db) as session:
        platform_id = service.deliver_reply(session, reply_id, source)
    posted = reddit_server.comments_by("pbp_bot", MARKER)
    assert [c.id for c in posted] == [platform_id]
    assert reddit_server.count("/api/comment") == 1
