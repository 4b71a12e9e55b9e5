"""Per-language word lists for the post parser, loaded from ``<lang>.toml`` beside this file.

The lists are data so that a narrator can add a verb without touching code. Each verb
form is also stemmed with snowball at load time, so inflections the list does not spell
out still match ("attacking" -> "attack", "гоблина" -> "гоблин"). Stemming is slow in
pure Python (about 20 us a word), so every :class:`Lexicon` keeps a bounded cache.

>>> lex = get("pt")
>>> lex.verb("golpeio")[1]
'attack'
>>> get("ru").fold("Ёж")
'еж'
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import snowballstemmer

LANGUAGES = ("en", "pt", "ru")
_CACHE_LIMIT = 100_000

_FOLD = str.maketrans({
    **{c: "a" for c in "áàâãäå"}, **{c: "e" for c in "éèêë"}, **{c: "i" for c in "íìîï"},
    **{c: "o" for c in "óòôõö"}, **{c: "u" for c in "úùûü"}, "ç": "c", "ñ": "n", "ё": "е",
    "’": "'",
})


def fold(word: str) -> str:
    """Case- and accent-insensitive form of *word* (Cyrillic keeps й; ё becomes е)."""
    word = word.casefold()
    return word if word.isascii() else word.translate(_FOLD)


@dataclass
class Lexicon:
    """The words of one language, with a stemmer and its cache."""

    lang: str
    data: dict[str, Any]
    verbs_exact: dict[str, tuple[str, str, float]] = field(default_factory=dict)
    verbs_stem: dict[str, tuple[str, str, float]] = field(default_factory=dict)
    explicit: dict[str, str] = field(default_factory=dict)
    weapons_exact: dict[str, str] = field(default_factory=dict)
    weapons_stem: dict[str, str] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    negations: frozenset[str] = frozenset()
    objects_before: frozenset[str] = frozenset()
    objects_after: frozenset[str] = frozenset()
    advantage: frozenset[str] = frozenset()
    disadvantage: frozenset[str] = frozenset()
    hidden: frozenset[str] = frozenset()   # words that make a roll secret (DICE-2)
    ooc_prefixes: tuple[str, ...] = ()
    determiners: frozenset[str] = frozenset()
    nouns: frozenset[str] = frozenset()
    conditionals: frozenset[str] = frozenset()
    temporals: frozenset[str] = frozenset()
    destinations: frozenset[str] = frozenset()
    unless_next: dict[str, frozenset[str]] = field(default_factory=dict)
    action_labels: dict[str, str] = field(default_factory=dict)
    nothing: frozenset[str] = frozenset()
    lead_words: frozenset[str] = frozenset()
    first_person: frozenset[str] = frozenset()
    perfect: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self._stemmer = snowballstemmer.stemmer(self.data.get("stemmer", "english"))
        self._stems: dict[str, str] = {}
        self._weapons: dict[str, str | None] = {}
        self._info: dict[str, tuple[tuple[str, str, float] | None, str | None, str,
                                    float | None]] = {}
        d = self.data
        for verb, spec in d.get("verbs", {}).items():
            kind, conf = spec["kind"], float(spec.get("confidence", 0.8))
            if spec.get("unless_next"):
                self.unless_next[verb] = frozenset(fold(w) for w in spec["unless_next"])
            for form in spec["forms"]:
                f = fold(form)
                self.verbs_exact.setdefault(form.casefold(), (verb, kind, conf))
                self.verbs_exact.setdefault(f, (verb, kind, conf))
                s = self.stem(form.casefold())
                if len(s) >= 3:
                    self.verbs_stem.setdefault(s, (verb, kind, round(conf - 0.1, 2)))
        self.explicit = {fold(k): v for k, v in d.get("explicit", {}).items()}
        for canonical, forms in d.get("weapons", {}).items():
            for form in forms:
                self.weapons_exact[fold(form)] = canonical
                s = self.stem(form.casefold())
                if len(s) >= 3:
                    self.weapons_stem.setdefault(s, canonical)
        for purpose, words in d.get("labels", {}).items():
            for w in words:
                self.labels[fold(w)] = purpose
        self.messages = dict(d.get("messages", {}))
        self.kinds = dict(d.get("kinds", {}))
        self.negations = frozenset(fold(w) for w in d.get("negations", ()))
        self.objects_before = frozenset(fold(w) for w in d.get("objects_before", ()))
        self.objects_after = frozenset(fold(w) for w in d.get("objects_after", ()))
        self.advantage = frozenset(fold(w) for w in d.get("advantage", ()))
        self.disadvantage = frozenset(fold(w) for w in d.get("disadvantage", ()))
        self.hidden = frozenset(fold(w) for w in d.get("hidden", ()))
        self.ooc_prefixes = tuple(fold(w) for w in d.get("ooc_prefixes", ()))
        self.determiners = frozenset(fold(w) for w in d.get("determiners", ()))
        self.nouns = frozenset(fold(w) for w in d.get("nouns", ()))
        self.conditionals = frozenset(fold(w) for w in d.get("conditionals", ()) if " " not in w)
        self.temporals = frozenset(fold(w.split()[-1]) for w in d.get("temporals", ()))
        self.destinations = frozenset(fold(w) for w in d.get("destinations", ()))
        self.action_labels = {fold(k): v for k, v in d.get("action_labels", {}).items()}
        self.nothing = frozenset(fold(w) for w in d.get("nothing", ()))
        self.lead_words = frozenset(fold(w) for w in d.get("lead_words", ()))
        self.first_person = frozenset(fold(w) for w in d.get("first_person", ()))
        self.perfect = frozenset(fold(w) for w in d.get("perfect", ()))
        # any word that can stop a verb from being declared: one test clears most verbs
        self.blockers = self.negations | self.conditionals | self.temporals

    fold = staticmethod(fold)

    def stem(self, word: str) -> str:
        """Snowball stem of a casefolded *word*, cached."""
        cached = self._stems.get(word)
        if cached is None:
            if len(self._stems) >= _CACHE_LIMIT:
                self._stems.clear()
            cached = self._stemmer.stemWord(word)
            self._stems[word] = cached
        return cached

    def verb(self, word: str) -> tuple[str, str, float] | None:
        """``(verb, kind, confidence)`` for a word of prose, or None."""
        low = word.casefold()
        hit = self.verbs_exact.get(low)
        if hit is None:
            f = fold(low)
            if f in self.nouns or f in self.weapons_exact:  # "lança" the spear, not "lanço"
                return None
            hit = self.verbs_exact.get(f)
            if hit is None and len(low) > 3:
                hit = self.verbs_stem.get(self.stem(low))
        return hit

    def info(self, word: str) -> tuple[tuple[str, str, float] | None, str | None, str, float | None]:
        """``(verb hit, weapon, folded, confidence)`` of a word as written, cached: one
        lookup a word. The confidence is what an action inferred from this word gets: the
        verb's, 0.1 less unless the word is an exact (case-insensitive) form."""
        cached = self._info.get(word)
        if cached is None:
            if len(self._info) >= _CACHE_LIMIT:
                self._info.clear()
            if word[0].isdigit():
                cached = (None, None, word, None)
            else:
                hit = self.verb(word)
                confidence = None
                if hit is not None:
                    exact = self.verbs_exact.get(word.casefold()) is not None
                    confidence = round(hit[2] if exact else hit[2] - 0.1, 2)
                cached = (hit, self.weapon(word), fold(word), confidence)
            self._info[word] = cached
        return cached

    def weapon(self, word: str) -> str | None:
        """The canonical weapon a word names (``espadas`` -> ``sword``), or None; cached."""
        try:
            return self._weapons[word]
        except KeyError:
            pass
        low = word.casefold()
        hit = self.weapons_exact.get(fold(low))
        if hit is None and len(low) > 3:
            hit = self.weapons_stem.get(self.stem(low))
        if len(self._weapons) >= _CACHE_LIMIT:
            self._weapons.clear()
        self._weapons[word] = hit
        return hit

    def concept(self, canonical: str) -> str:
        """The English canonical word of weapon *canonical* (``machado`` -> ``axe``): what
        the same weapon is called in every lexicon's ``[weapon_concepts]``."""
        return str(self.data.get("weapon_concepts", {}).get(canonical, canonical))

    def any_weapon(self, word: str) -> str | None:
        """Like :meth:`weapon`, the word also read in the other languages and said by this
        lexicon's canonical word: a sheet's "axe" is the weapon a Portuguese post calls
        "machado" (a campaign's sheets are often written in English, its posts not)."""
        found = self.weapon(word)
        if found is not None:
            return found
        for lang in LANGUAGES:
            if lang == self.lang:
                continue
            other = get(lang).weapon(word)
            if other is not None:
                return _canonical_of(self.lang, get(lang).concept(other))
        return None

    def message(self, code: str, **params: Any) -> str:
        template = self.messages.get(code) or get("en").messages.get(code) or code
        if "kind" in params:
            params["kind"] = self.data.get("region_kinds", {}).get(params["kind"], params["kind"])
        try:
            return template.format(**params)
        except (KeyError, IndexError, ValueError):
            return template

    def kind_name(self, kind: str) -> str:
        return self.kinds.get(kind, kind)


@cache
def get(lang: str) -> Lexicon:
    """The lexicon of *lang* (``en``, ``pt``, ``ru``); unknown languages get English."""
    if lang not in LANGUAGES:
        lang = "en"
    raw = resources.files(__name__).joinpath(f"{lang}.toml").read_text(encoding="utf-8")
    return Lexicon(lang=lang, data=tomllib.loads(raw))


@cache
def _canonical_of(lang: str, concept: str) -> str | None:
    """*lang*'s canonical word for weapon *concept* (an English canonical word)."""
    lex = get(lang)
    return next((c for c in lex.data.get("weapons", {}) if lex.concept(c) == concept), None)


_PT_HINTS = frozenset(["não", "nao", "com", "uma", "um", "que", "o", "os", "as", "para", "meu", "minha", "eu", "ele", "ela", "dos", "das", "na", "no", "em", "se", "mas", "seu", "sua", "ao", "à", "é"])
_EN_HINTS = frozenset(["the", "and", "with", "i", "my", "to", "of", "at", "a", "is", "it", "his", "her", "he", "she", "you", "on", "in"])


_CYRILLIC_RUNS = re.compile("[\u0410-\u044f\u0401\u0451]+")
#: every byte but the ASCII letters' (deleted to count them: script_letters)
_NOT_LATIN = bytes(b for b in range(256) if not (65 <= b <= 90 or 97 <= b <= 122))


def script_letters(sample: str) -> tuple[int, int]:
    """(Cyrillic letters, ASCII Latin letters) in *sample*: the script evidence both the
    cheap guess here and :mod:`pbp.parse.language` weigh.

    >>> script_letters("Бью orc")
    (3, 3)
    """
    # SCALE-6: the ASCII letters counted as the bytes left of the UTF-8 text once every
    # other byte is deleted (a letter beyond ASCII is encoded in bytes >= 0x80, all
    # deleted), and the Cyrillic runs looked for only in text that is not all ASCII: the
    # two regex scans cost 47 us on a narrator's 25-line post, this 1.4 us. The letters
    # counted: а-я, А-Я, ё, Ё and ASCII A-Z, a-z.
    latin = len(sample.encode("utf-8", "surrogatepass").translate(None, _NOT_LATIN))
    if sample.isascii():
        return 0, latin
    return sum(map(len, _CYRILLIC_RUNS.findall(sample))), latin


def detect(text: str) -> str:
    """A cheap script-and-stopword guess of the post's language: ``ru``, ``pt`` or ``en``.

    >>> detect("Бью гоблина мечом"), detect("Ataco o goblin com a espada"), detect("I attack")
    ('ru', 'pt', 'en')
    """
    sample = text[:4000]
    cyr, lat = script_letters(sample)
    if cyr > lat * 0.5 and cyr:
        return "ru"
    pt = en = 0
    for word in sample.lower().split():
        word = word.strip(".,;:!?\"'()*_«»“”")
        if word in _PT_HINTS:
            pt += 1
        if word in _EN_HINTS:
            en += 1
        if any(c in word for c in "ãõçêôáéíóú"):
            pt += 1
    return "pt" if pt > en else "en"
