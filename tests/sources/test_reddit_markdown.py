"""Echoing player text into Reddit Markdown without it turning into markup."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pbp.sources.reddit_markdown import escape_markdown, quote_markdown, unescape_markdown


def test_markup_characters_are_escaped() -> None:
    assert escape_markdown("**bold** _it_ ~~s~~ ^sup `code`") == \
        r"\*\*bold\*\* \_it\_ \~\~s\~\~ \^sup \`code\`"
    assert escape_markdown("# heading") == r"\# heading"
    assert escape_markdown(">!spoiler!<") == r"\>\!spoiler\!&lt;"
    assert escape_markdown("[link](http://x.y)") == "\\[link\\]\\(http:\u200b//x\\.y\\)"
    assert escape_markdown("| a | b |") == r"\| a \| b \|"


def test_mentions_entities_and_code_blocks_are_defused() -> None:
    assert "u/" not in escape_markdown("thanks u/spez and /r/dnd")
    assert escape_markdown("&amp; <b>") == "&amp;amp; &lt;b\\>"
    assert escape_markdown("    indented").startswith("\u00a0" * 4)
    assert escape_markdown("2. second") == r"2\. second"


def test_quote_is_bounded_and_every_line_quoted() -> None:
    q = quote_markdown("line one\n\n*line* two")
    assert q == "> line one\n>\n> \\*line\\* two"
    assert len(quote_markdown("x" * 5000, limit=100)) < 110


@given(st.text(max_size=200))
def test_escape_round_trips(text: str) -> None:
    text = text.replace("\u200b", "").replace("\u00a0", "").replace("\t", " ")
    escaped = escape_markdown(text)
    assert unescape_markdown(escaped).replace("\u00a0", " ") == text
