"""DICE-3 (the roll ledger page and its CSV/JSON exports, the encounter page's flags) and
DICE-5 (the override form and the campaign's "keep the value private" checkbox), through
the panel's routes on the sample fight, with posts the round service reads."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select, text

from pbp.rounds import service
from pbp.sources.base import PostRecord
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Campaign, Post, RollRecord, Round

from .conftest import Client


def _post(pid: str, author: str, at: datetime, body: str, change: str = "new") -> PostRecord:
    return PostRecord(platform_id=pid, author=author, posted_at=at, body=body, text=body, fmt="bbcode",
                      change=change)  # type: ignore[arg-type]


def play_fishing_and_tamper(db_url: str, ids: dict[str, Any]) -> dict[str, Any]:
    """In the open round 2: cato_p posts an attack, deletes it and posts it again with another
    roll (re-posted after roll + fishing); dara's player posts twice the same tag, the first
    deleted (given back). Then someone with database access changes round 1's first roll."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        rnd = s.get(Round, ids["round"])
        t = rnd.opens_at + timedelta(minutes=40)
        now = datetime.now(UTC)
        attack = "I attack Goblin 1 with my longsword [roll]1d20+6[/roll]"
        service.ingest_posts(s, ids["thread"], [_post("p301", "cato_p", t, attack)], now=now)
        service.ingest_posts(s, ids["thread"], [_post("p301", "cato_p", t, "", "deleted")], now=now)
        service.ingest_posts(s, ids["thread"], [_post("p302", "cato_p", t + timedelta(minutes=1),
                                                      "I attack Goblin 1 with my longsword [roll]1d20+9[/roll]")],
                             now=now)
        first = s.scalar(select(RollRecord).where(RollRecord.round_id == ids["round1"],
                                                  RollRecord.kind == "tag").order_by(RollRecord.roll_index))
        cato = {p.platform_id: p.id for p in s.scalars(select(Post).where(Post.author == "cato_p"))}
        out = {"tampered": (first.id, first.roll_index, first.total), "cato": cato}
    with engine.begin() as conn:
        conn.execute(text("DROP TRIGGER rolls_immutable"))
        conn.execute(text("UPDATE rolls SET total = total + 7 WHERE id = :i"), {"i": out["tampered"][0]})
    engine.dispose()
    return out


@pytest.fixture
def fished(db_url: str, ids: dict[str, Any]) -> dict[str, Any]:
    return play_fishing_and_tamper(db_url, ids)


def _rows(html: str, kind: str | None = None) -> list[str]:
    """The flags of each row of the ledger page (of *kind* rolls only, when given)."""
    rows = re.findall(r'data-kind="([a-z]+)" data-flags="([^"]*)"', html)
    return [flags for k, flags in rows if kind is None or k == kind]


def test_dice3_ledger_page_lists_every_roll_flagged_with_filters(alice: Client, ids: dict[str, Any],
                                                                 fished: dict[str, Any]) -> None:
    """DICE-3: the ledger lists round 1 and round 2 rolls, the deleted post's roll, the
    re-post flagged, the fishing, and round 1's altered roll as "does not match the seed"."""
    url = f"/encounters/{ids['encounter']}/ledger"
    r = alice.get(url)
    assert r.status_code == 200
    html = r.text
    for words in ("re-posted after roll", "several rolls for one action", "does not match the seed",
                  "post deleted", "p301", "p302", "cato_p"):
        assert words in html, words
    _id, _index, total = fished["tampered"]
    assert f"stored {total + 7}, the seed gives {total}" in html
    everyone = _rows(html)
    cato = _rows(alice.get(f"{url}?player=CATO_P&round=2").text, "tag")
    assert len(cato) == 2 and all("fishing" in f for f in cato)       # p301 and p302, both flagged
    assert any("reposted" in f for f in cato) and any("deleted" in f for f in cato)
    first = _rows(alice.get(f"{url}?round=1").text)
    assert 0 < len(first) < len(everyone) and any("tampered" in f for f in first)
    assert "No roll matches." in alice.get(f"{url}?round=9").text


def test_dice3_ledger_exports_csv_and_json_with_the_same_rows(alice: Client, ids: dict[str, Any],
                                                              fished: dict[str, Any]) -> None:
    """DICE-3 exports: the CSV and the JSON hold the same rolls the page shows, flags included."""
    base = f"/encounters/{ids['encounter']}/ledger"
    page = _rows(alice.get(base).text)
    r = alice.get(base + ".csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    assert "attachment" in r.headers["Content-Disposition"]
    table = list(csv.DictReader(io.StringIO(r.text)))
    assert len(table) == len(page)
    cato = [row for row in table if row["player"] == "cato_p" and row["post"] in ("p301", "p302")]
    assert len(cato) == 2
    assert all("fishing" in row["flags"].split() for row in cato)
    j = alice.get(base + ".json?player=cato_p")
    assert j.status_code == 200 and j.mimetype == "application/json"
    data = json.loads(j.text)
    assert data["player"] == "cato_p" and {x["player"] for x in data["rolls"]} == {"cato_p"}
    assert {tuple(x["flags"]) for x in data["rolls"]} >= {("fishing", "reposted")}
    tampered = next(row for row in table if "tampered" in row["flags"].split())
    assert int(tampered["total"]) == fished["tampered"][2] + 7
    assert int(tampered["seed_total"]) == fished["tampered"][2]


def test_dice3_ledger_and_exports_are_narrator_only(client: Client, ids: dict[str, Any]) -> None:
    """Only a narrator of the campaign sees the ledger: bob gets 404, a visitor the login."""
    for suffix in ("", ".csv", ".json"):
        url = f"/encounters/{ids['encounter']}/ledger{suffix}"
        assert client.get(url).status_code == 302
    client.login("bob")
    for suffix in ("", ".csv", ".json"):
        assert client.get(f"/encounters/{ids['encounter']}/ledger{suffix}").status_code == 404


def test_dice3_csv_export_defuses_spreadsheet_formulas(alice: Client, ids: dict[str, Any],
                                                       db_url: str) -> None:
    """A label a player wrote that starts like a formula is exported as text."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        rnd = s.get(Round, ids["round"])
        service.ingest_posts(s, ids["thread"], [_post(
            "p401", "cato_p", rnd.opens_at + timedelta(minutes=50),
            "I attack Goblin 1 with my longsword [roll=@SUM(A1)]1d20+6[/roll]")], now=datetime.now(UTC))
        label = s.scalar(select(RollRecord.label).where(RollRecord.label.like("%SUM%")))
    engine.dispose()
    table = alice.get(f"/encounters/{ids['encounter']}/ledger.csv?player=cato_p").text
    if label is not None:
        assert f",'{label}," in table or f"'{label}" in table
    assert ",@" not in table and ",=" not in table


def test_dice3_encounter_page_flags_the_rolls_and_links_the_ledger(alice: Client, ids: dict[str, Any],
                                                                  fished: dict[str, Any]) -> None:
    """DICE-3 on the encounter page: the round's fishing and re-post are flagged, with a link."""
    html = alice.get(f"/encounters/{ids['encounter']}").text
    assert f'href="/encounters/{ids["encounter"]}/ledger"' in html
    assert "Rolls to look at" in html
    assert "several rolls for one action" in html and "re-posted after roll" in html
    assert "post p302 by cato_p" in html


def test_dice5_the_override_form_and_the_private_checkbox_keep_the_fact(alice: Client, ids: dict[str, Any],
                                                                        db_url: str) -> None:
    """DICE-5: the campaign form's checkbox keeps the value out of the reply; the override
    form's roll is marked "the narrator set this roll" next to it; the ledger shows the value."""
    r = alice.post(f"/campaigns/{ids['campaign']}", {
        "name": "The Sunken Keep", "ruleset": "forum-d20", "language": "en", "timezone": "Europe/Lisbon",
        "houserules": "", "round_hours": "24", "reminder_hours": "2", "approval_mode": "y",
        "private_roll_values": "y"})
    assert r.status_code == 302, r.text
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        assert s.get(Campaign, ids["campaign"]).private_roll_values is True
        roll = s.get(RollRecord, ids["rolls"][1])
        breakdown, index = roll.breakdown, roll.roll_index
    alice.get(f"/encounters/{ids['encounter']}")
    r = alice.post(f"/encounters/{ids['encounter']}/override/roll",
                   {"roll_id": ids["rolls"][1], "total": 17, "reason": "the tag was a typo"})
    assert r.status_code == 303
    with session_scope(engine) as s:
        preview = service.preview_reply(s, ids["round"])
    engine.dispose()
    assert f"{breakdown} (the narrator set this roll; the value is private)" in preview
    assert re.search(rf"roll #{index} \([^)]+\): the narrator set this roll \(the value is private\)", preview)
    assert "set to 17" not in preview and "-> 17" not in preview
    ledger = alice.get(f"/encounters/{ids['encounter']}/ledger.json?round=2").get_json()
    row = next(x for x in ledger["rolls"] if x["roll_id"] == ids["rolls"][1])
    assert row["set_total"] == 17 and "narrator" in row["flags"]


def test_dice3_migration_0011_keeps_the_fight_and_fills_in_whose_post(db_url: str, ids: dict[str, Any]) -> None:
    """Migration 0011 on a played fight: down to 0010 and up again keeps every encounter and
    roll, and each tag roll gets its post's platform id and author back (DICE-3)."""
    from pbp.store.db import downgrade, upgrade
    from pbp.store.models import Encounter, RollPost

    def state() -> tuple[int, int, dict[int, tuple[str, str]]]:
        engine = make_engine(db_url)
        with session_scope(engine) as s:
            out = (len(list(s.scalars(select(Encounter.id)))), len(list(s.scalars(select(RollRecord.id)))),
                   {r.roll_id: (r.platform_id, r.author) for r in s.scalars(select(RollPost))})
        engine.dispose()
        return out

    encounters, rolls, kept = state()
    expected = {}
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        for r, p in s.execute(select(RollRecord, Post).join(Post, Post.id == RollRecord.post_id)):
            expected[r.id] = (p.platform_id, p.author)
    engine.dispose()
    assert kept == expected and expected            # made as the rolls were
    downgrade(db_url, "0010")
    upgrade(db_url)
    assert state() == (encounters, rolls, expected)
