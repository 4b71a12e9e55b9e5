r"""One normalising step: every input form becomes text the same scanners read.

* ``text`` and ``bbcode``: unchanged (BBCode tags are read by the scanners).
* ``markdown`` (Reddit, Discord): backslash escapes undone (Reddit's editor writes
  ``\[roll\]``; positions then refer to the unescaped text); :mod:`pbp.parse.regions` also
  reads fences, inline code, ``>`` quotes and spoilers (``>!...!<``, ``||...||``).
* ``html`` (forum pages): the text of the HTML tree (lxml; BeautifulSoup as the fallback),
  with block elements as line breaks, and
  quotes, spoilers and code turned into ``[quote]``, ``[spoiler]``, ``[code]`` so the
  same scanner excludes them. Positions then refer to this text.

Always: CRLF becomes LF (same length is not kept for CR alone; positions refer to the
result), and NUL characters become spaces.
"""

from __future__ import annotations

import re

import lxml.html
from bs4 import BeautifulSoup, Comment, NavigableString
from lxml import etree

FORMATS = ("text", "bbcode", "html", "markdown")

_BLOCKS = frozenset(["p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table", "dd", "dt", "dl", "section", "article", "header", "footer", "aside", "hr", "figure"])
_SKIP = frozenset(("script", "style", "head", "title", "noscript", "template"))
# white space around line breaks: a run holding two or more breaks becomes one blank line,
# then what is left (runs of one break) one line break. Two substitutions with plain
# replacement strings: a Python callback per match cost more than the lxml parse.
_BLANK_RUN = re.compile(r"[ \t\r\f\v]*\n[ \t\r\f\v\n]*\n[ \t\r\f\v]*")
_BREAK_RUN = re.compile(r"[ \t\r\f\v]*\n[ \t\r\f\v]*")
_WS = re.compile(r"\s+")


_MD_ESCAPE = re.compile(r"\\([\[\]\\_*~`>#!|()\-.+])")


def normalise(text: str, fmt: str = "text") -> str:
    r"""The text the parser reads for a post written in *fmt*.

    >>> normalise("\\[roll\\]1d20\\[/roll\\]", "markdown")
    '[roll]1d20[/roll]'
    """
    if fmt == "html":
        text = html_to_text(text)
    elif fmt == "markdown" and "\\" in text:
        # Reddit's editor escapes brackets: \[roll\]1d20\[/roll\] is what the player typed
        text = _MD_ESCAPE.sub(r"\1", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        text = text.replace("\x00", " ")
    return text


def _region_of(tag: str, classes: str) -> str | None:
    if tag == "blockquote":
        return "quote"
    if tag in ("pre", "code"):
        return "code"
    if tag == "details":
        return "spoiler"
    joined = classes.lower()
    if "spoiler" in joined:
        return "spoiler"
    if "quote" in joined and "quotecontent" not in joined:
        return "quote"
    if "codebox" in joined or "bbcodecode" in joined:
        return "code"
    return None


def html_to_text(html: str) -> str:
    """Forum HTML to text, with quotes, spoilers and code kept as BBCode regions.

    lxml builds the tree (NOTES.md: 15x faster than BeautifulSoup on forum pages, and the
    parser sees many short posts); BeautifulSoup is the fallback when lxml refuses the input.

    >>> html_to_text("<p>Ataco!</p><blockquote>[roll]1d20[/roll]</blockquote>")
    'Ataco!\\n\\n[quote]\\n[roll]1d20[/roll]\\n[/quote]'
    """
    if not html.strip():
        return ""
    try:
        root = lxml.html.fragment_fromstring(html, create_parent="div")
        text = _walk_lxml(root)
    except Exception:  # noqa: BLE001 - lxml refuses some inputs (encodings, control characters): soup reads all
        text = _walk_soup(html)
    text = _BREAK_RUN.sub("\n", _BLANK_RUN.sub("\n\n", text))
    return text.strip()


def _walk_lxml(root) -> str:  # type: ignore[no-untyped-def]
    """The text of an lxml tree, walked by lxml's own iterator (``iterwalk``, in C).

    Per element: on entering, the block break and region head, then its text; on leaving,
    the region tail and break, then the element's tail. Nothing inside ``script``,
    ``style``... (``_SKIP``), ``br`` or ``img`` is read; text in ``pre``/``code`` keeps its
    spaces, other text has each run of white space collapsed to one space.
    """
    out: list[str] = []
    append = out.append
    collapse = _WS.sub
    leave: list[tuple[str, bool] | None] = []       # per open element: (tail markup, was code)
    in_code = 0
    walker = etree.iterwalk(root, events=("start", "end", "comment", "pi"))
    for event, el in walker:
        if event == "start":
            tag = el.tag.lower()
            if tag in _SKIP or tag == "br" or tag == "img":
                walker.skip_subtree()
                leave.append(None)
                if tag == "br":
                    append("\n")
                elif tag == "img":
                    alt = el.get("alt")
                    if alt:
                        append(alt)
                continue
            region = _region_of(tag, el.get("class") or "")
            block = tag in _BLOCKS or region is not None
            append(("\n" if block else "") + (f"[{region}]\n" if region else ""))
            code = region == "code" or tag == "pre"
            if code:
                in_code += 1
            leave.append(((f"\n[/{region}]" if region else "") + ("\n" if block else ""), code))
            text = el.text
            if text:
                append(text if in_code else collapse(" ", text))
            continue
        if event == "end":
            closing = leave.pop()
            if closing is not None:
                if closing[1]:
                    in_code -= 1
                append(closing[0])
        tail = el.tail                                  # after an element, comment or PI
        if tail:
            append(tail if in_code else collapse(" ", tail))
    return "".join(out)


def _walk_soup(html: str) -> str:
    soup = BeautifulSoup(html, "html.parser")
    out: list[str] = []
    stack: list[tuple[object, bool]] = [(soup, False)]
    in_code = 0
    while stack:
        node, closing = stack.pop()
        if closing:
            if node == "\x01":
                in_code -= 1
            else:
                out.append(str(node))
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
            alt = node.get("alt")  # type: ignore[attr-defined]
            if alt:
                out.append(str(alt))
            continue
        classes = node.get("class") or ()  # type: ignore[attr-defined]
        region = _region_of(name, " ".join(classes) if not isinstance(classes, str) else classes)
        block = name in _BLOCKS or region is not None
        out.append(("\n" if block else "") + (f"[{region}]\n" if region else ""))
        stack.append(((f"\n[/{region}]" if region else "") + ("\n" if block else ""), True))
        if region == "code" or name == "pre":
            in_code += 1
            stack.append(("\x01", True))
        for child in reversed(getattr(node, "contents", ())):
            stack.append((child, False))
    return "".join(out)
