"""Out-of-character asides written inline: each ends at its own closing mark.

Why a module of its own: players open an aside mid-line and go on declaring after it
(``(OOC: back tomorrow) I attack the goblin``), so an aside that ran to the end of its
line swallowed the declaration, and one that was not recognised at all gave its words
to inference (``(OOC: back tomorrow)`` read as a ``move`` from "back"; issue 13 item 1).

* ``(OOC: …)``, ``(OFF: …)``, ``(ООС: …)``, ``(оос …)``, ``(Офф - …)``: a parenthesis
  opened by an OOC word (Latin or Cyrillic letters, mixed as keyboards mix them), ended by
  the parenthesis that balances it (nested ones counted; a smiley's ``:)`` does not close
  it unless nothing else does). Unclosed: to the end of its line, reported.
* ``((…))``: ended where the parentheses balance again (nested ones counted).
* ``OOC:`` / ``OFF:`` / ``ООС:`` / ``Офф:`` at the start of a line, or after the end of a
  sentence: to the end of that line.

>>> [(a, b) for a, b, _, _ in parens("(OOC: back (maybe) tomorrow) I attack")]
[(0, 28)]
>>> text = "I hit. OOC: gotta go"
>>> [(text[a:b], note) for a, b, note in prefixed(text)]
[('OOC: gotta go', 'OOC: gotta go')]
"""

from __future__ import annotations

import re
from collections.abc import Iterator

#: An OOC word with Latin and Cyrillic look-alike letters mixed freely (o/о, c/с, f/ф).
_O, _C, _F = "[oOоО]", "[cCсС]", "[fFфФ]"
WORD = rf"(?:{_O}{_O}{_C}|{_O}{_F}{_F}(?:topic|топ)?)"
#: "(" then an OOC word then a separator (":", a dash, ")" or a space): an inline aside.
PAREN_OPEN = re.compile(rf"\([ \t]{{0,3}}{WORD}(?=[ \t]{{0,3}}[:\-–—)]|[ \t]+\S)", re.IGNORECASE)
#: An OOC word then ":" or a dash, at a line start (after quote/emphasis marks) or after
#: the end of a sentence on the same line.
_PREFIX = re.compile(
    rf"(?m)(?:^[ \t>*_]{{0,8}}|(?<=[.!?…])[ \t]{{1,4}}){WORD}[ \t]{{0,3}}[:\-–—][^\n]*",
    re.IGNORECASE)

#: How far a parenthesised aside may run looking for its close (a paragraph, bounded).
_REACH = 4000


def close_of(text: str, start: int, depth: int = 1, smileys: bool = False) -> int | None:
    """The offset just past the ``)`` that balances the ``(`` at *start* (*depth* opened
    there: 2 for ``((``), within the paragraph and :data:`_REACH`; None when unclosed.
    A ``)`` right after ``:``, ``;`` or ``=`` is a smiley unless *smileys* counts it."""
    limit = min(len(text), start + _REACH)
    blank = text.find("\n\n", start, limit)
    if blank >= 0:
        limit = blank
    i = start + depth
    while i < limit:
        ch = text[i]
        if ch == "(":
            depth += 1
        elif ch == ")" and (smileys or text[i - 1] not in ":;="):
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def parens(text: str) -> Iterator[tuple[int, int, str, bool]]:
    """Every ``(OOC …)`` aside: (start, end, its text without the parentheses, closed)."""
    pos = 0
    while True:
        m = PAREN_OPEN.search(text, pos)
        if m is None:
            return
        start = m.start()
        end = close_of(text, start) or close_of(text, start, smileys=True)
        closed = end is not None
        if end is None:
            line_end = text.find("\n", start)
            end = len(text) if line_end < 0 else line_end
        yield start, end, text[start + 1:end - 1 if closed else end].strip(), closed
        pos = end


def prefixed(text: str) -> Iterator[tuple[int, int, str]]:
    """Every ``OOC:`` line prefix: (start, end of its line, its text)."""
    for m in _PREFIX.finditer(text):
        start = m.start() + (len(m.group()) - len(m.group().lstrip(" \t")))
        yield start, m.end(), m.group().strip(" \t>*_")
