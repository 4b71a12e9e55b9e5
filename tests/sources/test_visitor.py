"""DICE-4: a thread read the way any visitor reads it (pbp.sources.visitor), against the
local Reddit server and a live django-machina forum: every post of every page, the bot's
replies told apart by the outbox's marker and one account, no login and no database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbp.errors import ConfigError, PbpError
from pbp.settings import load_settings
from pbp.sources.visitor import read_thread, source_kind
from tests.harness.machina.helpers import player_posts
from tests.sources.reddit_fixtures import fixtures_dir, load_server_module

pytestmark = pytest.mark.integration

BLOCK = "    pbp-dice v1 round=1 commit=" + "ab" * 32 + "\n    pbp-dice end"


def test_dice_4_source_kind_from_the_address_alone() -> None:
    """A reddit.com or redd.it address is a submission, a machina topic a forum thread;
    anything else is refused in words that say how to name the engine."""
    assert source_kind("https://old.reddit.com/r/dnd/comments/4b1tfm/x/") == "reddit"
    assert source_kind("https://redd.it/4b1tfm") == "reddit"
    assert source_kind("http://127.0.0.1:8002/forum/forum/adventures-2/topic/the-goblin-cave-1/") == "forum"
    with pytest.raises(ConfigError, match="--preset"):
        source_kind("https://example.org/some/page")


@pytest.fixture
def small_reddit() -> Any:
    """A local Reddit whose trees stop after 4 comments, so reading them needs
    ``/api/morechildren`` as a long thread on reddit.com does."""
    module = load_server_module()
    with module.RedditServer(fixtures_dir(), tree_budget=4, more_batch=3) as server:
        yield server


def test_dice_4_reddit_submission_read_whole_as_a_visitor(small_reddit: Any, monkeypatch: Any,
                                                          tmp_path: Path) -> None:
    """Every comment of a 12-comment submission (past the tree's first batch), oldest
    first; the bot's two marked replies and not the player's quote of one (a ``>`` line)
    nor the bot's unmarked chatter; praw asks for an application token only (no user)."""
    server = small_reddit
    monkeypatch.setenv("PBP_SECRET_REDDIT__COM_CLIENTID", "visitor-app")
    monkeypatch.setenv("PBP_SECRET_REDDIT__COM_CLIENTSECRET", "s")
    monkeypatch.setenv("PBP_SECRET_REDDIT__COM_USERNAME", "pbp_bot")    # the bot's, never used
    monkeypatch.setenv("PBP_SECRET_REDDIT__COM_PASSWORD", "pw")
    monkeypatch.setenv("PBP_DATA_DIR", str(tmp_path / "empty"))
    settings = load_settings().with_overrides(reddit_oauth_url=server.url, reddit_url=server.url,
                                              allow_private_hosts="127.0.0.1")
    sid = server.add_submission("fights", author="gm")
    opening = server.add_comment(sid, "Round 1 opens\n\n" + BLOCK + "\n\n^(pbp-reply:1:opening)",
                                 author="pbp_bot", created_utc=1000)
    for i in range(8):
        server.add_comment(sid, f"I attack the goblin, try {i}", author="brakka", created_utc=1001 + i)
    server.add_comment(f"t1_{opening}", "> Round 1 opens\n> ^(pbp-reply:1:opening)\n\nnice",
                       author="lyra", created_utc=1010)
    server.add_comment(sid, "just chatting, no marker", author="pbp_bot", created_utc=1011)
    server.add_comment(sid, "Round 1 result\n\n" + BLOCK + "\n\n^(pbp-reply:1:resolution)",
                       author="pbp_bot", created_utc=1012)
    read = read_thread(f"https://www.reddit.com/r/fights/comments/{sid}/walk/", settings)
    assert read.platform == "reddit" and read.bot == "pbp_bot"
    assert len(read.posts) == 12
    assert [p.posted_at.timestamp() for p in read.posts] == sorted(p.posted_at.timestamp() for p in read.posts)
    assert [p.author for p in read.replies] == ["pbp_bot", "pbp_bot"]
    texts = read.reply_texts()
    assert "Round 1 opens" in texts[0] and "Round 1 result" in texts[1]
    assert "    pbp-dice v1 round=1 commit=" + "ab" * 32 in texts[0].splitlines()   # code block as written
    assert any("morechildren" in path for _, path in server.calls)
    assert set(server.tokens.values()) == {"app"}          # no token was asked for the bot's user
    assert not (tmp_path / "empty").exists()


def test_dice_4_marks_from_two_accounts_are_named_not_guessed(small_reddit: Any, monkeypatch: Any) -> None:
    """A player who types the marker outside a quote does not become the bot: without
    --bot the reader names both accounts; with it, only the bot's post counts."""
    server = small_reddit
    monkeypatch.setenv("PBP_SECRET_REDDIT__COM_CLIENTID", "visitor-app")
    settings = load_settings().with_overrides(reddit_oauth_url=server.url, reddit_url=server.url,
                                              allow_private_hosts="127.0.0.1")
    sid = server.add_submission("fights")
    server.add_comment(sid, "result " + BLOCK + " ^(pbp-reply:1:resolution)", author="pbp_bot", created_utc=10)
    server.add_comment(sid, "fake pbp-reply:1:resolution", author="brakka", created_utc=11)
    url = f"https://www.reddit.com/r/fights/comments/{sid}/x/"
    with pytest.raises(PbpError, match=r"several accounts \((pbp_bot|brakka): 1, (brakka|pbp_bot): 1\); name the bot's with --bot"):
        read_thread(url, settings)
    read = read_thread(url, settings, bot="u/PBP_bot")
    assert [p.author for p in read.replies] == ["pbp_bot"]


def test_dice_4_forum_thread_every_page_as_a_visitor(machina: Any, new_topic: Any, tmp_path: Path,
                                                     monkeypatch: Any) -> None:
    """A machina topic of 21 posts (two pages): every post is read, from page 1, without the
    bot's login (no secrets given); the bot's marked replies are its two, not the
    player's post that quotes one (the preset cuts quotes out)."""
    monkeypatch.setenv("PBP_DATA_DIR", str(tmp_path / "empty"))
    topic = new_topic(machina, "Visitor fight", 18)
    player_posts(machina.base, topic, "The opening\n\n" + BLOCK + "\n\npbp-reply:7:opening", "pbpbot", "botpass")
    player_posts(machina.base, topic, "> The opening\n> pbp-reply:7:opening\n\nI attack [roll]1d20[/roll]")
    player_posts(machina.base, topic, "The result\n\n" + BLOCK + "\n\npbp-reply:7:resolution", "pbpbot", "botpass")
    settings = load_settings().with_overrides(allow_private_hosts="127.0.0.1")
    read = read_thread(topic, settings)
    assert read.platform == "forum" and read.bot == "pbpbot"
    assert len(read.posts) == 21
    assert len({p.extra["page"] for p in read.posts}) >= 2
    assert [p.author for p in read.replies] == ["pbpbot", "pbpbot"]
    first = read.reply_texts()[0]
    assert "pbp-dice v1 round=1 commit=" + "ab" * 32 in first.splitlines()
    assert "pbp-dice end" in first.splitlines()
    assert not (tmp_path / "empty").exists()
