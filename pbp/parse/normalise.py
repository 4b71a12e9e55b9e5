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

FORMATS = ("text", "bbcode", "html", "markdown")

_BLOCKS = frozenset(["p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table", "dd", "dt", "dl", "section", "article", "header", "footer", "aside", "hr", "figure"])
_SKIP = frozenset(("script", "style", "head", "title", "noscript", "template"))
_SPACES = re.compile(r"[ \t\r\f\v]*\n[ \t\r\f\v\n]*\n[ \t\r\f\v]*|[ \t\r\f\v]*\n[ \t\r\f\v]*")
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
        import lxml.html

        root = lxml.html.fragment_fromstring(html, create_parent="div")
        text = _walk_lxml(root)
    except Exception:  # noqa: BLE001 - lxml refuses some inputs (encodings, control characters): soup reads all
        text = _walk_soup(html)
    text = _SPACES.sub(lambda m: "\n\n" if m.group().count("\n") > 1 else "\n", text)
    return text.strip()


def _walk_lxml(root) -> str:  # type: ignore[no-untyped-def]
    out: list[str] = []
    stack: list[tuple[int, object]] = [(0, root)]      # 0 element, 1 text, 2 leave code, 3 markup
    in_code = 0
    while stack:
        kind, item = stack.pop()
        if kind == 1:
            s = str(item)
            out.append(s if in_code else _WS.sub(" ", s))
            continue
        if kind == 2:
            in_code -= 1
            continue
        if kind == 3:
            out.append(str(item))
            continue
        el = item
        tail = el.tail  # type: ignore[attr-defined]
        tag = el.tag  # type: ignore[attr-defined]
        if not isinstance(tag, str):                     # comment, processing instruction
            if tail:
                stack.append((1, tail))
            continue
        tag = tag.lower()
        if tail:
            stack.append((1, tail))
        if tag in _SKIP:
            continue
        if tag == "br":
            out.append("\n")
            continue
        if tag == "img":
            alt = el.get("alt")  # type: ignore[attr-defined]
            if alt:
                out.append(alt)
            continue
        region = _region_of(tag, el.get("class") or "")  # type: ignore[attr-defined]
        block = tag in _BLOCKS or region is not None
        out.append(("\n" if block else "") + (f"[{region}]\n" if region else ""))
        stack.append((3, (f"\n[/{region}]" if region else "") + ("\n" if block else "")))
        if region == "code" or tag == "pre":
            in_code += 1
            stack.append((2, None))
        for child in reversed(el):  # type: ignore[call-overload]
            stack.append((0, child))
        if el.text:  # type: ignore[attr-defined]
            stack.append((1, el.text))  # type: ignore[attr-defined]
    return "".join(out)


def _walk_soup(html: str) -> str:
    from bs4 import BeautifulSoup, Comment, NavigableString

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
