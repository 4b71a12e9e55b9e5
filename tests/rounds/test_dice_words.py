"""A roll tag the dice refuse is reported in the reply in the campaign's language (PBP-4: the
tag is rolled once, or its refusal said; the rest of the post still counts). Before, a
Portuguese or Russian reply read "não entendido: 'Charm' in '1d20+Charm' is not a stat on
this sheet". The expected sentences are the reply catalogs' "not understood" and their
translation of the dice's refusal dice.unknown_stat ("'{word}' in '{expression}' is not a
stat on this sheet")."""

from __future__ import annotations

import pytest

from .world import at, make_world, post

POSTS = {
    "en": "I attack Goblin Snag with my sword [roll]1d20+Charm[/roll]",
    "pt": "Ataco o Goblin Snag com a espada [roll]1d20+Charm[/roll]",
    "ru": "Атакую Goblin Snag мечом [roll]1d20+Charm[/roll]",
}
SAID = {
    "en": "not understood: 'Charm' in '1d20+Charm' is not a stat on this sheet",
    "pt": "não entendido: 'Charm' em '1d20+Charm' não é um atributo desta ficha",
    "ru": "не понято: 'Charm' в '1d20+Charm': такой характеристики нет в листе персонажа",
}


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_pbp_4_a_refused_roll_tag_is_said_in_the_campaigns_language(engine, lang: str) -> None:
    w = make_world(engine, language=lang, slug=f"refused-{lang}")
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), POSTS[lang])], now=at(1))
    d = w.declarations(rid)["aria"][0]
    assert [e["code"] for e in d.errors] == ["roll.refused"] and d.actions
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert SAID[lang] in body
    if lang != "en":
        assert "is not a stat on this sheet" not in body
