"""What is not the poster's declaration: quotes, spoilers, code and out-of-character text.

One pass over the text finds these regions; the other scanners then read a *masked*
copy where each region is blanked to spaces (line breaks kept), so positions stay
true and a roll tag inside a quote is never seen again, let alone rolled.

* BBCode: ``[quote]``, ``[spoiler]``, ``[hide]``, ``[code]``, ``[ooc]``, ``[off]``
  (nested quotes counted; inside ``[code]`` nothing else is read).
* Out of character (:mod:`.asides`): ``((...))`` and ``(OOC: ...)`` / ``(OFF ...)`` /
  ``(ООС: ...)`` anywhere, each ended where its parentheses balance; ``OOC:`` / ``OFF:`` /
  ``ООС:`` / ``Офф:`` opening a line or following a sentence's end, to the end of that
  line; and a line that is wholly in parentheses.
* Markdown only: fenced and inline code, ``>`` quote lines, ``>!spoiler!<``, ``||spoiler||``.

An unclosed region runs to the end of the post (an unclosed ``((`` or ``(OOC`` to the
end of its line) and is reported: never rolling a quoted tag matters more than keeping prose.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass

from . import asides
from .model import IssueList, OocNote, Span

_BB = re.compile(r"\[(/?)(quote|spoiler|hide|code|ooc|off|offtopic)(?:[=\s][^\]\n]{0,200})?\]"
                 r"|\(\(|\)\)", re.IGNORECASE)
_PAREN_LINE = re.compile(r"(?m)^[ \t]{0,8}\((?!\()[^\n]*\)[ \t]*$")
# Is there anything to exclude at all? A region tag or "((" anywhere, or a line opening
# with "(" or an OOC prefix. Three searches rather than one pattern with a multiline "^"
# branch: that branch is tried at every character, while these let the engine jump to
# "[", "(" or a line break.
_ANY_TAG = re.compile(r"\[/?(?:quote|spoiler|hide|code|ooc|off)|\(\(", re.IGNORECASE)
_OPENER = r"[ \t>*_]{0,8}(?:\(|(?:ooc|off|offtopic|оос|ооc|офф|оффтоп)[ \t]{0,3}[:\-–—)])"
_FIRST_LINE_OPENER = re.compile(_OPENER, re.IGNORECASE)           # .match: the first line
_LINE_OPENER = re.compile("\n" + _OPENER, re.IGNORECASE)          # .search: every other line
_ASIDE_WORD = re.compile(asides.WORD + r"[ \t]{0,3}[:\-–—)]", re.IGNORECASE)  # anywhere
_MD_FENCE = re.compile(r"(?m)^[ \t]{0,3}(```|~~~)[^\n]*$")
_MD_INLINE = re.compile(r"`[^`\n]{1,2000}`")
_MD_QUOTE = re.compile(r"(?m)^[ \t]{0,3}>(?!!)[^\n]*")
_MD_SPOILER = re.compile(r">!(?:[^!\n]|!(?!<)){0,2000}!<|\|\|[^|\n]{1,2000}\|\|")


_NEWLINE = re.compile("\n")
_BLANK_OUT = re.compile("[^\n]")


@dataclass(slots=True, init=False)
class Regions:
    spans: list[Span]
    ooc: list[OocNote]
    issues: IssueList

    def __init__(self) -> None:         # plain lists: cheaper than dataclass default factories
        self.spans, self.ooc, self.issues = [], [], IssueList()


#: The result for a post with nothing excluded (shared: never mutate a scan result).
EMPTY = Regions()


class Lines:
    """Line starts of a text, for line-of and paragraph-of questions in O(log n)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.starts.extend(m.end() for m in _NEWLINE.finditer(text))

    def line_end(self, pos: int) -> int:
        k = bisect_left(self.starts, pos + 1)
        return self.starts[k] - 1 if k < len(self.starts) else len(self.text)

    def line_start(self, pos: int) -> int:
        return self.starts[bisect_left(self.starts, pos + 1) - 1]


def scan(text: str, fmt: str) -> Regions:
    """Find every excluded region of *text* (already normalised)."""
    if fmt != "markdown" and _ANY_TAG.search(text) is None and \
            _FIRST_LINE_OPENER.match(text) is None and _LINE_OPENER.search(text) is None \
            and asides.PAREN_OPEN.search(text) is None and _ASIDE_WORD.search(text) is None:
        return EMPTY
    out = Regions()
    md: list[Span] = []
    if fmt == "markdown":
        md = _markdown(text, out)
    if "[" in text or "((" in text:
        _bbcode(text, out, md)
    if "(" in text or ":" in text or "-" in text:
        _ooc_lines(text, out)
    out.spans.extend(md)
    out.spans.sort(key=lambda s: (s.start, -s.end))
    # drop spans wholly inside an earlier one
    merged: list[Span] = []
    for s in out.spans:
        if merged and s.end <= merged[-1].end:
            continue
        merged.append(s)
    out.spans = merged
    if out.ooc:
        out.ooc = sorted((o for o in out.ooc if not _inside(merged, o.position, "ooc")),
                         key=lambda o: o.position)
    return out


def _inside(spans: list[Span], pos: int, except_kind: str) -> bool:
    for s in spans:
        if s.start <= pos < s.end and s.kind != except_kind:
            return True
    return False


def mask(text: str, spans: Iterable[Span] | Iterable[tuple[int, int]]) -> str:
    """*text* with every span blanked (line breaks kept, so lines and positions stay).

    *spans* are :class:`Span` or ``(start, end)`` pairs.
    """
    return mask_pairs(text, [(s.start, s.end) if isinstance(s, Span) else s for s in spans])


def mask_pairs(text: str, pairs: list[tuple[int, int]]) -> str:
    """:func:`mask` for ``(start, end)`` pairs only (what the scanners collect)."""
    if not pairs:
        return text
    parts: list[str] = []
    last = 0
    for start, end in sorted(pairs):
        start = max(start, last)
        if start >= end:
            continue
        parts.append(text[last:start])
        chunk = text[start:end]
        parts.append(_BLANK_OUT.sub(" ", chunk) if "\n" in chunk else " " * (end - start))
        last = end
    parts.append(text[last:])
    return "".join(parts)


def _markdown(text: str, out: Regions) -> list[Span]:
    spans: list[Span] = []
    if "```" in text or "~~~" in text:
        open_at = None
        for m in _MD_FENCE.finditer(text):
            if open_at is None:
                open_at = m.start()
            else:
                spans.append(Span("code", open_at, m.end()))
                open_at = None
        if open_at is not None:
            spans.append(Span("code", open_at, len(text)))
            out.issues.append(("region.unclosed", open_at, {"tag": "```", "kind": "code"}))

    def free(pos: int) -> bool:
        return not any(s.start <= pos < s.end for s in spans)

    if "`" in text:
        spans.extend(Span("code", m.start(), m.end()) for m in _MD_INLINE.finditer(text)
                     if free(m.start()))
    if ">!" in text or "||" in text:
        spans.extend(Span("spoiler", m.start(), m.end()) for m in _MD_SPOILER.finditer(text)
                     if free(m.start()))
    if ">" in text:
        spans.extend(Span("quote", m.start(), m.end()) for m in _MD_QUOTE.finditer(text)
                     if free(m.start()))
    return spans


def _bbcode(text: str, out: Regions, md: list[Span]) -> None:
    lines: Lines | None = None
    closes: list[int] | None = None
    skip_until = -1
    md_sorted = sorted(md, key=lambda s: s.start)
    md_starts = [s.start for s in md_sorted]
    open_name: str | None = None
    open_at = open_head_end = 0
    depth = 0
    for m in _BB.finditer(text):
        pos = m.start()
        if pos < skip_until:
            continue
        if md_sorted and open_name is None:
            k = bisect_left(md_starts, pos + 1) - 1
            if k >= 0 and md_sorted[k].start <= pos < md_sorted[k].end:
                continue
        tok = m.group()
        if open_name is not None:
            if m.group(2) and m.group(2).lower() == open_name:
                if m.group(1):
                    depth -= 1
                    if depth == 0:
                        _region(out, text, open_name, open_at, m.end(), open_head_end, pos)
                        open_name = None
                elif open_name != "code":
                    depth += 1
            continue
        if tok == "((":
            if closes is None:
                closes = [c.start() for c in re.finditer(r"\)\)", text)]
                lines = Lines(text)
            assert lines is not None
            balanced = asides.close_of(text, pos, depth=2)   # nested parentheses counted
            k = bisect_left(closes, pos + 2)
            para_end = _paragraph_end(text, pos, lines)
            if balanced is not None and text[balanced - 2:balanced] == "))":
                end = balanced
                out.spans.append(Span("ooc", pos, end))
                out.ooc.append(OocNote(text[pos + 2:end - 2].strip(), pos))
            elif k < len(closes) and closes[k] < para_end:
                end = closes[k] + 2
                out.spans.append(Span("ooc", pos, end))
                out.ooc.append(OocNote(text[pos + 2:end - 2].strip(), pos))
            else:
                end = lines.line_end(pos)
                out.spans.append(Span("ooc", pos, end))
                out.ooc.append(OocNote(text[pos + 2:end].strip(), pos))
                out.issues.append(("ooc.unclosed", pos, {}))
            skip_until = end
            continue
        if tok == "))":
            continue
        name = m.group(2).lower()
        if m.group(1):
            out.issues.append(("region.stray_close", pos, {"tag": name}))
            continue
        open_name, open_at, open_head_end, depth = name, pos, m.end(), 1
    if open_name is not None:
        kind = _kind(open_name)
        out.issues.append(("region.unclosed", open_at, {"tag": open_name, "kind": kind}))
        _region(out, text, open_name, open_at, len(text), open_head_end, len(text))


def _paragraph_end(text: str, pos: int, lines: Lines) -> int:
    # the first blank line after pos, found line by line (bounded by lines actually walked)
    k = bisect_left(lines.starts, pos + 1)
    starts = lines.starts
    for j in range(k, min(len(starts), k + 200)):
        s = starts[j]
        e = starts[j + 1] - 1 if j + 1 < len(starts) else len(text)
        if not text[s:e].strip():
            return s
    return len(text)


def _kind(name: str) -> str:
    return {"hide": "spoiler", "off": "ooc", "offtopic": "ooc"}.get(name, name)


def _region(out: Regions, text: str, name: str, start: int, end: int,
            inner_start: int, inner_end: int) -> None:
    kind = _kind(name)
    out.spans.append(Span(kind, start, end))
    if kind == "ooc":
        out.ooc.append(OocNote(text[inner_start:inner_end].strip(), start))


def _ooc_lines(text: str, out: Regions) -> None:
    taken = sorted(out.spans, key=lambda s: s.start)
    starts = [s.start for s in taken]

    def covered(pos: int) -> bool:
        k = bisect_left(starts, pos + 1) - 1
        return k >= 0 and taken[k].start <= pos < taken[k].end

    for start, end, note, closed in asides.parens(text):
        if covered(start):
            continue
        out.spans.append(Span("ooc", start, end))
        out.ooc.append(OocNote(note, start))
        if not closed:
            out.issues.append(("ooc.unclosed", start, {}))
    for start, end, note in asides.prefixed(text):
        if covered(start) or any(s.start <= start < s.end for s in out.spans[-8:]):
            continue
        out.spans.append(Span("ooc", start, end))
        out.ooc.append(OocNote(note, start))
    for m in _PAREN_LINE.finditer(text):
        if covered(m.start()) or any(s.start <= m.start() < s.end for s in out.spans[-3:]):
            continue
        out.spans.append(Span("ooc", m.start(), m.end()))
        out.ooc.append(OocNote(m.group().strip()[1:-1].strip(), m.start()))
