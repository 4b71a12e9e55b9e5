"""Speech: what a character says aloud, counted per post for the speech limit (PBP-3, FD-17).

An utterance is text between quotation marks (``"..."``, ``“...”``, ``«...»`` with
``„...“`` nested inside, ``„...“``) or a dialogue line opened by a dash: a line that
starts with ``—`` or ``–`` (and, in Portuguese and Russian, ``- ``), or a dash after a
sentence end or a roll tag (``... [/roll] — Morra, criatura!``). The utterance runs
to the next `` — `` (the author's words) or the end of the line; speech that resumes
after the author's words on the same line is the same utterance.

A quote never runs past a blank line: an unclosed one is reported and ends there.
A short quoted name in mid-sentence (``casts "Fire Bolt"``) is a title, not speech.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from .model import IssueList, Utterance

_QUOTES = re.compile(r"[\"“”«»„]")
# a hyphen opening a line: matched on the first line, searched after each line break
_FIRST_HYPHEN = re.compile(r"[ \t>*_]{0,8}-[ \t]")
_HYPHEN_LINE = re.compile(r"\n[ \t>*_]{0,8}-[ \t]")
_CLOSERS = {'"': '"', "“": "”", "„": "“”", "«": "»"}
_BLANK = re.compile(r"\n[ \t]*\n")
_DASH_LINE = re.compile(r"(?m)^[ \t>*_]{0,8}(?P<dash>[—–―]|-(?=[ \t]))[ \t]*")
_DASH_MID = re.compile(r"[ \t\u00a0](?P<dash>[—–―])[ \t\u00a0]+(?=\S)")
_AUTHOR = re.compile(r"[ \t\u00a0][—–―][ \t\u00a0]")
_AUTHOR_HYPHEN = re.compile(r"[ \t\u00a0][—–―-][ \t\u00a0]")
_SENTENCE_END = frozenset(".!?…:]*_)")
_TITLE_PUNCT = frozenset(".!?…,;")


@dataclass(slots=True, init=False)
class SpeechScan:
    utterances: list[Utterance]
    spans: list[tuple[int, int]]
    issues: IssueList

    def __init__(self) -> None:         # plain lists: cheaper than dataclass default factories
        self.utterances, self.spans, self.issues = [], [], IssueList()


#: The result for a post with no speech (shared: never mutate a scan result).
EMPTY = SpeechScan()


def scan(masked: str, original: str, lang: str) -> SpeechScan:
    has_quote = _QUOTES.search(masked) is not None
    # a dash character anywhere, or a hyphen opening a line (substring tests first; a
    # multiline "^" pattern would be tried at every character: 1 us a post)
    has_dash = "—" in masked or "–" in masked or "―" in masked or ("-" in masked and (
        _FIRST_HYPHEN.match(masked) is not None or _HYPHEN_LINE.search(masked) is not None))
    if not (has_quote or has_dash):
        return EMPTY
    out = SpeechScan()
    if has_quote:
        _quotes(masked, out)
    if has_dash:
        _dashes(masked, original, lang, out)
    out.utterances.sort(key=lambda u: u.position)
    return out


def _quotes(text: str, out: SpeechScan) -> None:
    blanks = [m.start() for m in _BLANK.finditer(text)] if "\n" in text else []

    def para_end(pos: int) -> int:
        k = bisect_left(blanks, pos)
        return blanks[k] if k < len(blanks) else len(text)

    open_mark: str | None = None
    open_at = 0
    depth = 0
    limit = 0
    for m in _QUOTES.finditer(text):
        ch, pos = m.group(), m.start()
        if open_mark is not None and pos >= limit:
            out.issues.append(("speech.unclosed", open_at, {}))
            _emit(text, open_mark, open_at, limit, out, closed=False)
            open_mark = None
        if open_mark is None:
            if ch in _CLOSERS:
                open_mark, open_at, depth, limit = ch, pos, 1, para_end(pos)
            continue
        if open_mark == "«" and ch == "«":
            depth += 1
            continue
        if ch in _CLOSERS[open_mark]:
            depth -= 1
            if depth == 0:
                _emit(text, open_mark, open_at, pos + 1, out, closed=True)
                open_mark = None
    if open_mark is not None:
        out.issues.append(("speech.unclosed", open_at, {}))
        _emit(text, open_mark, open_at, limit, out, closed=False)


def _emit(text: str, mark: str, start: int, end: int, out: SpeechScan, *, closed: bool) -> None:
    inner = text[start + 1:end - 1 if closed else end].strip()
    if not inner:
        return
    if closed and _is_title(text, start, inner):
        return
    out.utterances.append(Utterance(" ".join(inner.split()), start, mark))
    out.spans.append((start, end))


def _is_title(text: str, start: int, inner: str) -> bool:
    """``casts "Fire Bolt"``: a few words, no punctuation, right after a word."""
    if len(inner.split()) > 3 or not _TITLE_PUNCT.isdisjoint(inner):
        return False
    k = start - 1
    while k >= 0 and text[k] in " \t":
        k -= 1
    return k >= 0 and text[k].isalnum()


def _dashes(text: str, original: str, lang: str, out: SpeechScan) -> None:
    taken = sorted(out.spans)
    starts = [s for s, _ in taken]

    def covered(pos: int) -> bool:
        k = bisect_left(starts, pos + 1) - 1
        return k >= 0 and taken[k][0] <= pos < taken[k][1]

    seen_lines: set[int] = set()
    hyphen_ok = lang in ("pt", "ru")
    for m in _DASH_LINE.finditer(text):
        if m.group("dash") == "-" and not hyphen_ok:
            continue
        if covered(m.start("dash")):
            continue
        line_start = text.rfind("\n", 0, m.start("dash")) + 1
        seen_lines.add(line_start)
        _dash_utterance(text, m.start("dash"), m.end(), out)
    for m in _DASH_MID.finditer(text):
        pos = m.start("dash")
        line_start = text.rfind("\n", 0, pos) + 1
        if line_start in seen_lines or covered(pos):
            continue
        k = pos - 1
        while k >= line_start and original[k] in " \t\u00a0":
            k -= 1
        if k < line_start or original[k] not in _SENTENCE_END:
            continue
        seen_lines.add(line_start)
        _dash_utterance(text, pos, m.end(), out)


def _dash_utterance(text: str, dash: int, start: int, out: SpeechScan) -> None:
    end = text.find("\n", start)
    if end < 0:
        end = len(text)
    author = _AUTHOR_HYPHEN if text[dash] == "-" else _AUTHOR
    pieces: list[str] = []
    spans: list[tuple[int, int]] = []
    pos, speaking = start, True
    while pos < end:
        m = author.search(text, pos, end)
        stop = m.start() if m else end
        if speaking:
            piece = text[pos:stop].strip()
            if piece:
                pieces.append(piece)
                spans.append((dash if not spans else pos, stop))
        speaking = not speaking
        pos = m.end() if m else end
    said = " ".join(" ".join(pieces).split())
    if not said:
        return
    out.utterances.append(Utterance(said, dash, text[dash]))
    out.spans.extend(spans)
