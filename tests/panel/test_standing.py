"""STALL-1 / STALL-2 in the panel: the encounter page shows who is away until when and
each character's default and conditional orders; the narrator sets and ends them (the
audit log says who did), and a default that spends a limited resource is refused in
words."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Combatant
from pbp.store.standing import Absence, StandingOrder
from tests.panel.conftest import Client


def _rows(db_url: str, model: Any) -> list[Any]:
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            rows = list(s.scalars(select(model).order_by(model.id)))
            for r in rows:
                s.expunge(r)
            return rows
    finally:
        engine.dispose()


def _audit(db_url: str) -> list[tuple[str, str, str | None]]:
    return [(a.action, a.actor, a.entity_id) for a in _rows(db_url, AuditEntry)
            if a.action.startswith(("absence.", "standing."))]


def test_stall1_narrator_marks_a_player_away_and_ends_it(alice: Client, ids: dict[str, Any],
                                                         db_url: str) -> None:
    """STALL-1: "the narrator sets/ends it in the panel (from, until, note; audited)"."""
    eid = ids["encounter"]
    page = alice.get(f"/encounters/{eid}")
    assert page.status_code == 200
    assert "Absences and standing orders" in page.text
    assert "Nobody has announced an absence." in page.text
    r = alice.post(f"/encounters/{eid}/standing/absence",
                   {"player": "aria_p", "starts": "2026-12-01T10:00", "until": "2099-12-10T00:00",
                    "note": "travelling"})
    assert r.status_code == 302 and r.headers["Location"].endswith("#standing")
    [absence] = _rows(db_url, Absence)
    # Europe/Lisbon is UTC+0 in December: the times the narrator typed, in UTC
    assert (absence.player, absence.source, absence.note) == ("aria_p", "panel", "travelling")
    assert absence.until.isoformat() == "2099-12-10T00:00:00+00:00"
    page = alice.get(f"/encounters/{eid}")
    assert "away now" in page.text and "2099-12-10 00:00" in page.text and "travelling" in page.text
    assert ("absence.set", "alice", "aria_p") in _audit(db_url)
    r = alice.post(f"/encounters/{eid}/standing/absence/end", {"absence_id": absence.id})
    assert r.status_code == 302
    [absence] = _rows(db_url, Absence)
    assert absence.ended_by == "narrator" and absence.ended_at is not None
    assert ("absence.end", "alice", "aria_p") in _audit(db_url)
    assert "ended by a narrator" in alice.get(f"/encounters/{eid}").text


def test_stall1_panel_refuses_a_stranger_and_a_backwards_absence(alice: Client, ids: dict[str, Any],
                                                                 db_url: str) -> None:
    eid = ids["encounter"]
    alice.get(f"/encounters/{eid}")
    alice.post(f"/encounters/{eid}/standing/absence",
               {"player": "nobody", "until": "2099-12-10T00:00"})
    page = alice.get(f"/encounters/{eid}")
    assert "Not changed: &#39;nobody&#39; plays no combatant in this encounter" in page.text
    alice.post(f"/encounters/{eid}/standing/absence",
               {"player": "aria_p", "starts": "2099-12-10T00:00", "until": "2099-12-09T00:00"})
    assert "an absence must end after it begins" in alice.get(f"/encounters/{eid}").text
    assert _rows(db_url, Absence) == []


def test_stall2_narrator_sets_default_and_conditional_orders_and_a_spell_is_refused(
        alice: Client, ids: dict[str, Any], db_url: str) -> None:
    """STALL-2: defaults and conditionals settable by the narrator, shown per character;
    "a default never spends a limited resource ... refuse such a default when set"."""
    eid = ids["encounter"]
    aria = ids["combatants"]["aria"]
    alice.get(f"/encounters/{eid}")
    alice.post(f"/encounters/{eid}/standing/order",
               {"combatant_id": aria, "kind": "default", "text": "defend"})
    alice.post(f"/encounters/{eid}/standing/order",
               {"combatant_id": aria, "kind": "if", "text": "Goblin 1 attacks me, I attack it"})
    alice.post(f"/encounters/{eid}/standing/order",
               {"combatant_id": aria, "kind": "default", "text": "cast fireball at Goblin 1"})
    page = alice.get(f"/encounters/{eid}")
    assert "Not changed: a default may not spend a limited resource (spell)" in page.text
    orders = [(o.kind, o.text, o.state) for o in _rows(db_url, StandingOrder)]
    # the refused default was rolled back with the request: only the two accepted remain
    assert orders == [("default", "defend", "active"),
                      ("if", "Goblin 1 attacks me, I attack it", "active")]
    row = page.text[page.text.index('id="orders-aria"'):]
    row = row[:row.index("</tr>")]
    assert "defend" in row and "Goblin 1 attacks me, I attack it" in row
    audit = _audit(db_url)
    assert ("standing.default", "alice", "aria") in audit and ("standing.if", "alice", "aria") in audit
    default = next(o for o in _rows(db_url, StandingOrder) if o.kind == "default")
    alice.post(f"/encounters/{eid}/standing/order/cancel", {"combatant_id": aria, "order_id": default.id})
    assert [o.state for o in _rows(db_url, StandingOrder)] == ["cancelled", "active"]
    assert ("standing.cancel", "alice", "aria") in _audit(db_url)


def test_stall2_panel_routes_need_the_narrators_encounter(alice: Client, ids: dict[str, Any]) -> None:
    other = ids["other_encounter"]
    alice.get(f"/encounters/{ids['encounter']}")
    r = alice.post(f"/encounters/{other}/standing/order",
                   {"combatant_id": ids["other_combatant"], "kind": "default", "text": "defend"})
    assert r.status_code == 404
    r = alice.post(f"/encounters/{ids['encounter']}/standing/order",
                   {"combatant_id": ids["other_combatant"], "kind": "default", "text": "defend"})
    assert r.status_code == 404


def test_stall2_sheet_default_action_in_the_combatant_form(alice: Client, ids: dict[str, Any],
                                                           db_url: str) -> None:
    """STALL-2: the sheet field ``default_action`` set in the panel, read like ``.default``;
    a spell is refused on its field, in words; an empty field removes it."""
    eid, aria = ids["encounter"], ids["combatants"]["aria"]
    base = {"key": "aria", "name": "Aria", "side": "players", "player": "aria_p", "hp": 20,
            "max_hp": 20, "stats": "str = 3", "weapons": "longsword: 1d8+3"}
    alice.get(f"/encounters/{eid}/combatants/{aria}")
    r = alice.post(f"/encounters/{eid}/combatants/{aria}", {**base, "default_action": "cast fireball"})
    assert r.status_code == 400 and "A default may not spend a limited resource (a spell)." in r.text
    r = alice.post(f"/encounters/{eid}/combatants/{aria}", {**base, "default_action": "defend"})
    assert r.status_code == 303
    page = alice.get(f"/encounters/{eid}/combatants/{aria}")
    assert 'value="defend"' in page.text
    row = alice.get(f"/encounters/{eid}").text
    row = row[row.index('id="orders-aria"'):]
    assert "defend" in row[:row.index("</tr>")] and "(sheet)" in row[:row.index("</tr>")]
    r = alice.post(f"/encounters/{eid}/combatants/{aria}", {**base, "default_action": ""})
    assert r.status_code == 303
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        assert "default_action" not in s.get(Combatant, aria).sheet
    engine.dispose()
