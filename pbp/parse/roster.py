"""Who and what a post can name: the encounter's combatants and the weapons on their sheets.

Matching is tolerant of case, accents and inflection: every word is folded
(:func:`pbp.parse.lexicon.fold`) and stemmed with the post language's snowball stemmer,
and Cyrillic stems are also transliterated, so ``гоблина`` finds ``Goblin`` and
``Гоблин``. Names the poster gives on purpose (``-t moz``, ``#attack Gobln``) may also
be a prefix (Avrae's habit: ``sh`` is ``SH1``) or a near miss (rapidfuzz). When several
combatants fit equally, every one is returned: the caller reports it, never guesses.

>>> r = Roster.of([{"key": "goblin-1", "name": "Goblin"}, {"key": "goblin-2", "name": "Goblin"},
...                {"key": "ana", "name": "Ana Clara", "weapons": ["Espada Longa"]}])
>>> r.resolve("goblin 2", get("pt"))
('goblin-2',)
>>> r.resolve("goblin", get("pt"))
('goblin-1', 'goblin-2')
>>> r.resolve("ana", get("pt"))
('ana',)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rapidfuzz import fuzz, process

from .lexicon import Lexicon, fold, get

# possessive (Python 3.11): a word never gives characters back, so the engine keeps no
# backtracking state per character (10% faster splitting, same words)
WORD = re.compile(r"[^\W_]++(?:['’][^\W_]++)*+")

_TRANSLIT = str.maketrans({
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ж": "zh", "з": "z", "и": "i",
    "й": "i", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s",
    "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "sch",
    "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya",
})


_NOT_ALNUM = re.compile(r"[\W_]+")


def _compact(text: str) -> str:
    return _NOT_ALNUM.sub("", fold(text))


_DIGITS = re.compile(r"\d+")


def _numbers(entry: RosterEntry) -> set[str]:
    return set(_DIGITS.findall(entry.key)) | set(_DIGITS.findall(entry.name))


@dataclass(frozen=True)
class RosterEntry:
    """A combatant as the parser needs it: key, shown name, other names, weapon names."""

    key: str
    name: str
    aliases: tuple[str, ...] = ()
    weapons: tuple[str, ...] = ()
    weapon_aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    side: str = ""


@dataclass
class _Index:
    first: dict[str, list[tuple[int, tuple[frozenset[str], ...]]]]
    folds: list[tuple[str, int]]          # (folded variant, entry) for prefix / fuzzy
    compact: dict[str, list[int]]         # folded variant without spaces/punctuation
    weapons_first: dict[str, list[tuple[str, int, tuple[frozenset[str], ...]]]]
    weapon_canon: dict[str, list[tuple[str, int]]]   # lexicon canonical -> (sheet weapon, owner)
    keys: dict[str, frozenset[str]]
    starts: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    longest: int = 1                      # most words in a name or weapon name
    matches: dict[tuple[Any, ...], tuple[int, tuple[Any, ...]]] = field(default_factory=dict)
    resolved: dict[str, tuple[str, ...]] = field(default_factory=dict)
    sheets: dict[tuple[str, str | None], str | None] = field(default_factory=dict)


class Roster:
    """The combatants a post may name. Build with :meth:`of` from Combatants, dicts or names."""

    def __init__(self, entries: Iterable[RosterEntry]) -> None:
        self.entries: tuple[RosterEntry, ...] = tuple(entries)
        self._indexes: dict[str, _Index] = {}

    def __len__(self) -> int:
        return len(self.entries)

    @classmethod
    def of(cls, roster: Any) -> Roster | None:
        """Accept None, a Roster, or a sequence of Combatant / RosterEntry / dict / str."""
        if roster is None or isinstance(roster, Roster):
            return roster
        if hasattr(roster, "combatants"):
            roster = roster.combatants
        entries = []
        for item in roster:
            if isinstance(item, RosterEntry):
                entries.append(item)
            elif isinstance(item, str):
                entries.append(RosterEntry(key=item, name=item))
            elif isinstance(item, Mapping):
                weapons = []
                waliases: dict[str, tuple[str, ...]] = {}
                for w in item.get("weapons", ()):
                    if isinstance(w, Mapping):
                        weapons.append(str(w["name"]))
                        waliases[str(w["name"])] = tuple(w.get("aliases", ()))
                    else:
                        weapons.append(str(w))
                key = str(item.get("key") or item.get("name"))
                entries.append(RosterEntry(key=key, name=str(item.get("name") or key),
                                           aliases=tuple(item.get("aliases", ())),
                                           weapons=tuple(weapons), weapon_aliases=waliases,
                                           side=str(item.get("side", ""))))
            else:  # pbp.rules.model.Combatant or anything shaped like it
                ws = tuple(getattr(item, "weapons", ()))
                entries.append(RosterEntry(
                    key=item.key, name=item.name, aliases=tuple(getattr(item, "aliases", ())),
                    weapons=tuple(w.name for w in ws),
                    weapon_aliases={w.name: tuple(w.aliases) for w in ws},
                    side=str(getattr(item, "side", ""))))
        return cls(entries)

    # -- keys -------------------------------------------------------------------------
    def word_keys(self, word: str, lex: Lexicon) -> frozenset[str]:
        """Match keys of one word: folded, stemmed, de-pluralised, transliterated."""
        idx = self._indexes.get(lex.lang) or self._index(lex)
        cached = idx.keys.get(word)
        if cached is not None:
            return cached
        low = word.casefold()
        f = fold(low)
        keys = {f}
        if not low.isdigit():
            s = fold(lex.stem(low))
            keys.add(s)
            if len(s) > 3 and s.endswith("s"):
                keys.add(s[:-1])
            if not f.isascii():
                t = s.translate(_TRANSLIT)
                if t.isascii():
                    # and as a Latin name may spell the same sounds: "орка" is "Orc",
                    # "Макса" is "Max" (the Cyrillic stem transliterates to ork, maks)
                    for v in {t, t.replace("ks", "x"), t.replace("ks", "x").replace("k", "c")}:
                        keys.add(v)
                        keys.add(fold(get("en").stem(v)))
        out = frozenset(keys)
        if len(idx.keys) > 50_000:
            idx.keys.clear()
        idx.keys[word] = out
        return out

    def _variant(self, text: str, lex: Lexicon) -> tuple[frozenset[str], ...]:
        return tuple(self.word_keys(w, lex) for w in WORD.findall(text))

    def _index(self, lex: Lexicon) -> _Index:
        idx = self._indexes.get(lex.lang)
        if idx is not None:
            return idx
        idx = _Index({}, [], {}, {}, {}, {})
        self._indexes[lex.lang] = idx
        for n, e in enumerate(self.entries):
            names = {e.name, e.key, *e.aliases}
            names.add(e.key.replace("-", " ").replace("_", " "))
            for name in names:
                toks = self._variant(name, lex)
                if not toks:
                    continue
                idx.folds.append((fold(name), n))
                idx.compact.setdefault(_compact(name), []).append(n)
                translit = _compact(name).translate(_TRANSLIT)
                if translit != _compact(name):
                    idx.compact.setdefault(translit, []).append(n)
                idx.longest = max(idx.longest, len(toks))
                for k in toks[0]:
                    idx.first.setdefault(k, []).append((n, toks))
            for w in e.weapons:
                for wname in (w, *e.weapon_aliases.get(w, ())):
                    toks = self._variant(wname, lex)
                    if not toks:
                        continue
                    idx.longest = max(idx.longest, len(toks))
                    for k in toks[0]:
                        idx.weapons_first.setdefault(k, []).append((w, n, toks))
                    for word in WORD.findall(wname):   # "axe" in a Portuguese post: machado
                        canon = lex.any_weapon(word)
                        if canon:
                            idx.weapon_canon.setdefault(canon, []).append((w, n))
        return idx

    # -- prose --------------------------------------------------------------------------
    def start_hits(self, words: Sequence[str], lex: Lexicon) -> list[tuple[bool, bool]]:
        """:meth:`starts` of every word, from the cache where it can."""
        idx = self._indexes.get(lex.lang) or self._index(lex)
        hits: list[Any] = list(map(idx.starts.get, words))  # cached: at C speed
        if not all(hits):
            starts = self.starts
            hits = [h or starts(w, lex) for w, h in zip(words, hits, strict=True)]
        return hits

    def starts(self, word: str, lex: Lexicon) -> tuple[bool, bool]:
        """Whether *word* can begin (a combatant's name, a weapon's name); cached."""
        idx = self._index(lex)
        hit = idx.starts.get(word)
        if hit is None:
            keys = self.word_keys(word, lex)
            hit = (any(k in idx.first for k in keys), any(k in idx.weapons_first for k in keys))
            if len(idx.starts) > 50_000:
                idx.starts.clear()
            idx.starts[word] = hit
        return hit

    def match_at(self, words: Sequence[str], i: int, lex: Lexicon,
                 weapons: bool = False) -> tuple[int, tuple[Any, ...]]:
        """The longest name starting at ``words[i]``: (length, keys) or (0, ())."""
        idx = self._indexes.get(lex.lang) or self._index(lex)
        key = (weapons, *words[i:i + idx.longest + 1])
        hit = idx.matches.get(key)
        if hit is None:
            if len(idx.matches) > 50_000:
                idx.matches.clear()
            hit = idx.matches[key] = self._match_at(words, i, lex, weapons)
        return hit

    def _match_at(self, words: Sequence[str], i: int, lex: Lexicon,
                  weapons: bool = False) -> tuple[int, tuple[Any, ...]]:
        idx = self._index(lex)
        table = idx.weapons_first if weapons else idx.first
        if len(words[i]) < 2 and not words[i].isdigit():
            return 0, ()
        best_len, best = 0, []
        for k in self.word_keys(words[i], lex):
            for item in table.get(k, ()):
                toks = item[-1]
                L = len(toks)
                if L < best_len or i + L > len(words):
                    continue
                if all(toks[j] & self.word_keys(words[i + j], lex) for j in range(1, L)):
                    if L > best_len:
                        best_len, best = L, [item]
                    else:
                        best.append(item)
        if not best_len:
            return 0, ()
        if weapons:
            names = tuple(dict.fromkeys(item[0] for item in best))
            return best_len, names
        owners: list[RosterEntry] = [self.entries[int(item[0])] for item in best]
        keys = tuple(dict.fromkeys(e.key for e in owners))
        j = i + best_len
        if len(keys) > 1 and j < len(words) and words[j].isdigit():
            # "skeleton 2" where the roster says "Esqueleto 2" with alias "skeleton"
            numbered = [e.key for e in owners if words[j] in _numbers(e)]
            if len(set(numbered)) == 1:
                return best_len + 1, (numbered[0],)
        return best_len, keys

    def sheet_weapon(self, canonical: str, lex: Lexicon, actor: str | None) -> str | None:
        """The sheet weapon that a generic word (``espada``) means, if only one fits; cached
        per (word, actor): the answer depends on the roster alone."""
        sheets = (self._indexes.get(lex.lang) or self._index(lex)).sheets
        key = (canonical, actor)
        if key not in sheets:
            if len(sheets) > 10_000:
                sheets.clear()
            sheets[key] = self._sheet_weapon(canonical, lex, actor)
        return sheets[key]

    def _sheet_weapon(self, canonical: str, lex: Lexicon, actor: str | None) -> str | None:
        found = self._index(lex).weapon_canon.get(canonical, ())
        if actor:
            mine = [w for w, n in found if self.entries[n].key == actor]
            if len(set(mine)) == 1:
                return mine[0]
        names = {w for w, _ in found}
        return names.pop() if len(names) == 1 else None

    # -- names given on purpose ----------------------------------------------------------
    def resolve(self, text: str, lex: Lexicon) -> tuple[str, ...]:
        """Keys a target string means: one (found), several (ambiguous) or none."""
        idx = self._index(lex)
        hit = idx.resolved.get(text)
        if hit is None:
            if len(idx.resolved) > 20_000:
                idx.resolved.clear()
            hit = idx.resolved[text] = self._resolve(text[:200], lex)
        return hit

    def _resolve(self, text: str, lex: Lexicon) -> tuple[str, ...]:
        idx = self._index(lex)
        f = fold(text.strip().strip("\"'“”«»"))
        if not f:
            return ()
        exact = [self.entries[n].key for v, n in idx.folds if v == f]
        if exact:
            return tuple(dict.fromkeys(exact))
        compact = idx.compact.get(_compact(text)) or idx.compact.get(
            _compact(text).translate(_TRANSLIT))
        if compact:
            return tuple(dict.fromkeys(self.entries[n].key for n in compact))
        words = WORD.findall(text)
        if words:
            length, keys = self.match_at(words, 0, lex)
            if length == len(words):
                return keys
        if len(f) >= 2:
            pre = [self.entries[n].key for v, n in idx.folds
                   if v.startswith(f) or any(t.startswith(f) for t in v.split())]
            if pre:
                return tuple(dict.fromkeys(pre))
        if len(f) >= 3 and idx.folds:
            hits = process.extract(f, [v for v, _ in idx.folds], scorer=fuzz.WRatio,
                                   score_cutoff=80, limit=6)
            if hits:
                top = hits[0][1]
                near = [self.entries[idx.folds[h[2]][1]].key for h in hits if h[1] >= top - 3]
                return tuple(dict.fromkeys(near))
        return ()
