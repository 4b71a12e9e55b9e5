"""Escaping user text for the platform it is echoed to.

Why not HTML escaping: forums read BBCode and Reddit reads Markdown; a player's
``[url=...]`` or ``**`` must come back as text, never as markup, and nobody may make
our reply carry another reply's marker (the outbox looks for it before posting).

>>> bbcode("[b]hi[/b]")
'[\\u200bb]hi[\\u200b/b]'
>>> markdown("*hi* [x](y)")
'\\\\*hi\\\\* \\\\[x\\\\](y)'
"""

from __future__ import annotations

import re

ZWSP = "\u200b"
_MARKER = re.compile(r"pbp-reply:", re.IGNORECASE)
_MD_SPECIAL = re.compile(r"([\\`*_~^\[\]<>|#])")
_MD_LINE_START = re.compile(r"^(\s*)([-+>]|\d+\.)", re.MULTILINE)


def _unmark(text: str) -> str:
    return _MARKER.sub(f"pbp{ZWSP}-reply:", text)


def bbcode(text: str) -> str:
    """Break every ``[`` so no tag opens; keep the text readable."""
    return _unmark(str(text)).replace("[", f"[{ZWSP}")


def markdown(text: str) -> str:
    """Backslash-escape Markdown's inline specials and list/quote starts."""
    out = _MD_SPECIAL.sub(r"\\\1", _unmark(str(text)))
    out = out.replace("&", "&amp;")
    return _MD_LINE_START.sub(lambda m_: f"{m_.group(1)}\\{m_.group(2)}", out)


def plain(text: str) -> str:
    return _unmark(str(text))


ESCAPERS = {"bbcode": bbcode, "markdown": markdown, "text": plain}


def for_platform(platform: str):  # type: ignore[no-untyped-def]
    try:
        return ESCAPERS[platform]
    except KeyError:
        raise ValueError(f"unknown reply platform {platform!r} (bbcode, markdown, text)") from None
