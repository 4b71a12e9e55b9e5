"""Asking for a roll on a random table (DICE-6): ``[table]crit[/table]``, ``.table crit``.

Forms read, in every post whatever its language (the words come from each lexicon's
``table_words``: ``table``, ``tabela``, ``таблица``...):

* a tag: ``[table]crit[/table]``, ``[tabela]crítico[/tabela]``, ``[таблица]крит[/таблица]``;
* a command line: ``.table crit``, ``!table crit``, ``.tabela critico``, ``.таблица крит``.

The parser does not know which tables exist (a ruleset's files and the campaign's own,
known to the rounds layer): it hands back the name as written, as a roll tag whose
``purpose`` is ``"table"`` and whose ``label`` is that name, numbered with the post's
other tags so it is rolled once, bound to (post, tag ordinal) like every roll (PBP-4).
A tag that names nothing is reported, the rest of the post still counts.
"""

from __future__ import annotations

import re
from functools import cache

from .lexicon import LANGUAGES, get
from .model import IssueList
from .tags import FoundRoll

#: the syntax names a table request carries (``RollTag.syntax``)
TAG_SYNTAX = "[table]"
LINE_SYNTAX = ".table"
SYNTAXES = frozenset((TAG_SYNTAX, LINE_SYNTAX))


class TableScan:
    """The table requests of a post, the spans to blank and the problems found."""

    __slots__ = ("issues", "rolls", "spans")

    def __init__(self) -> None:
        self.rolls: list[FoundRoll] = []
        self.spans: list[tuple[int, int]] = []
        self.issues = IssueList()


#: a post with no table word (shared: never mutate it)
EMPTY = TableScan()


@cache
def words() -> tuple[str, ...]:
    """Every language's table words, longest first (``таблицу`` before ``таблица``)."""
    found = {str(w).casefold() for lang in LANGUAGES for w in get(lang).data.get("table_words", ())}
    return tuple(sorted(found, key=len, reverse=True))


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    alternatives = "|".join(re.escape(w) for w in words())
    tag = re.compile(rf"\[(?P<word>{alternatives})\](?P<name>[^\[\]\n]{{0,80}}?)\[/(?P=word)\]",
                     re.IGNORECASE)
    line = re.compile(rf"(?m)^[ \t]{{0,16}}(?P<cmd>[.!](?:{alternatives}))(?=[ \t]|$)"
                      rf"(?P<name>[^\n]{{0,80}})", re.IGNORECASE)
    return tag, line


def _name(raw: str) -> str:
    """The table's name as written, without the spaces and closing punctuation around it."""
    return " ".join(raw.split()).strip(" .,;:!?").strip()


def scan(text: str) -> TableScan:
    """Every table request in *text* (quotes and code already blanked by the caller)."""
    low = text.casefold()
    if not any(w in low for w in words()):
        return EMPTY
    out = TableScan()
    tag, line = _patterns()
    for m in tag.finditer(text):
        _add(out, m.group("name"), TAG_SYNTAX, m.start(), m.end(), m.group(0))
    for m in line.finditer(text):
        _add(out, m.group("name"), LINE_SYNTAX, m.start("cmd"), m.end(), m.group(0).strip())
    return out


def _add(out: TableScan, raw: str, syntax: str, start: int, end: int, written: str) -> None:
    out.spans.append((start, end))
    name = _name(raw)
    if not name:
        out.issues.append(("table.unnamed", start, {"text": written[:60]}))
        return
    out.rolls.append(FoundRoll("", name, syntax, start, end, written[:300]))
