"""DICE-2: every written form of a secret roll sets the hidden flag, in pt, ru and en, and a
secret roll is given to no declared action (so no event sentence can show its value)."""

from __future__ import annotations

import pytest

from pbp.parse import parse_post

ROSTER = [{"key": "goblin", "name": "Goblin", "aliases": ["гоблин"]}]


def _rolls(text: str, lang: str) -> list[tuple[str, str | None, bool]]:
    post = parse_post(text, fmt="bbcode", lang=lang, roster=ROSTER)
    assert not post.errors, post.errors
    return [(r.expression, r.label, r.hidden) for r in post.rolls]


@pytest.mark.parametrize("text, lang, expected", [
    # English
    ("I sneak past. [roll hidden]1d20+5[/roll]", "en", ("1d20+5", None)),
    ("[dice secret]1d20+2 stealth[/dice]", "en", ("1d20+2", "stealth")),
    ("Sneaking.\n.rh 1d20+5 stealth", "en", ("1d20+5", "stealth")),
    ("Sneaking.\n!r -h 1d20+5 stealth", "en", ("1d20+5", "stealth")),
    ("Sneaking.\n!roll -h 1d20", "en", ("1d20", None)),
    ("Sneaking.\n/r -h 2d6", "en", ("2d6", None)),
    ("Sneaking.\n/roll 1d20+1 -hidden", "en", ("1d20+1", None)),
    # Portuguese
    ("Me escondo atrás da pilastra. [roll oculto]1d20+5 furtividade[/roll]", "pt",
     ("1d20+5", "furtividade")),
    ("Me escondo.\n!r -oculto 1d20+3", "pt", ("1d20+3", None)),
    ("Me escondo.\n/r -h 1d20 percepção", "pt", ("1d20", "percepção")),
    # Russian
    ("Прячусь за колонной. [roll скрыто]1к20+5 скрытность[/roll]", "ru",
     ("1d20+5", "скрытность")),
    ("Прячусь.\n!r -скрыто 1к20+2", "ru", ("1d20+2", None)),
    ("Прячусь.\n.rh 1к20", "ru", ("1d20", None)),
])
def test_DICE_2_every_hidden_form_sets_the_flag(text: str, lang: str, expected: tuple) -> None:
    assert _rolls(text, lang) == [(*expected, True)]


@pytest.mark.parametrize("text, lang", [
    ("[roll]1d20+5[/roll]", "en"), (".r 1d20+5", "en"), ("!r 1d20-2", "en"),
    ("/r 1d20 - 2", "pt"), ("[roll 2d6]", "ru"), ("!r 1d20 -5", "en"),
])
def test_DICE_2_ordinary_rolls_stay_public(text: str, lang: str) -> None:
    """A minus sign or a negative modifier is not a flag: only the lexicon's hidden words are."""
    found = _rolls(text, lang)
    assert found and not any(hidden for _e, _l, hidden in found)


@pytest.mark.parametrize("text, lang", [
    ("I attack the goblin [roll hidden]1d20+5[/roll]", "en"),
    ("Ataco o goblin [roll oculto]1d20+5[/roll]", "pt"),
    ("Бью гоблина [roll скрыто]1к20+5[/roll]", "ru"),
])
def test_DICE_2_a_secret_roll_belongs_to_no_action(text: str, lang: str) -> None:
    """The attack is still declared, but the hidden roll is not its roll: the engine rolls
    the attack in the open and the narrator keeps the secret one."""
    post = parse_post(text, fmt="bbcode", lang=lang, roster=ROSTER)
    assert [a.kind.value for a in post.actions] == ["attack"]
    assert post.actions[0].options.roll_index is None
    assert post.rolls[0].hidden and post.rolls[0].action_index is None


def test_DICE_2_a_public_roll_beside_a_hidden_one_keeps_its_action() -> None:
    post = parse_post("I attack the goblin [roll]1d20+5[/roll] [roll hidden]1d20[/roll]",
                      fmt="bbcode", lang="en", roster=ROSTER)
    assert [(r.hidden, r.action_index) for r in post.rolls] == [(False, 0), (True, None)]
    assert post.actions[0].options.roll_indices == (0,)
