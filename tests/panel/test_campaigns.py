"""Dashboard, campaign settings, sources, co-narrators, encounters, combatant sheets and import."""

from __future__ import annotations

import html
import io
import re
from typing import Any

import pytest
from sqlalchemy import select

from pbp.rounds import service
from pbp.rounds.policy import policy_for
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
    assert r.status_code == 302, r.text   # docs/rounds.md: [rounds] belongs to the rounds layer
    with session_scope(make_engine(db_url)) as s:
        houserules = s.get(Campaign, ids["campaign"]).houserules
    assert houserules == {"rounds": {"speech_limit": 3}}
    assert "speech_limit = 3" in alice.get(url).text


SETTINGS = {"name": "The Sunken Keep", "ruleset": "forum-d20", "language": "en", "timezone": "Europe/Lisbon",
            "houserules": "", "round_hours": "24", "reminder_hours": "2"}


def _timing(db_url: str, cid: int) -> tuple[Any, ...]:
    with session_scope(make_engine(db_url)) as s:
        c = s.get(Campaign, cid)
        return (c.round_hours, list(c.reminder_hours), c.early_close, c.timezone, c.houserules)


def test_round_settings_saved_and_shown(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/campaigns/{ids['campaign']}"
    r = alice.post(url, {**SETTINGS, "round_hours": "1,5", "reminder_hours": "0.5; 1 1",
                         "early_close": "y", "timezone": "America/Sao_Paulo"})
    assert r.status_code == 302, r.text
    assert _timing(db_url, ids["campaign"]) == (1.5, [1.0, 0.5], True, "America/Sao_Paulo", {})
    html = alice.get(url).text
    assert 'name="round_hours" type="text" value="1.5"' in html and 'value="1, 0.5"' in html
    assert re.search(r'id="early_close" name="early_close" type="checkbox" value="y" checked|checked[^>]*id="early_close"', html)
    r = alice.post(url, {**SETTINGS, "reminder_hours": ""})       # empty: no reminder
    assert r.status_code == 302 and _timing(db_url, ids["campaign"])[:3] == (24.0, [], False)


@pytest.mark.parametrize("field,value,words", [
    ("round_hours", "-3", "Round length must be more than 0 hours."),
    ("round_hours", "0", "Round length must be more than 0 hours."),
    ("round_hours", "", "Round length: a number of hours"),
    ("round_hours", "a day", "Round length: a number of hours"),
    ("round_hours", "nan", "Round length: a number of hours"),
    ("round_hours", "inf", "Round length: a number of hours"),
    ("round_hours", "1e400", "Round length: a number of hours"),
    ("round_hours", "100000", "Round length can be at most 2160 hours"),
    ("round_hours", "<script>alert(1)</script>", "Round length: a number of hours"),
    ("reminder_hours", "30", "would come before the round opens: rounds last 24 hours"),
    ("reminder_hours", "24", "would come before the round opens"),
    ("reminder_hours", "2, -1", "must be more than 0 (not -1)"),
    ("reminder_hours", "0", "must be more than 0 (not 0)"),
    ("reminder_hours", "2h, 1h", "Reminders: hours before the deadline separated by commas"),
    ("reminder_hours", ",".join(["1"] * 11 + ["2"] * 0) + ",1.5,1.25,1.75,2,3,4,5,6,7,8", "Reminders: at most 10."),
    ("timezone", "Mars/Olympus", "Unknown time zone. Use a name like Europe/Lisbon"),
    ("timezone", "../../etc/passwd", "Unknown time zone."),
])
def test_round_settings_nonsense_refused_in_words(alice: Any, ids: dict[str, Any], db_url: str,
                                                  field: str, value: str, words: str) -> None:
    before = _timing(db_url, ids["campaign"])
    r = alice.post(f"/campaigns/{ids['campaign']}", {**SETTINGS, "early_close": "y", field: value})
    assert r.status_code == 400
    assert words in r.text
    assert re.search(rf'id="{field}-err"', r.text)               # the sentence is under that field
    assert "<script>alert" not in r.text and "Traceback" not in r.text
    assert _timing(db_url, ids["campaign"]) == before


def test_houserules_rounds_table_as_documented_is_accepted_and_applied(alice: Any, ids: dict[str, Any],
                                                                      db_url: str) -> None:
    """docs/rounds.md: houserules.rounds carries speech_overflow, speech_limit, early_close,
    round_hours, reminder_hours; play uses them over the campaign's own fields."""
    table = ('[rounds]\nround_hours = 12\nreminder_hours = [20, 6]\nearly_close = true\n'
             'speech_overflow = "warn"\nspeech_limit = 2\n')
    url = f"/campaigns/{ids['campaign']}"
    r = alice.post(url, {**SETTINGS, "houserules": table, "round_hours": "12", "reminder_hours": "20, 6",
                         "early_close": "y"})
    assert r.status_code == 400 and "would come before the round opens: rounds last 12 hours" in r.text
    table = table.replace("[20, 6]", "[10, 6]")
    r = alice.post(url, {**SETTINGS, "houserules": table, "round_hours": "12", "reminder_hours": "10, 6",
                         "early_close": "y"})
    assert r.status_code == 302, r.text
    html = alice.get(url).text
    assert 'value="12"' in html and 'value="10, 6"' in html and "speech_overflow = &#34;warn&#34;" in html
    with session_scope(make_engine(db_url)) as s:
        camp = s.get(Campaign, ids["campaign"])
        policy = policy_for(camp, s.get(Encounter, ids["encounter"]))
        assert (policy.round_hours, policy.reminder_hours, policy.early_close) == (12.0, (10.0, 6.0), True)
        assert (policy.speech_overflow, policy.speech_limit) == ("warn", 2)
        # the round open since ~6 h with a 24 h deadline: 10 h before it has not come, so
        # no reminder; with [rounds] reminder_hours = [20] it has (the campaign column says 10, 6)
        rnd = service.current_round(s, ids["encounter"])
        now = rnd.opens_at + (rnd.deadline - rnd.opens_at) / 4
        assert rnd.id not in service.due_reminders(s, now)
        camp.houserules = {"rounds": {"reminder_hours": [20]}}
        assert rnd.id in service.due_reminders(s, now)
        s.rollback()


@pytest.mark.parametrize("table,words", [
    ("[rounds]\nround_hours = -1", "[rounds] round_hours: Round length must be more than 0 hours."),
    ('[rounds]\nround_hours = "12"', "[rounds] round_hours: a number of hours"),
    ("[rounds]\nreminder_hours = [30]", "[rounds] reminder_hours: A reminder 30 hours"),
    ("[rounds]\nreminder_hours = 2", "[rounds] reminder_hours: a list of hours, like [12, 2]."),
    ('[rounds]\nearly_close = "yes"', "[rounds] early_close: true or false."),
    ('[rounds]\nspeech_overflow = "shout"', "[rounds] speech_overflow: one of drop, warn."),
    ("[rounds]\nspeech_limit = -2", "[rounds] speech_limit: a whole number"),
    ("[rounds]\ncolour = 1", "[rounds] colour is not a round setting"),
    ("rounds = 5", "[rounds] must be a table of settings."),
    ("[rounds]\nround_hours = 12", "House rules [rounds] set round_hours = 12, which is what play uses"),
    ("[rounds]\nearly_close = true", "House rules [rounds] set early_close = true"),
])
def test_houserules_rounds_nonsense_refused_in_words(alice: Any, ids: dict[str, Any], db_url: str,
                                                     table: str, words: str) -> None:
    before = _timing(db_url, ids["campaign"])
    r = alice.post(f"/campaigns/{ids['campaign']}", {**SETTINGS, "houserules": table})
    assert r.status_code == 400
    assert html.unescape(words) in html.unescape(r.text)
    assert "Traceback" not in r.text
    assert _timing(db_url, ids["campaign"]) == before


def test_new_campaign_takes_round_settings(alice: Any, db_url: str) -> None:
    r = alice.post("/campaigns/new", {**SETTINGS, "name": "Slow Game", "round_hours": "72",
                                      "reminder_hours": "24, 4"})
    assert r.status_code == 302
    with session_scope(make_engine(db_url)) as s:
        c = s.scalars(select(Campaign).where(Campaign.slug == "slow-game")).one()
        assert (c.round_hours, c.reminder_hours, c.early_close) == (72.0, [24.0, 4.0], False)
    r = alice.post("/campaigns/new", {**SETTINGS, "name": "Broken", "round_hours": "-1"})
    assert r.status_code == 400 and "Round length must be more than 0 hours." in r.text
    with session_scope(make_engine(db_url)) as s:
        assert s.scalars(select(Campaign).where(Campaign.name == "Broken")).first() is None


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


def test_a_new_campaigns_reply_language_starts_as_the_narrators(alice: Any) -> None:
    """Walked: a Portuguese narrator's new campaign had its replies' language set to
    English until changed. It starts as the narrator's panel language; a campaign
    already made keeps its own."""
    def chosen(page: str) -> str | None:
        found = re.search(r'<select[^>]*id="language"[^>]*>(.*?)</select>', page, re.S)
        assert found is not None
        picked = re.search(r'<option[^>]*selected[^>]*value="(\w+)"|<option[^>]*value="(\w+)"[^>]*selected',
                           found.group(1))
        return None if picked is None else (picked.group(1) or picked.group(2))

    for lang in ("pt", "ru", "en"):
        alice.post("/language", {"language": lang, "next": "/"})
        assert chosen(alice.get("/campaigns/new").text) == lang
    alice.post("/language", {"language": "pt", "next": "/"})
    r = alice.post("/campaigns/new", {"name": "Frost Road", "ruleset": "beyonders", "language": "ru",
                                      "timezone": "UTC", "houserules": ""})
    assert r.status_code == 302
    assert chosen(alice.get(r.headers["Location"]).text) == "ru"
    alice.post("/language", {"language": "en"})
