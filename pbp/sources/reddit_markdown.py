"""Echo a player's words inside a Reddit reply without Reddit reading them as markup.

Why: a reply quotes declarations back ("Brakka attacks the *goblin*"). Echoed raw,
``*goblin*`` turns italic, ``#1`` becomes a heading, ``>!x!<`` a spoiler, ``u/name`` pings
a user, ``&lt;`` turns into ``<`` and a line of four spaces becomes a code block. This
module knows nothing of :mod:`pbp.render`; the renderer calls it on user text only.

>>> escape_markdown("*crit* on goblin_2 [roll]1d20[/roll] #1")
'\\\\*crit\\\\* on goblin\\\\_2 \\\\[roll\\\\]1d20\\\\[/roll\\\\] \\\\#1'
>>> escape_markdown("1. move\\n> quoted")
'1\\\\. move\\n\\\\> quoted'
>>> escape_markdown("ask u/someone in r/dnd") == "ask u\\u200b/someone in r\\u200b/dnd"
True
>>> escape_markdown("a < b & c")
'a &lt; b &amp; c'
"""

from __future__ import annotations

import re

#: Characters snudown / Reddit's Markdown treat as markup anywhere in a line.
_INLINE = re.compile(r"([\\`*_{}\[\]()#+\-.!|~^>])")
#: ``u/x``, ``r/x``, ``/u/x``: mentions and subreddit links Reddit makes on its own.
_MENTION = re.compile(r"(?<![\w/])(/?)([ur])/(?=\w)", re.IGNORECASE)
_URL = re.compile(r"(https?)://", re.IGNORECASE)
_LEADING_SPACES = re.compile(r"^( {4,}|\t+)", re.MULTILINE)

#: Reddit refuses comments longer than this (characters).
MAX_COMMENT_CHARS = 10_000


def escape_markdown(text: str) -> str:
    """*text* as literal characters in Reddit Markdown (line breaks kept as breaks)."""
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    text = _INLINE.sub(r"\\\1", text)
    text = _MENTION.sub(lambda m: f"{m.group(1)}{m.group(2)}\u200b/", text)
    text = _URL.sub(lambda m: f"{m.group(1)}:\u200b//", text)
    # four leading spaces would start a code block: keep the indent as no-break spaces
    text = _LEADING_SPACES.sub(lambda m: "\u00a0" * len(m.group(1).expandtabs(4)), text)
    return text


def quote_markdown(text: str, *, limit: int = 500) -> str:
    """*text* escaped, cut at *limit* characters, as a Reddit block quote."""
    if len(text) > limit:
        text = text[:limit].rstrip() + "\u2026"
    lines = escape_markdown(text).splitlines() or [""]
    return "\n".join(f"> {line}" if line.strip() else ">" for line in lines)


def unescape_markdown(text: str) -> str:
    """Undo :func:`escape_markdown` (for tests and for reading our own replies back)."""
    text = text.replace("\u200b", "").replace("\u00a0", " ")
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|~^>])", r"\1", text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
