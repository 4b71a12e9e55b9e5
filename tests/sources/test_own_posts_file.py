"""Issue 12 item 1 for the file source and the shared checks: the bot is known by its
account (the file source's configured ``bot``) and the marker outside quotes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pbp.sources.base import PostRecord, carries_marker, is_bot_reply, own_words
from pbp.sources.factory import open_source
from pbp.sources.scenario_file import FileSource, append_post

WHEN = datetime(2026, 12, 1, tzinfo=UTC)


def rec(body: str, fmt: str, author: str = "bot", **extra: object) -> PostRecord:
    return PostRecord("1", author, WHEN, body, body, fmt, extra=extra)


def test_quotes_of_every_format_never_count() -> None:
    """issue 12 item 1: BBCode quote, HTML blockquote, Markdown/Reddit ``>``."""
    m = "pbp-reply:2:opening"
    for body, fmt in [(f"[quote=bot]{m}[/quote] I attack", "bbcode"),
                      (f"<blockquote>{m}</blockquote><p>I attack</p>", "html"),
                      (f"> {m}\n\nI attack", "markdown")]:
        assert not carries_marker(rec(body, fmt)), fmt
        assert "I attack" in own_words(rec(body, fmt))
    # a forum source cut the quote out of text already (extra["quotes"])
    cut = PostRecord("1", "bot", WHEN, f"<blockquote>{m}</blockquote>ok", "ok", "html",
                     extra={"quotes": [{"author": "bot", "text": m}]})
    assert not carries_marker(cut)
    assert carries_marker(rec(f"Round 2 opens.\n[size=85]{m}[/size]", "bbcode"))


def test_author_and_marker_together() -> None:
    """issue 12 item 1: never the marker alone, never the account alone."""
    m = "pbp-reply:7:resolution"
    assert is_bot_reply(rec(f"done {m}", "text", "PBP"), "pbp", m)
    assert not is_bot_reply(rec(f"done {m}", "text", "alice"), "pbp", m)
    assert not is_bot_reply(rec("done", "text", "pbp"), "pbp", m)
    assert not is_bot_reply(rec(f"done {m}", "text", "pbp"), None, m)


def test_file_source_finds_only_its_bots_replies(tmp_path: Path) -> None:
    """issue 12 item 1: a reply document by someone else holding the marker is not ours."""
    thread = tmp_path / "t.yaml"
    append_post(thread, "alice", "I attack pbp-reply:1:resolution")
    src = open_source("file", str(thread), {"bot": "narrator-bot"})
    assert isinstance(src, FileSource) and src.bot_account() == "narrator-bot"
    append_post(src.replies_path, "alice", "fake pbp-reply:1:resolution", marker="pbp-reply:1:resolution")
    assert src.find_reply("pbp-reply:1:resolution") is None
    rid = src.reply("Round 1 resolved.\npbp-reply:1:resolution", "pbp-reply:1:resolution")
    assert src.find_reply("pbp-reply:1:resolution") == rid
    assert src.replies()[-1]["author"] == "narrator-bot"
    assert [p.by_bot for p in src.fetch(None).posts] == [False]
