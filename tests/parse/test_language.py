"""Issue 13 item 2: each post in its own language, the campaign's the first guess."""

from __future__ import annotations

import pytest

from pbp.parse import parse_post
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
