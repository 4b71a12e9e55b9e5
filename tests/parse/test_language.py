"""Issue 13 item 2: each post in its own language, the campaign's the first guess."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbp.parse import language, parse_post
from pbp.parse.language import choose

ROSTER = [{"key": "orc2", "name": "Orc 2"}, {"key": "goblin", "name": "Goblin", "aliases": ["гоблин"]}]


@pytest.mark.parametrize(("text", "first", "want"), [
    ("Eu ataco o Orc 2 com a minha espada [roll]1d20+2[/roll]", "en", "pt"),
    ("Я атакую гоблина мечом [roll]1d20+5[/roll]", "en", "ru"),
    ("Я атакую гоблина мечом [roll]1d20+5[/roll]", "pt", "ru"),
    ("I attack the goblin with my sword and my shield", "pt", "en"),
    ("I attack the goblin with my sword and my shield", "ru", "en"),
    ("Ataco!", "en", "en"),                      # short: the campaign's language stays
    ("ok", "ru", "ru"),
    ("[roll]1d20+5[/roll] [roll]1d8+3[/roll]", "ru", "ru"),   # tags are not Latin prose
    ("Goblin!", "pt", "pt"),
])
def test_a_post_plainly_in_another_language_is_read_in_it(text: str, first: str, want: str) -> None:
    """Issue 13 item 2: by a margin; a short or ambiguous post keeps the first guess."""
    assert choose(text, first) == want


def test_the_guess_reads_outside_asides_and_quotes() -> None:
    """Issue 13 item 2: English narration with a long Portuguese aside reads English, and
    a quoted Russian post does not make an English reply Russian."""
    post = parse_post("(OFF: desculpa a demora, não consegui postar ontem, minha internet caiu) "
                      "I attack the goblin with my sword", lang="pt", roster=ROSTER, own_language=True)
    assert post.lang == "en" and [a.kind.value for a in post.actions] == ["attack"]
    post = parse_post("[quote]Я атакую гоблина мечом и щитом[/quote]\nI attack the goblin with my sword",
                      fmt="bbcode", lang="en", roster=ROSTER, own_language=True)
    assert post.lang == "en"


def test_own_language_off_keeps_the_given_language() -> None:
    """Issue 13 item 2: without *own_language* the language given is the one read (the CLI's
    ``--lang``); the Portuguese attack is then not understood in English."""
    text = "Eu ataco o Orc 2 com a minha espada [roll]1d20+2[/roll]"
    assert parse_post(text, lang="en", roster=ROSTER).lang == "en"
    post = parse_post(text, lang="en", roster=ROSTER, own_language=True)
    assert post.lang == "pt"
    assert [(a.kind.value, a.target) for a in post.actions] == [("attack", "orc2")]
    assert post.to_dict()["lang"] == "pt"


def _counts_word_by_word(text: str) -> tuple[int, int, int, int]:
    """The evidence as the module states it, word by word: each whitespace-separated word
    of the sample (noise removed, lower-cased) stripped of ``.,;:!?"'()*_«»“”—-``; a
    Portuguese hint word counts for Portuguese, an English one for English, and a word
    holding a Portuguese letter once more for Portuguese."""
    from pbp.parse import language
    from pbp.parse.lexicon import _EN_HINTS, _PT_HINTS, script_letters

    sample = language._NOISE.sub(" ", text[:4000])
    cyr, lat = script_letters(sample)
    pt = en = 0
    if lat:
        for word in sample.lower().split():
            word = word.strip(".,;:!?\"'()*_«»“”—-")
            pt += (word in _PT_HINTS) + any(ch in "ãõçêôáéíóúâà" for ch in word)
            en += word in _EN_HINTS
    return cyr, lat, pt, en


_WORDY = "abdeimnostuyçãéàêÃÉ БьюI.,;:!?\"'()*_«»“”—-\t\n\u2003\u00a0\x1c"


@given(st.lists(st.sampled_from([*_WORDY, "the ", "com ", " eu", "não", " à ", "é", " a ",
                                 "[b]", "1d20"]), max_size=40).map("".join))
@settings(max_examples=400, deadline=None)
def test_scale_6_the_evidence_is_counted_word_by_word(text: str) -> None:
    """SCALE-6: the counts found with the work mapped in C are those of the word-by-word
    reading (Issue 13 item 2's evidence), whatever the marks and whitespace."""
    from pbp.parse.language import counts

    assert tuple(counts(text)) == _counts_word_by_word(text)


#: the noise pattern as first written (issue 13 item 2): what language.counts removes
_NOISE_AS_WRITTEN = re.compile(
    r"\[[^\]\n]{0,80}\]|\b\d*[dкд]\d+\S*|https?://\S+|[.!/]r(?:oll)?\s+\S+", re.IGNORECASE)

_NOISY = st.lists(st.sampled_from(
    list("abdhrtsoDHRКДкд0123 \n.!/:[]+ол") + ["roll", "http", "https://", "[roll]", "1d20", ".r "]),
    max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(_NOISY, st.text()))
def test_scale6_noise_removed_as_written(text: str) -> None:
    """SCALE-6: the noise pattern with its first-character lookahead removes exactly
    what the pattern as written removed (tags, dice, links, bot commands), on any text."""
    assert language._NOISE.sub(" ", text) == _NOISE_AS_WRITTEN.sub(" ", text)
