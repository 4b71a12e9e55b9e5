"""STALL-7 popcorn: the hand-off words read from posts in en/pt/ru (lexicon data), as a
free action with ``options.command = "next"``; prose that only says "next" is no hand-off."""

from __future__ import annotations

import pytest

from pbp.parse.post import parse_post


def _hand_offs(text: str, lang: str) -> list[str | None]:
    return [a.options.target_text for a in parse_post(text, lang=lang).actions
            if a.options.command == "next"]


@pytest.mark.parametrize("text, lang, name", [
    ("I swing my axe at the orc.\nnext: Bruna", "en", "Bruna"),
    ("I hold the line.\n.next Bruna", "en", "Bruna"),
    ("Ataco o orc com o machado. Próximo: Bruna", "pt", "Bruna"),
    ("Defendo.\n.proximo Bruna", "pt", "Bruna"),
    ("Бью орка топором.\nследующий: Бруна", "ru", "Бруна"),
    ("Защищаюсь.\n.следующий Бруна", "ru", "Бруна"),
])
def test_STALL7_hand_off_read_in_three_languages(text: str, lang: str, name: str) -> None:
    assert _hand_offs(text, lang) == [name]


def test_STALL7_hand_off_does_not_eat_the_attack() -> None:
    """The attack before the hand-off is still read; the named one is no attack target."""
    post = parse_post("I attack the orc.\nnext: Bruna", lang="en")
    assert [a.kind.value for a in post.actions] == ["attack", "free"]


@pytest.mark.parametrize("text, lang", [
    ("I attack the next goblin.", "en"),
    ("Ataco o próximo goblin.", "pt"),
    ("Бью следующего гоблина.", "ru"),
])
def test_STALL7_prose_next_is_no_hand_off(text: str, lang: str) -> None:
    assert _hand_offs(text, lang) == []
