"""FD-3 (an attack uses a weapon on the attacker's sheet) across languages: a sheet's weapon
written in English is the one a Portuguese or Russian post names in its own words, and
back. Walked on a live forum: a Portuguese campaign whose sheets came from a CSV in English
("axe", "longsword") refused "Ataco o Orc com o machado" with "Tomas não tem essa arma na
ficha (FD-3)"; only an alias typed by the narrator ("machado") made it count.

The expected weapons are the sheets' own names, as the engine looks them up."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pbp.parse import parse_post

LEXICONS = Path(__file__).resolve().parents[2] / "pbp" / "parse" / "lexicon"
ROSTER = [{"key": "tomas", "name": "Tomas", "weapons": ["axe"]},
          {"key": "brienne", "name": "Brienne", "weapons": ["longsword"]},
          {"key": "ines", "name": "Inês", "weapons": ["espada curta"]},
          {"key": "orc", "name": "Orc", "weapons": ["club"]}]


@pytest.mark.parametrize(("text", "lang", "actor", "weapon"), [
    ("Ataco o Orc com o machado [roll]1d20+3[/roll]", "pt", "tomas", "axe"),
    ("Ataco o Orc com a espada longa", "pt", "brienne", "longsword"),
    ("Бью Orc топором", "ru", "tomas", "axe"),
    ("I attack the Orc with my sword", "en", "ines", "espada curta"),
    ("I attack the Orc with my axe", "en", "tomas", "axe"),   # the same language, as before
])
def test_fd_3_a_sheet_weapon_is_named_in_the_posts_own_language(
        text: str, lang: str, actor: str, weapon: str) -> None:
    p = parse_post(text, lang=lang, roster=ROSTER, actor=actor)
    assert [(a.kind.value, a.target, a.weapon) for a in p.actions] == [("attack", "orc", weapon)]


def test_fd_3_every_weapon_word_has_its_english_concept() -> None:
    """Each Portuguese and Russian canonical weapon says which English one it is, and no
    two say the same: a missing line would leave that weapon unmatched across languages."""
    english = list(tomllib.loads((LEXICONS / "en.toml").read_text("utf-8"))["weapons"])
    for lang in ("pt", "ru"):
        data = tomllib.loads((LEXICONS / f"{lang}.toml").read_text("utf-8"))
        concepts = data["weapon_concepts"]
        assert sorted(concepts) == sorted(data["weapons"]), lang
        assert sorted(concepts.values()) == sorted(english), lang
