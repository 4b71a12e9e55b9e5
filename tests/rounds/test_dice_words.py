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


def test_pbp_4_a_refusal_is_stored_by_code_and_said_by_code(engine) -> None:
    """The declaration keeps the refusal's code and values beside its English sentence,
    and the reply says it from them: a row whose English a later version words otherwise
    (here: the stored sentence replaced) is still said in Portuguese."""
    from sqlalchemy import select

    from pbp.store import models as m
    from pbp.store.db import session_scope

    w = make_world(engine, language="pt", slug="refused-by-code")
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), POSTS["pt"])], now=at(1))
    d = w.declarations(rid)["aria"][0]
    (error,) = d.errors
    assert (error["refusal"], error["params"]) == (
        "dice.unknown_stat", {"word": "Charm", "expression": "1d20+Charm"})
    with session_scope(engine) as s:   # an older wording of the same refusal
        row = s.scalar(select(m.Declaration).where(m.Declaration.id == d.id))
        row.errors = [{**error, "message": "Charm: no such stat"}]
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert SAID["pt"] in body and "no such stat" not in body
