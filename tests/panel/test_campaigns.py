"""Dashboard, campaign settings, sources, co-narrators, encounters, combatant sheets and import."""

from __future__ import annotations

import io
from typing import Any

from sqlalchemy import select

from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Campaign, Combatant, Encounter, Thread


def test_dashboard_lists_campaigns_threads_rounds_and_missing(alice: Any, ids: dict[str, Any]) -> None:
    html = alice.get("/").text
    assert "The Sunken Keep" in html and "Bob&#39;s Game" not in html
    assert "HTTP 503 from the forum (retrying)" in html      # the watched thread's error
    assert "Gate fight" in html and "Cato" in html           # cato has not posted in round 2
    assert "approval mode" in html
    assert f'href="/encounters/{ids["encounter"]}?round=1"' in html  # round 1's reply is held


def test_create_campaign_and_edit_settings(alice: Any, db_url: str) -> None:
    assert alice.get("/campaigns/new").status_code == 200
    r = alice.post("/campaigns/new", {"name": "Ruínas de Prata", "ruleset": "beyonders", "language": "pt",
                                      "timezone": "America/Sao_Paulo", "houserules": ""})
    assert r.status_code == 302
    url = r.headers["Location"]
    html = alice.get(url).text
    assert "Ruínas de Prata" in html
    r = alice.post(url, {"name": "Ruínas de Prata", "ruleset": "beyonders", "language": "ru",
                         "timezone": "Europe/Moscow", "houserules": "", "approval_mode": "y"})
    assert r.status_code == 302
    with session_scope(make_engine(db_url)) as s:
        c = s.scalars(select(Campaign).where(Campaign.slug == "ruinas-de-prata")).one()
        assert (c.language, c.timezone, c.approval_mode) == ("ru", "Europe/Moscow", True)
        actions = list(s.scalars(select(AuditEntry.action).where(AuditEntry.campaign_id == c.id)))
    assert actions == ["campaign.create", "campaign.settings"]


def test_campaign_form_errors(alice: Any, ids: dict[str, Any]) -> None:
    url = f"/campaigns/{ids['campaign']}"
    r = alice.post(url, {"name": "X", "ruleset": "forum-d20", "language": "en", "timezone": "Mars/Olympus"})
    assert r.status_code == 400 and "Unknown time zone." in r.text
    r = alice.post(url, {"name": "X", "ruleset": "forum-d20", "language": "en", "timezone": "UTC",
                         "houserules": "not = [valid"})
    assert r.status_code == 400 and "Not valid TOML" in r.text
    r = alice.post(url, {"name": "X", "ruleset": "chess", "language": "en", "timezone": "UTC"})
    assert r.status_code == 400
    r = alice.post(url, {"name": "X", "ruleset": "forum-d20", "language": "en", "timezone": "UTC"}, csrf=False)
    assert r.status_code == 400


def test_houserules_round_trip(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/campaigns/{ids['campaign']}"
    r = alice.post(url, {"name": "The Sunken Keep", "ruleset": "forum-d20", "language": "en",
                         "timezone": "Europe/Lisbon", "houserules": "[rounds]\nspeech_limit = 3\n"})
    with session_scope(make_engine(db_url)) as s:
        houserules = s.get(Campaign, ids["campaign"]).houserules
    if r.status_code == 302:
        assert houserules == {"rounds": {"speech_limit": 3}}
        assert "speech_limit = 3" in alice.get(url).text
    else:  # the ruleset refused a key it does not know: the form says why
        assert r.status_code == 400 and "speech_limit" in r.text


def test_add_sources(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/campaigns/{ids['campaign']}/threads"
    r = alice.post(url, {"thread-kind": "reddit", "thread-url": "https://www.reddit.com/r/pbp/comments/abc123/fight/"})
    assert r.status_code == 302
    r = alice.post(url, {"thread-kind": "reddit", "thread-url": "https://www.reddit.com/r/pbp/"})
    assert r.status_code == 400 and "/comments/" in r.text
    r = alice.post(url, {"thread-kind": "forum", "thread-url": "not a url"})
    assert r.status_code == 400
    r = alice.post(url, {"thread-kind": "forum", "thread-url": "http://127.0.0.1:9/viewtopic.php?t=1"})
    assert r.status_code == 400 and "already watched" in r.text
    with session_scope(make_engine(db_url)) as s:
        kinds = [t.platform for t in s.scalars(select(Thread).where(Thread.campaign_id == ids["campaign"]))]
    assert kinds == ["bbcode", "markdown"]


def test_new_encounter_and_sheets(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    r = alice.post(f"/campaigns/{ids['campaign']}/encounters", {"thread_id": ids["thread"], "name": "Bridge"})
    assert r.status_code == 302
    sheets = r.headers["Location"]
    assert alice.get(sheets).status_code == 200
    with session_scope(make_engine(db_url)) as s:
        enc = s.scalars(select(Encounter).where(Encounter.name == "Bridge")).one()
        eid = enc.id
    r = alice.post(f"/encounters/{eid}/combatants/new", {
        "key": "ogre", "name": "Ogre", "side": "monsters", "hp": 30, "max_hp": 30,
        "stats": "Força = 5\nЛовкость = -1", "weapons": "club: 2d6+5"})
    assert r.status_code == 303
    with session_scope(make_engine(db_url)) as s:
        ogre = s.scalars(select(Combatant).where(Combatant.encounter_id == eid)).one()
        assert ogre.sheet["stats"] == {"str": 5, "dex": -1}
        assert ogre.sheet["weapons"] == [{"name": "club", "damage": "2d6+5"}]
        oid = ogre.id
    page = alice.get(f"/encounters/{eid}/combatants/{oid}")
    assert page.status_code == 200 and "str = 5" in page.text
    r = alice.post(f"/encounters/{eid}/combatants/{oid}", {
        "key": "ogre", "name": "Big Ogre", "side": "monsters", "hp": 25, "max_hp": 30, "stats": "str = 6"})
    assert r.status_code == 303
    r = alice.post(f"/encounters/{eid}/combatants/{oid}", {
        "key": "ogre", "name": "Big Ogre", "side": "monsters", "hp": 25, "max_hp": 30, "stats": "str: six"})
    assert r.status_code == 400 and "name = number" in r.text
    r = alice.post(f"/encounters/{eid}/combatants/new", {
        "key": "ogre", "name": "Twin", "side": "monsters", "hp": 1, "max_hp": 1})
    assert r.status_code == 400 and "Another combatant has this key." in r.text


def _upload(client: Any, eid: int, name: str, data: bytes, **kw: Any) -> Any:
    return client.post(f"/encounters/{eid}/combatants/import",
                       {"import-file": (io.BytesIO(data), name)}, content_type="multipart/form-data", **kw)


def test_import_fifty_goblins_from_csv_and_yaml(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    eid = ids["encounter"]
    r = _upload(alice, eid, "goblins.csv", b"key,name,hp,count,str,dex,weapons\nhob,Hobgoblin,7,50,1,2,spear:1d8|bow:1d6\n")
    assert r.status_code == 303
    r = _upload(alice, eid, "boss.yaml", b"- key: chief\n  name: Chief\n  hp: 30\n  stats: {str: 4}\n"
                                          b"  weapons: [{name: axe, damage: 1d12+4}]\n")
    assert r.status_code == 303
    with session_scope(make_engine(db_url)) as s:
        rows = list(s.scalars(select(Combatant).where(Combatant.encounter_id == eid, Combatant.key.like("hob-%"))))
        assert len(rows) == 50 and rows[0].sheet["weapons"][1] == {"name": "bow", "damage": "1d6"}
        assert s.scalars(select(Combatant).where(Combatant.key == "chief")).one().sheet["stats"] == {"str": 4}
    r = _upload(alice, eid, "again.csv", b"key,name\nchief,Chief\n")
    assert r.status_code == 400 and "already in this encounter" in r.text
    r = _upload(alice, eid, "bad.csv", b"key,name,hp\nx,X,lots\n")
    assert r.status_code == 400 and "line 2" in r.text
    r = _upload(alice, eid, "bad.txt", b"whatever")
    assert r.status_code == 400
    r = _upload(alice, eid, "g.csv", b"key,name\nz,Z\n", )
    assert r.status_code == 303
    r = alice.c.post(f"/encounters/{eid}/combatants/import", data={"import-file": (io.BytesIO(b"key,name\ny,Y\n"), "y.csv")},
                     content_type="multipart/form-data")
    assert r.status_code == 400  # no CSRF token


def test_language_switch(alice: Any, db_url: str, ids: dict[str, Any]) -> None:
    r = alice.post("/language", {"language": "pt", "next": "/"})
    assert r.status_code == 302
    html = alice.get("/").text
    assert "Painel do narrador" in html and 'lang="pt"' in html
    alice.post("/language", {"language": "ru", "next": "/"})
    html = alice.get(f"/encounters/{ids['encounter']}").text
    assert "Панель ведущего" in html and "Журнал изменений" in html
    alice.post("/language", {"language": "en"})
    assert "Narrator panel" in alice.get("/").text


def test_login_page_language_from_browser(client: Any) -> None:
    html = client.get("/login", headers={"Accept-Language": "ru-RU,ru;q=0.9"}).text
    assert 'lang="ru"' in html and "Войти" in html
