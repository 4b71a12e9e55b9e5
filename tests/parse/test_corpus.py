"""The corpus (tests/parse/corpus/*.yaml): rolls and speech counts exact, actions scored.

Goals from the issue: rolls and speech 100%, inferred action kinds >= 90% precision.
The figures are printed (``pytest -s``) so a change shows what it costs.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tests.parse import corpus_eval


@pytest.fixture(scope="module")
def corpus():
    return corpus_eval.load()


def test_corpus_size(corpus):
    langs = Counter(p.lang for p in corpus)
    assert len(corpus) >= 90
    assert all(langs[lang] >= 30 for lang in ("pt", "ru", "en")), langs
    assert {p.fmt for p in corpus} >= {"text", "html", "markdown"}


def test_corpus_scores(corpus):
    score = corpus_eval.score(corpus)
    print("\n" + score.summary())
    for line in score.failures:
        print("  " + line)
    assert score.rolls_exact == score.posts
    assert score.speech_exact == score.posts
    assert score.commands_exact == score.posts
    assert score.errors_found == score.posts
    assert score.inferred_precision >= 0.90
    assert score.precision >= 0.90
    assert score.recall >= 0.85


def test_holdout_scores():
    """Posts written after the lexicons were tuned: the honest figure (no 100% expected)."""
    held = corpus_eval.load(corpus_eval.CORPUS / "holdout")
    if not held:
        pytest.skip("no holdout corpus")
    score = corpus_eval.score(held)
    print("\nholdout: " + score.summary())
    for line in score.failures:
        print("  " + line)
    assert score.rolls_exact == score.posts
    assert score.speech_exact >= 0.9 * score.posts
    assert score.inferred_precision >= 0.80


ISSUE13 = corpus_eval.CORPUS / "issue13"


def _issue13(name: str) -> list[corpus_eval.Post]:
    return corpus_eval.load_file(ISSUE13 / f"{name}.yaml")


def test_issue13_corpus_split_once():
    """Issue 13 item 5: 60 new posts, 20 per language, half long narrative, split once into
    tuning and test halves that share no post (each half: 5 long and 5 short per language)."""
    tuning, test = _issue13("tuning"), _issue13("test")
    assert len(tuning) == len(test) == 30
    assert not {p.id for p in tuning} & {p.id for p in test}
    for half in (tuning, test):
        groups = Counter((p.lang, p.long) for p in half)
        assert groups == {(lang, long): 5 for lang in ("en", "pt", "ru") for long in (True, False)}


def test_issue13_test_set_scores():
    """Issue 13 item 5: the test set, never tuned on. Rolls exact; before this issue's
    changes the long posts scored kind precision 0.54, recall 0.72 (docs/parse.md)."""
    scores = corpus_eval.breakdown(_issue13("test"))
    print("\nissue 13 test set:\n" + corpus_eval.table(scores))
    assert scores["all"].rolls_exact == scores["all"].posts
    assert scores["long"].precision > 0.54 and scores["long"].recall >= 0.72
    assert scores["short"].precision >= 0.90 and scores["short"].recall >= 0.90
