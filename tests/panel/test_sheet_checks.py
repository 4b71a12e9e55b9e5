"""Issue 12 item 2 through the panel's routes: every value a narrator saves goes through the
checks a scenario meets at load; a bad one is refused with a sentence naming the field, and
nothing is saved."""

from __future__ import annotations

import html
import io
from typing import Any

from sqlalchemy import func, select, update

from pbp.store.db import make_engine, session_scope
from pbp.store.models import Combatant, Narrator

OGRE = {"key": "ogre", "name": "Ogre", "side": "monsters", "hp": 12, "max_hp": 12}


def _count(db_url: str, eid: int) -> int:
    with session_scope(make_engine(db_url)) as s:
        return int(s.scalar(select(func.count()).select_from(Combatant).where(Combatant.encounter_id == eid)))


def _save(alice: Any, eid: int, **changes: Any) -> Any:
    return alice.post(f"/encounters/{eid}/combatants/new", {**OGRE, **changes})


def test_a_dice_bomb_weapon_is_refused_at_save(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """issue 12 item 2: ``1000000d1000000`` fails bench's dice limit (at most 1,000 dice)."""
    eid = ids["encounter"]
    before = _count(db_url, eid)
    r = _save(alice, eid, weapons="club: 2d6\nbomb: 1000000d1000000")
    text = html.unescape(r.text)
    assert r.status_code == 400 and "Combatant saved." not in text
    assert "Weapon bomb: its damage cannot be rolled ('1000000d1000000' rolls more than 1000 dice" in text
    r = _save(alice, eid, weapons="club: 1d6+mgt")
    assert r.status_code == 400 and "'mgt' in '1d6+mgt' is not a stat on this sheet" in html.unescape(r.text)
    assert _count(db_url, eid) == before


def test_a_dice_bomb_weapon_is_refused_in_the_narrators_language(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """The dice's own reason is said in the panel's language too (it stayed English inside
    the Portuguese sentence), by its code: dice.too_many from the reply catalogs."""
    with session_scope(make_engine(db_url)) as s:
        s.execute(update(Narrator).where(Narrator.username == "alice").values(language="pt"))
    r = _save(alice, ids["encounter"], weapons="bomb: 1000000d1000000")
    assert r.status_code == 400
    assert ("Arma bomb: o dano não pode ser rolado ('1000000d1000000' rola mais de 1000 dados; "
            "ninguém tem tantos).") in html.unescape(r.text)


def test_a_weapons_line_without_a_colon_is_refused(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """issue 12 item 2: ``name: dice`` or a sentence saying so (it was saved as 1d4)."""
    eid = ids["encounter"]
    before = _count(db_url, eid)
    r = _save(alice, eid, weapons="club: 2d6\ngreat axe 1d12")
    assert r.status_code == 400
    assert "Weapon line 2 (great axe 1d12): write name: dice, like sword: 1d8." in html.unescape(r.text)
    assert _count(db_url, eid) == before


def test_hp_over_max_needs_the_narrators_confirmation(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """issue 12 item 2: HP 99999 of 12 is refused unless the narrator ticks the box."""
    eid = ids["encounter"]
    before = _count(db_url, eid)
    r = _save(alice, eid, hp=99999)
    assert r.status_code == 400
    assert 'HP 99999 is more than max HP 12: tick "HP above max HP is intended" to save it.' in html.unescape(r.text)
    r = _save(alice, eid, hp=-5)
    assert r.status_code == 400 and "HP must be 0 or more." in r.text
    assert _count(db_url, eid) == before
    r = _save(alice, eid, hp=15, hp_over_max="y")                 # confirmed: temporary HP
    assert r.status_code == 303
    with session_scope(make_engine(db_url)) as s:
        ogre = s.scalars(select(Combatant).where(Combatant.encounter_id == eid, Combatant.key == "ogre")).one()
        assert (ogre.hp, ogre.max_hp) == (15, 12)


def test_hp_override_above_max_is_refused(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """issue 12 item 2: the HP override says where an over-max HP is confirmed."""
    cid = ids["combatants"]["goblin-1"]
    with session_scope(make_engine(db_url)) as s:
        hp, max_hp = s.get(Combatant, cid).hp, s.get(Combatant, cid).max_hp
    r = alice.post(f"/encounters/{ids['encounter']}/override/hp",
                   {"combatant_id": cid, "hp": 99999, "reason": "typo"})
    page = html.unescape(alice.get(r.headers["Location"]).text)
    assert f"HP 99999 is more than Goblin 1's max HP {max_hp}" in page
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Combatant, cid).hp == hp


def test_an_unknown_condition_is_refused(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """issue 12 item 2: a condition is stored under the ruleset's name or not at all."""
    cid = ids["combatants"]["brom"]
    with session_scope(make_engine(db_url)) as s:
        before = list(s.get(Combatant, cid).conditions)
    r = alice.post(f"/encounters/{ids['encounter']}/override/condition",
                   {"combatant_id": cid, "name": "flibbertigibbet", "reason": "whim"})
    page = html.unescape(alice.get(r.headers["Location"]).text)
    assert "Not changed:" in page and "unknown condition 'flibbertigibbet'" in page
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Combatant, cid).conditions == before


def _upload(alice: Any, eid: int, name: str, data: bytes) -> Any:
    return alice.post(f"/encounters/{eid}/combatants/import",
                      {"import-file": (io.BytesIO(data), name)}, content_type="multipart/form-data")


def test_bad_csv_and_yaml_values_are_refused(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """issue 12 item 2: max_hp -3, count 0, a weapons cell without a colon, a dice bomb
    and HP over max each refuse the whole file, naming the line and the field."""
    eid = ids["encounter"]
    before = _count(db_url, eid)
    cases = {
        b"key,name,hp,max_hp\ngob,Goblin,5,-3\n": "g.csv line 2: max_hp must be 1..100000, not -3",
        b"key,name,hp,count\ngob,Goblin,5,0\n": "g.csv line 2: count must be 1..500, not 0",
        b"key,name,weapons\ngob,Goblin,spear 1d8\n": "weapon line 1 ('spear 1d8') must read name: dice",
        b"key,name,weapons\ngob,Goblin,bomb:1000000d1000000\n": "weapon 'bomb': '1000000d1000000' rolls more than 1000 dice",
        b"key,name,hp,max_hp\ngob,Goblin,99999,12\n": "hp 99999 is more than max_hp 12",
    }
    for data, sentence in cases.items():
        r = _upload(alice, eid, "g.csv", data)
        assert r.status_code == 400 and sentence in html.unescape(r.text), (data, sentence)
    r = _upload(alice, eid, "g.yaml", b"- key: gob\n  name: Goblin\n  max_hp: 0\n")
    assert r.status_code == 400 and "g.yaml item 1: max_hp must be 1..100000, not 0" in html.unescape(r.text)
    assert _count(db_url, eid) == before
