"""One normalising step: every input form becomes text the same scanners read.

* ``text`` and ``bbcode``: unchanged (BBCode tags are read by the scanners).
* ``markdown`` (Reddit, Discord): unchanged too; :mod:`pbp.parse.regions` also reads
  fences, inline code, ``>`` quotes and spoilers (``>!...!<``, ``||...||``).
* ``html`` (forum pages): BeautifulSoup text with block elements as line breaks, and
  quotes, spoilers and code turned into ``[quote]``, ``[spoiler]``, ``[code]`` so the
  same scanner excludes them. Positions then refer to this text.

Always: CRLF becomes LF (same length is not kept for CR alone; positions refer to the
result), and NUL characters become spaces.
"""

from __future__ import annotations

import re

FORMATS = ("text", "bbcode", "html", "markdown")

_BLOCKS = frozenset("p div li ul ol h1 h2 h3 h4 h5 h6 tr table dd dt dl section article "
                    "header footer aside hr figure".split())
_SKIP = frozenset(("script", "style", "head", "title", "noscript", "template"))
_SPACES = re.compile(r"[ \t\r\f\v]*\n[ \t\r\f\v\n]*\n[ \t\r\f\v]*|[ \t\r\f\v]*\n[ \t\r\f\v]*")
_WS = re.compile(r"\s+")


def normalise(text: str, fmt: str = "text") -> str:
    """The text the parser reads for a post written in *fmt*."""
    if fmt == "html":
        text = html_to_text(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        text = text.replace("\x00", " ")
    return text


def _region_of(tag) -> str | None:  # type: ignore[no-untyped-def]
    name = tag.name
    if name == "blockquote":
        return "quote"
    if name in ("pre", "code"):
        return "code"
    if name == "details":
        return "spoiler"
    classes = tag.get("class") or ()
    if isinstance(classes, str):
        classes = classes.split()
    joined = " ".join(classes).lower()
    if "spoiler" in joined:
        return "spoiler"
    if "quote" in joined and "quotecontent" not in joined:
        return "quote"
    if "codebox" in joined or "bbcodecode" in joined:
        return "code"
    return None


def html_to_text(html: str) -> str:
    """Forum HTML to text, with quotes, spoilers and code kept as BBCode regions.

    >>> html_to_text("<p>Ataco!</p><blockquote>[roll]1d20[/roll]</blockquote>")
    'Ataco!\\n\\n[quote]\\n[roll]1d20[/roll]\\n[/quote]'
    """
    from bs4 import BeautifulSoup, Comment, NavigableString

    try:
        soup = BeautifulSoup(html, "lxml")
    except Exception:  # pragma: no cover - lxml missing or refusing: fall back
        soup = BeautifulSoup(html, "html.parser")
    root = soup.body or soup
    out: list[str] = []
    stack: list[tuple[object, bool]] = [(root, False)]
    in_code = 0
    while stack:
        node, closing = stack.pop()
        if closing:
            marker = node
            if marker == "\x01":
                in_code -= 1
            else:
                out.append(str(marker))
            continue
        if isinstance(node, Comment):
            continue
        if isinstance(node, NavigableString):
            s = str(node)
            out.append(s if in_code else _WS.sub(" ", s))
            continue
        name = getattr(node, "name", None)
        if name is None or name in _SKIP:
            continue
        if name == "br":
            out.append("\n")
            continue
        if name == "img":
            alt = node.get("alt")
            if alt:
                out.append(str(alt))
            continue
        region = _region_of(node)
        block = name in _BLOCKS or region is not None
        open_ = ("\n" if block else "") + (f"[{region}]\n" if region else "")
        close = (f"\n[/{region}]" if region else "") + ("\n" if block else "")
        out.append(open_)
        stack.append((close, True))
        if region == "code" or name == "pre":
            in_code += 1
            stack.append(("\x01", True))
        for child in reversed(getattr(node, "contents", ())):
            stack.append((child, False))
    text = "".join(out)
    text = _SPACES.sub(lambda m: "\n\n" if m.group().count("\n") > 1 else "\n", text)
    return text.strip()
