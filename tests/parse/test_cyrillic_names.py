"""A Russian post names a combatant whose name is in Latin letters, in Cyrillic and inflected.

Transliterating the stem gave ``ork`` for ``орка`` and ``maks`` for ``Макса``, which no
Latin name matched: a Russian player's attack on "Orc" had no target (docs/parse.md,
Targets). The expected targets come from the roster: the one combatant each name means.
"""

from __future__ import annotations

import pytest

from pbp.parse import parse_post

ROSTER = [{"key": "orc", "name": "Orc"}, {"key": "max", "name": "Max"},
          {"key": "gob", "name": "Goblin"}, {"key": "kobold", "name": "Kobold"}]


@pytest.mark.parametrize(("text", "target"), [
    ("Я бью орка мечом", "orc"),           # k for a Latin c
    ("Атакую Макса топором", "max"),        # ks for a Latin x
    ("Бью гоблина", "gob"),                 # as before: the transliteration alone
    ("Бью кобольда", "kobold"),             # a Latin k stays a k
    ("Я атакую Orc мечом", "orc"),          # the name as written
])
def test_a_latin_name_written_in_cyrillic_is_the_target(text: str, target: str) -> None:
    post = parse_post(text, lang="ru", roster=ROSTER)
    assert [(a.kind.value, a.target) for a in post.actions] == [("attack", target)]


def test_a_cyrillic_word_that_names_nobody_finds_no_one() -> None:
    """The c/x spellings widen a word's keys only towards the roster's own names: "кота"
    (a cat) is nobody here."""
    post = parse_post("Бью кота", lang="ru", roster=ROSTER)
    assert [a.target for a in post.actions] == [None]
