"""Roll tags numbered for the post: the poster's own in position order, then the quoted ones.

Why apart from :mod:`.post`: how a tag is named (its index and key, PBP-4) and what its
label says it is for are one concern, and quoted tags (issue 13 item 4) are numbered
after the poster's own so quoting another post never renumbers them.
"""

from __future__ import annotations

from operator import attrgetter

from .lexicon import Lexicon, fold, get
from .model import RollTag
from .regions import Regions, mask_pairs
from .roster import WORD
from .tags import FoundRoll
from .tags import scan as scan_tags

#: what a table request's tag says it is for (:mod:`.tabletags`): never a dice label
TABLE_SYNTAXES = frozenset(("[table]", ".table"))

_position = attrgetter("position")


def number_rolls(found: list[FoundRoll], lex: Lexicon) -> list[RollTag]:
    """The rolls in position order, each keyed by what it says (PBP-4: identity survives
    an edit that adds a tag before it)."""
    found.sort(key=_position)
    seen: dict[str, int] = {}
    rolls = []
    for i, r in enumerate(found):
        base = f"{r.syntax}|{r.expression}|{r.label or ''}"
        n = seen[base] = seen.get(base, -1) + 1
        why = "table" if r.syntax in TABLE_SYNTAXES else (
            purpose(r.label, lex) if r.label else None)
        rolls.append(RollTag(i, r.expression, r.label, r.syntax, r.position, r.end, r.text,
                             r.advantage, r.hidden, why, None, False, f"{base}|{n}"))
    return rolls


def quoted_rolls(text: str, reg: Regions, start: int, lex: Lexicon) -> list[RollTag]:
    """The roll tags inside quotes, marked ``in_quote`` (issue 13 item 4): shown to the
    narrator, never rolled for the one quoting, never given to an action. Numbered after
    the poster's own tags, so quoting another post never renumbers those (PBP-4)."""
    quotes = [(s.start, s.end) for s in reg.spans if s.kind == "quote"]
    if not quotes:
        return []
    outside, last = [], 0
    for a, b in quotes:
        if a > last:
            outside.append((last, a))
        last = max(last, b)
    outside.append((last, len(text)))
    found = scan_tags(mask_pairs(text, outside), lex).rolls
    out = []
    for n, r in enumerate(found):
        key = f"quote|{r.syntax}|{r.expression}|{r.label or ''}|{n}"
        out.append(RollTag(start + n, r.expression, r.label, r.syntax, r.position, r.end, r.text,
                           r.advantage, r.hidden, purpose(r.label, lex) if r.label else None,
                           None, True, key))
    return out


_PURPOSES: dict[tuple[str, str], str | None] = {}


def purpose(label: str | None, lex: Lexicon) -> str | None:
    if not label:
        return None
    key = (label, lex.lang)
    if key in _PURPOSES:
        return _PURPOSES[key]
    if len(_PURPOSES) > 10_000:
        _PURPOSES.clear()
    found = _PURPOSES[key] = _read_purpose(label, lex)
    return found


def _read_purpose(label: str, lex: Lexicon) -> str | None:
    f = fold(label.strip())
    en = get("en")
    for table in (lex.labels, en.labels):
        if f in table:
            return table[f]
    for w in WORD.findall(f):
        for table in (lex.labels, en.labels):
            if w in table:
                return table[w]
    return None
