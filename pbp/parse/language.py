"""Which language a post is read in, when the campaign's is only the first guess.

Why: the service read every post in the campaign's language, so a Portuguese post in an
English campaign ("Eu ataco o Orc 2 …") came out as "no action" although ``pbp parse``
guessed its language right (issue 13 item 2). A post is now read in another of the three
languages only when it is *plainly* written in it, by a margin, so a short post ("Ataco!",
"ok") keeps the campaign's language; and the guess reads only the text outside quotes and
asides (the caller passes it masked), so English narration with a Portuguese ``(OFF: …)``
is read in English.

>>> choose("Eu ataco o Orc 2 com a minha espada [roll]1d20+2[/roll]", "en")
'pt'
>>> choose("Ataco!", "en"), choose("Я бью гоблина мечом", "en"), choose("ok", "ru")
('en', 'ru', 'ru')
>>> choose("I swing my axe at the orc and the goblin", "pt")
'en'
"""

from __future__ import annotations

import re
from itertools import repeat
from typing import NamedTuple

from .lexicon import _EN_HINTS, _PT_HINTS, LANGUAGES, script_letters
from .normalise import FORMATS, normalise
from .regions import EMPTY as NO_REGIONS
from .regions import mask_pairs
from .regions import scan as scan_regions

#: Letters of a script that make it plain: fewer and the post keeps the first guess.
MIN_LETTERS = 8
#: One script plain over the other: at least this many times its letters.
SCRIPT_RATIO = 2.0
#: Portuguese over English (or back): at least this many more hint words, and twice as many.
WORD_MARGIN = 2

#: Roll tags, dice and markup: Latin letters that say nothing about the language.
#: (SCALE-6: the lookahead, the first characters any of them may start with, lets the
#: regex engine pass over the other positions at once: a third less on a long post)
_NOISE = re.compile(r"(?=[\[\dhdкд.!/])"
                    r"(?:\[[^\]\n]{0,80}\]|\b\d*[dкд]\d+\S*|https?://\S+|[.!/]r(?:oll)?\s+\S+)",
                    re.IGNORECASE)
_PT_LETTERS = "ãõçêôáéíóúâà"
_PT_LETTER_SET = frozenset(_PT_LETTERS)
#: Marks stripped from each end of a word before it is looked up.
_STRIP = ".,;:!?\"'()*_«»“”—-"


class Counts(NamedTuple):
    """What a guess weighs: letters of each script, and Portuguese and English hint words."""

    cyrillic: int
    latin: int
    pt: int
    en: int


def counts(text: str) -> Counts:
    """The evidence in *text* (at most its first 4,000 characters), noise removed."""
    sample = _NOISE.sub(" ", text[:4000])
    cyr, lat = script_letters(sample)
    pt = en = 0
    if lat:
        # each word stripped by str.strip mapped in C, the hint words counted by set lookups
        # mapped in C, the words with a Portuguese letter only looked for when the sample
        # has one: the loop in Python over every word cost a third more (SCALE-6)
        lower = sample.lower()
        words = list(map(str.strip, lower.split(), repeat(_STRIP)))
        pt = sum(map(_PT_HINTS.__contains__, words))
        en = sum(map(_EN_HINTS.__contains__, words))
        if not _PT_LETTER_SET.isdisjoint(lower):
            pt += sum(not _PT_LETTER_SET.isdisjoint(w) for w in words)
    return Counts(cyr, lat, pt, en)


def choose(text: str, first: str) -> str:
    """The language to read *text* in: *first* (the campaign's) unless the text is plainly
    in another of ``en``, ``pt``, ``ru`` (see the module)."""
    first = first if first in LANGUAGES else "en"
    c = counts(text)
    if c.cyrillic >= MIN_LETTERS and c.cyrillic >= SCRIPT_RATIO * c.latin:
        return "ru"
    latin_plain = c.latin >= MIN_LETTERS and c.latin >= SCRIPT_RATIO * c.cyrillic
    if first == "ru" and not latin_plain:
        return first
    if not latin_plain:
        return first
    if c.pt - c.en >= WORD_MARGIN and c.pt >= 2 * c.en:
        return "pt"
    if c.en - c.pt >= WORD_MARGIN and c.en >= 2 * c.pt:
        return "en"
    return first if first != "ru" else ("pt" if c.pt > c.en else "en")


def post_language(text: str, first: str | None, *, fmt: str = "text") -> str:
    """The language :func:`parse_post` with *own_language* reads *text* in (*first*, the
    campaign's, unless the text outside quotes and asides is plainly in another).

    Why on its own: a caller that splits a post and parses the parts (a narrator's post
    declaring for 25 NPCs, :mod:`pbp.rounds.reading`) guesses once, on the whole post, and
    reads every part in that language: one post is written in one language, the whole is
    better evidence than a short part ("Orc 3: ataco o Hero"), and 25 guesses cost a
    tenth of reading the post (SCALE-6).

    >>> post_language("Orc 1: ataco o Hero 0 com a espada\\nOrc 2: ataco o Hero 1", "en")
    'pt'
    """
    if not isinstance(text, str):
        text = str(text or "")
    if fmt not in FORMATS:
        fmt = "text"
    text = normalise(text, fmt)
    reg = scan_regions(text, fmt)
    if reg is not NO_REGIONS and reg.spans:
        text = mask_pairs(text, [(s.start, s.end) for s in reg.spans])
    return choose(text, first or "en")
