"""Random tables (DICE-6): critical hits, fumbles, hit locations, loot, as checked values.

Why a module of its own, pure: a table is data a narrator writes (a ruleset's file under
``pbp/config/tables/<ruleset>/``, or a campaign's own TOML pasted in the panel), read the
same way wherever it comes from, and checked whole before it is ever rolled on: a die
range with a hole in it would leave some roll with no entry, an overlap would give one
roll two. :func:`parse_tables` reports every problem at once (STYLE 5), each naming the
table and the numbers, so a narrator fixes the text in one go.

The die is rolled through :class:`pbp.dice.DiceBox` like every other roll (the rounds
layer does it, :mod:`pbp.rounds.tables`); here a total only picks its entry.

>>> [t] = parse_tables('''
... [[tables]]
... key = "crit"
... die = "1d6"
... name = { en = "Critical hit table", pt = "Tabela de críticos" }
... aliases = ["critico", "крит"]
... entries = [{ range = "1-3", text = "A graze" }, { range = "4-6", text = { en = "A deep cut" } }]
... ''')
>>> t.entry_for(5).text_in("pt"), t.name_in("pt")
('A deep cut', 'Tabela de críticos')
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .dice import check_expression
from .errors import ConfigError, DiceError
from .parse.lexicon import fold
from .problem import Problem

LANGUAGES = ("en", "pt", "ru")
#: the dice a table may use: NdM, optionally plus or minus a constant (1d20, 1d100, 2d6, d%)
_DIE = re.compile(r"^(\d{0,3})d(\d{1,4}|%)(?:([+-])(\d{1,4}))?$", re.IGNORECASE)
_RANGE = re.compile(r"^\s*(-?\d{1,5})\s*(?:[-–—]|\.\.)\s*(-?\d{1,5})\s*$|^\s*(-?\d{1,5})\s*$")
_KEY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
#: most entries a table may have, and most tables a campaign may hold
MAX_ENTRIES = 200
MAX_TABLES = 50


class TableError(ConfigError):
    """Tables that cannot be used, with every problem found (``problems``), each a sentence."""

    def __init__(self, problems: Sequence[str], *, where: str | None = None) -> None:
        super().__init__("; ".join(problems), where=where)
        self.problems = list(problems)


@dataclass(frozen=True)
class TableEntry:
    """One line of a table: the totals ``low..high`` it covers and its text per language."""

    low: int
    high: int
    text: Mapping[str, str]

    @property
    def range(self) -> str:
        return str(self.low) if self.low == self.high else f"{self.low}-{self.high}"

    def text_in(self, lang: str) -> str:
        """The text in *lang*, else English, else the first one written."""
        return self.text.get(lang) or self.text.get("en") or next(iter(self.text.values()))


@dataclass(frozen=True)
class RandomTable:
    """A checked table: its entries cover ``low..high`` of its die, once each."""

    key: str
    die: str
    names: Mapping[str, str]
    aliases: tuple[str, ...]
    entries: tuple[TableEntry, ...]
    low: int
    high: int
    kind: str = ""            # crit | fumble | location | loot | other (informative)
    generic: bool = False     # invented: the ruleset's text has no such table
    note: str = ""
    source: str = ""          # where it was read ("pbp/config/tables/dnd5e/crit.toml", "campaign")

    def name_in(self, lang: str) -> str:
        return self.names.get(lang) or self.names.get("en") or self.key

    def entry_for(self, total: int) -> TableEntry:
        """The entry a rolled *total* lands on (every total of the die has one: checked)."""
        for e in self.entries:
            if e.low <= total <= e.high:
                return e
        raise LookupError(f"table '{self.key}' has no entry for {total}")

    def words(self) -> tuple[str, ...]:
        """Every name a post may call it by, folded (key, aliases, its names)."""
        return tuple(dict.fromkeys(fold(w) for w in (self.key, *self.aliases,
                                                      *self.names.values()) if w))


def die_range(die: str) -> tuple[int, int]:
    """The lowest and highest totals of a table's die (``2d6`` -> (2, 12)).

    >>> die_range("1d100"), die_range("2d6"), die_range("1d6+1")
    ((1, 100), (2, 12), (2, 7))
    """
    text = die.replace(" ", "")
    m = _DIE.match(text)
    if m is None:
        raise DiceError(Problem("'{die}' is not a table die: write NdM, such as 1d20, 1d100 "
                                "or 2d6", die=die))
    count = int(m.group(1) or 1)
    size = 100 if m.group(2) == "%" else int(m.group(2))
    if count < 1 or size < 1:
        raise DiceError(Problem("'{die}' rolls no dice", die=die))
    check_expression(text)
    shift = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
    return count + shift, count * size + shift


def parse_range(text: Any) -> tuple[int, int]:
    """``"1-5"`` -> (1, 5), ``"6"`` or ``6`` -> (6, 6); anything else a ValueError saying why."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text, text
    m = _RANGE.match(str(text))
    if m is None:
        raise ValueError(Problem("'{text}' is not a range: write 1-5, 6 or 95-100", text=text))
    if m.group(3) is not None:
        n = int(m.group(3))
        return n, n
    low, high = int(m.group(1)), int(m.group(2))
    if low > high:
        raise ValueError(Problem("'{text}' runs backwards: write {high}-{low}", text=text,
                                 high=high, low=low))
    return low, high


def _texts(value: Any, where: Problem, problems: list[str]) -> dict[str, str]:
    """A text written plainly (any language) or per language (``{ en = ..., pt = ... }``)."""
    if isinstance(value, str) and value.strip():
        return {"en": value.strip()}
    if isinstance(value, Mapping) and value:
        bad = sorted(k for k in value if k not in LANGUAGES)
        if bad:
            problems.append(Problem("{where}: languages are en, pt and ru, not {bad}",
                                    where=where, bad=", ".join(bad)))
        out = {k: str(v).strip() for k, v in value.items() if k in LANGUAGES and str(v).strip()}
        if out:
            return out
    problems.append(Problem("{where}: a text is missing (a string, or {{ en = ..., pt = ..., "
                            "ru = ... }})", where=where))
    return {}


def coverage_problems(key: str, die: str, low: int, high: int,
                      entries: Sequence[TableEntry]) -> list[str]:
    """Every gap, overlap and out-of-range entry of a table, each naming the numbers."""
    problems: list[str] = []
    for e in entries:
        if e.low < low or e.high > high:
            problems.append(Problem("table '{key}': entry {range} is outside {low}-{high}, "
                                    "what {die} can roll", key=key, range=e.range, low=low,
                                    high=high, die=die))
    ordered = sorted(entries, key=lambda e: (e.low, e.high))
    for a, b in zip(ordered, ordered[1:], strict=False):
        if b.low <= a.high:
            both = f"{b.low}" if b.low == min(a.high, b.high) else f"{b.low}-{min(a.high, b.high)}"
            problems.append(Problem("table '{key}': entries {a} and {b} overlap on {both}",
                                    key=key, a=a.range, b=b.range, both=both))
    covered = sorted((max(e.low, low), min(e.high, high)) for e in entries
                     if e.high >= low and e.low <= high)
    cursor = low
    gaps = []
    for start, stop in covered:
        if start > cursor:
            gaps.append((cursor, start - 1))
        cursor = max(cursor, stop + 1)
    if cursor <= high:
        gaps.append((cursor, high))
    for start, stop in gaps:
        hole = str(start) if start == stop else f"{start}-{stop}"
        problems.append(Problem("table '{key}': no entry covers {hole} ({die} rolls {low}-{high})",
                                key=key, hole=hole, die=die, low=low, high=high))
    return problems


def _die(die: str, where: Problem, problems: list[str]) -> tuple[int, int] | None:
    """The die's range, or None with its problem said."""
    if not die:
        problems.append(Problem("{where}: 'die' is missing (such as 1d20, 1d100 or 2d6)",
                                where=where))
        return None
    try:
        return die_range(die)
    except DiceError as exc:
        problems.append(Problem("{where}: {problem}", where=where, problem=exc.message))
        return None


def _table(raw: Any, n: int, source: str, problems: list[str]) -> RandomTable | None:
    where = Problem("table #{n}", n=n)
    if not isinstance(raw, Mapping):
        problems.append(Problem("{where}: a table is a TOML table ([[tables]])", where=where))
        return None
    before = len(problems)
    key = str(raw.get("key") or "").strip().lower()
    if not _KEY.match(key):
        problems.append(Problem("{where}: 'key' must be a short name of letters, digits, - or _ "
                                "(such as crit), not {value}", where=where,
                                value=repr(raw.get("key"))))
        key = key or f"#{n}"
    where = Problem("table '{key}'", key=key)
    unknown = sorted(set(raw) - {"key", "die", "name", "aliases", "entries", "kind",
                                 "generic", "note"})
    if unknown:
        problems.append(Problem("{where}: unknown setting {names}", where=where,
                                names=", ".join(unknown)))
    die = str(raw.get("die") or "").strip()
    span = _die(die, where, problems)
    low, high = span or (0, -1)
    names = _texts(raw.get("name"), Problem("table '{key}', name", key=key), problems)
    aliases = raw.get("aliases") or []
    if not isinstance(aliases, list) or not all(isinstance(a, str) and a.strip() for a in aliases):
        problems.append(Problem("{where}: 'aliases' is a list of words, such as "
                                "[\"crit\", \"crítico\"]", where=where))
        aliases = []
    raw_entries = raw.get("entries")
    entries: list[TableEntry] = []
    if not isinstance(raw_entries, list) or not raw_entries:
        problems.append(Problem("{where}: 'entries' is missing: [[tables.entries]] with range "
                                "and text", where=where))
        raw_entries = []
    if len(raw_entries) > MAX_ENTRIES:
        problems.append(Problem("{where}: {count} entries; at most {most}", where=where,
                                count=len(raw_entries), most=MAX_ENTRIES))
    for i, e in enumerate(raw_entries[:MAX_ENTRIES], 1):
        at = Problem("table '{key}', entry {n}", key=key, n=i)
        if not isinstance(e, Mapping):
            problems.append(Problem("{where}: an entry has a range and a text", where=at))
            continue
        try:
            a, b = parse_range(e.get("range", ""))
        except ValueError as exc:
            problems.append(Problem("{where}: {problem}", where=at, problem=exc.args[0]))
            continue
        text = _texts(e.get("text"), Problem("table '{key}', entry {n}", key=key,
                                             n=a if a == b else f"{a}-{b}"), problems)
        entries.append(TableEntry(a, b, text))
    if span is not None and entries:
        problems.extend(coverage_problems(key, die.replace(" ", ""), low, high, entries))
    if len(problems) > before:
        return None
    return RandomTable(key=key, die=die.replace(" ", ""), names=names,
                       aliases=tuple(a.strip() for a in aliases),
                       entries=tuple(sorted(entries, key=lambda x: x.low)), low=low, high=high,
                       kind=str(raw.get("kind") or ""), generic=bool(raw.get("generic", False)),
                       note=str(raw.get("note") or ""), source=source)


def parse_tables(text: str, *, source: str = "campaign") -> list[RandomTable]:
    """The tables of one TOML text (``[[tables]]``, each with ``[[tables.entries]]``);
    raises :class:`TableError` listing every problem. An empty text holds no table."""
    if not text.strip():
        return []
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TableError([Problem("the text is not valid TOML: {detail}", detail=str(exc))],
                         where=source) from None
    problems: list[str] = []
    unknown = sorted(set(data) - {"tables"})
    if unknown:
        problems.append(Problem("unknown section {names}: tables go in [[tables]]",
                                names=", ".join(unknown)))
    raw = data.get("tables")
    if not isinstance(raw, list) or not raw:
        problems.append(Problem("no [[tables]] found"))
        raw = []
    if len(raw) > MAX_TABLES:
        problems.append(Problem("{count} tables; at most {most}", count=len(raw), most=MAX_TABLES))
    tables = [t for n, r in enumerate(raw[:MAX_TABLES], 1)
              if (t := _table(r, n, source, problems)) is not None]
    problems.extend(name_clashes(tables))
    if problems:
        raise TableError(problems, where=source)
    return tables


def name_clashes(tables: Iterable[RandomTable]) -> list[str]:
    """Two tables of one text answering to the same word would make a post ambiguous."""
    owner: dict[str, str] = {}
    problems: list[str] = []
    for t in tables:
        for w in t.words():
            other = owner.setdefault(w, t.key)
            if other != t.key:
                problems.append(Problem("tables '{a}' and '{b}' are both called '{word}'",
                                        a=other, b=t.key, word=w))
    return problems


@dataclass(frozen=True)
class TableSet:
    """The tables a campaign can roll on: the ruleset's, then the campaign's own, which
    win over a ruleset table answering to the same word."""

    tables: tuple[RandomTable, ...] = ()
    index: Mapping[str, RandomTable] = field(default_factory=dict)

    @classmethod
    def of(cls, *layers: Iterable[RandomTable]) -> TableSet:
        index: dict[str, RandomTable] = {}
        by_key: dict[str, RandomTable] = {}
        for layer in layers:
            for t in layer:
                old = by_key.pop(t.key, None)
                if old is not None:
                    for w in old.words():
                        index.pop(w, None)
                by_key[t.key] = t
                for w in t.words():
                    index[w] = t
        tables = tuple(t for t in by_key.values() if any(index.get(w) is t for w in t.words()))
        return cls(tables, index)

    def find(self, written: str) -> RandomTable | None:
        return self.index.get(fold(" ".join(written.split())))

    def keys(self) -> list[str]:
        return sorted(t.key for t in self.tables)


__all__ = ["Problem", "RandomTable", "TableEntry", "TableError", "TableSet", "coverage_problems",
           "die_range", "parse_range", "parse_tables"]
