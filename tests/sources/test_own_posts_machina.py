"""Issue 12 item 1 on the real forum (django-machina): the bot knows its own posts by
author and marker together. Players post through machina's own form, quoting the bot's
reply (machina writes Markdown: a ``>`` quote becomes a ``<blockquote>``) or typing a
marker by hand; neither passes for the bot's post, and the outbox still posts the result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbp.rounds import service
from pbp.sources.forum import ForumSource, forget_sessions
from pbp.sources.http import reset_host_intervals
from pbp.store import db as store
from pbp.store import models as m
from tests.harness.machina.helpers import player_posts, visible_posts
from tests.sources.test_forum_machina import BOT, settings

pytestmark = pytest.mark.integration

OPENING = "pbp-reply:2:opening"
RESULT = "pbp-reply:7:resolution"


@pytest.fixture(autouse=True)
def _fresh_sessions() -> None:
    forget_sessions()
    reset_host_intervals()


def source(url: str) -> ForumSource:
    return ForumSource(url, "machina", settings=settings(), credentials=BOT)


def test_quoted_and_typed_markers_are_the_players_posts(machina: Any, new_topic: Any) -> None:
    """issue 12 item 1: a player quoting the bot's opening reply, or typing a result's
    marker, is read as that player's post, and find_reply finds only the bot's."""
    topic = new_topic(machina, "Quoting the bot", 1)
    src = source(topic)
    first = src.fetch(None)
    opening = src.reply(f"Round 2 opens: declare by Friday.\n\n[size=85]{OPENING}[/size]", OPENING)
    quoted = player_posts(machina.base, topic,
                          f"> Round 2 opens: declare by Friday.\n>\n> {OPENING}\n\nI attack the goblin")
    typed = player_posts(machina.base, topic, f"I hide behind the cart {RESULT}")
    got = {p.platform_id: p for p in src.fetch(first.cursor).posts}
    assert {pid: (p.author, p.by_bot) for pid, p in got.items()} == {
        opening: ("pbpbot", True), str(quoted): ("player", False), str(typed): ("player", False)}
    assert OPENING in got[str(quoted)].extra["quotes"][0]["text"]        # machina quoted it
    assert OPENING not in got[str(quoted)].text
    # newest first, the old check found the player's quote before the bot's own post
    assert src.find_reply(OPENING) == opening
    assert src.find_reply(RESULT) is None


def test_the_result_is_posted_over_a_players_typed_marker(machina: Any, new_topic: Any,
                                                         tmp_path: Path) -> None:
    """issue 12 item 1: delivery does not take a player's ``pbp-reply:7:resolution`` for
    the posted result; the bot posts it, and it shows on the thread."""
    topic = new_topic(machina, "Typed marker", 1)
    player_posts(machina.base, topic, f"done {RESULT}")
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    store.upgrade(url)
    engine = store.make_engine(url)
    with store.session_scope(engine) as s:
        campaign = m.Campaign(name="Cave", slug="cave", ruleset="forum-d20")
        thread = m.Thread(campaign=campaign, kind="forum", url=topic, platform="bbcode")
        s.add_all([campaign, thread])
        s.flush()
        reply = m.Reply(thread_id=thread.id, kind="resolution", idempotency_key="7:resolution",
                        marker=RESULT, platform="bbcode", language="en",
                        body=f"Round 7: the goblin flees.\n\n[size=85]{RESULT}[/size]")
        s.add(reply)
        s.flush()
        reply_id = reply.id
    src = source(topic)
    with store.session_scope(engine) as s:
        platform_id = service.deliver_reply(s, reply_id, src)
    shown = visible_posts(topic)
    assert shown[platform_id].startswith("Round 7: the goblin flees.")
    assert [pid for pid, text in shown.items() if RESULT in text and pid != platform_id] != []
    assert src.find_reply(RESULT) == platform_id
