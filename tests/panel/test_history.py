"""Issue 11 item 10, route tests: a past round shows the combatants, HP and conditions as
they were at that round; an encounter's audit log is its own, and in words (pt/ru/en).

The sample (pbp.panel.sample): round 1 resolved (heroes Aria, Brom, Cato at 20/20 and
goblins at 6/6 when it began, the three heroes posted), round 2 open.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

import pytest
from flask_babel import force_locale
from sqlalchemy import select

from pbp.panel import audit_words
from pbp.store import queries
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Campaign, Combatant, Encounter, Round


def _page(client: Any, ids: dict[str, Any], number: int | None = None) -> str:
    r = client.get(f"/encounters/{ids['encounter']}" + (f"?round={number}" if number else ""))
    assert r.status_code == 200
    return r.text


def _section(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def _combatants(html: str) -> str:
    return _section(html, 'id="h-combatants"', "</table>")


def _audit(html: str) -> str:
    return _section(html, 'id="h-audit"', "</ol>")


def _add_zed(alice: Any, ids: dict[str, Any]) -> None:
    r = alice.post(f"/encounters/{ids['encounter']}/combatants/new", {
        "key": "zed", "name": "Zed", "side": "players", "player": "zed_p", "hp": 15, "max_hp": 15})
    assert r.status_code == 303, r.text


def test_a_combatant_added_later_is_not_in_round_1_and_hp_is_as_it_was(alice: Any, ids: dict[str, Any],
                                                                        db_url: str) -> None:
    """Issue 11 item 10: Zed joins in round 2 and Brom's HP is set to 7 then; round 1 shows
    neither (no Zed, nobody missing: the three heroes of round 1 all posted, Brom at 20/20
    when it began), round 2 shows both."""
    _add_zed(alice, ids)
    r = alice.post(f"/encounters/{ids['encounter']}/override/hp",
                   {"combatant_id": ids["combatants"]["brom"], "hp": 7, "reason": "shaman's curse"})
    assert r.status_code == 303
    now = _page(alice, ids)
    assert "Zed" in _combatants(now) and 'id="combatant-zed"' in now
    assert re.search(r'id="combatant-brom".*?7/20', now, re.DOTALL)
    assert re.search(r'badge bad">Zed<', now)             # round 2: Zed has not posted yet

    past = _page(alice, ids, 1)
    table = _combatants(past)
    assert "Zed" not in table and "zed" not in table
    assert 'id="history-note"' in past and "Round 1 as it was" in past
    brom = _section(past, 'id="past-brom"', "</tr>")
    assert 'class="hp-before">20/20<' in brom              # the roster's HP when round 1 began
    with session_scope(make_engine(db_url)) as s:
        rnd = s.get(Round, ids["round1"])
        after = {c["key"]: c for c in rnd.state_after["combatants"]}
        keys = {c["key"] for c in rnd.state_before["combatants"]}
    assert f'class="hp-after">{after["brom"]["hp"]}/20<' in brom   # and as its resolution left it
    for goblin in ("goblin-1", "goblin-2", "goblin-3"):
        assert 'class="hp-before">6/6<' in _section(past, f'id="past-{goblin}"', "</tr>")
    assert {k for k in re.findall(r'id="past-([\w-]+)"', past)} == keys
    missing = _section(past, "Missing", "</p>")
    assert "Zed" not in missing and "nobody" in missing
    assert 'id="hp-' not in table                          # no override forms on a past round


def test_a_round_without_snapshot_falls_back_and_says_so(alice: Any, ids: dict[str, Any],
                                                          db_url: str) -> None:
    """Issue 11 item 10: a round resolved before snapshots were kept (none stored) still
    opens, and says its combatants are shown as they are now."""
    with session_scope(make_engine(db_url)) as s:
        rnd = s.get(Round, ids["round1"])
        rnd.state_before = None
        rnd.state_after = None
    past = _page(alice, ids, 1)
    assert "No record of round 1" in past
    assert 'id="past-aria"' in past and 'class="hp-before">20/20<' in past


def test_a_cancelled_round_starts_where_the_previous_result_left_it(alice: Any, ids: dict[str, Any],
                                                                     db_url: str) -> None:
    """Issue 11 item 10: round 2, closed without a result (the encounter ended) and then a
    round 3 opened in the store, shows round 1's result as its start and no "after"."""
    with session_scope(make_engine(db_url)) as s:
        r2 = s.get(Round, ids["round"])
        r2.state = "cancelled"
        s.add(Round(encounter_id=r2.encounter_id, number=3, opens_at=r2.opens_at, deadline=r2.deadline,
                    seed="x", commitment="y"))
        after1 = {c["key"]: c["hp"] for c in s.get(Round, ids["round1"]).state_after["combatants"]}
    past = _page(alice, ids, 2)
    assert "Round 2 as it was at its start (it has no result)" in past
    assert "HP at the start" in _combatants(past) and "hp-after" not in _combatants(past)
    assert f'class="hp-before">{after1["goblin-2"]}/6<' in _section(past, 'id="past-goblin-2"', "</tr>")


def test_audit_log_is_the_encounters_own_and_in_words(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """Issue 11 item 10: an entry of another encounter of the same campaign (and the
    campaign's own settings) is not in this encounter's log; each entry is a sentence
    with the round it was made in and its reason; no JSON."""
    r = alice.post(f"/campaigns/{ids['campaign']}/encounters", {"thread_id": ids["thread"], "name": "Bridge"})
    assert r.status_code == 302
    with session_scope(make_engine(db_url)) as s:
        bridge = s.scalars(select(Encounter).where(Encounter.name == "Bridge")).one().id
    r = alice.post(f"/encounters/{bridge}/combatants/new", {
        "key": "troll", "name": "Troll", "side": "monsters", "hp": 40, "max_hp": 40})
    assert r.status_code == 303
    _add_zed(alice, ids)
    alice.post(f"/encounters/{ids['encounter']}/override/hp",
               {"combatant_id": ids["combatants"]["goblin-2"], "hp": 1, "reason": "crushed by the gate"})
    html = _page(alice, ids)
    log = _audit(html)
    assert "Troll" not in log and "Bridge" not in log      # the other encounter's entries
    assert "Reason: crushed by the gate" in log
    assert "alice added Zed (HP 15/15) in round 2." in log
    assert "The service resolved round 1 (" in log
    assert "{" not in log and "&#34;" not in log            # no JSON, quoted or not
    bridge_log = _audit(_page(alice, {"encounter": bridge}))
    assert "Troll" in bridge_log and "Zed" not in bridge_log and "Goblin" not in bridge_log
    with session_scope(make_engine(db_url)) as s:
        hp = s.scalars(select(AuditEntry).where(AuditEntry.action == "override.hp")).one()
        assert hp.encounter_id == ids["encounter"] and hp.round_id == ids["round"]
        before = hp.before["value"]
    assert f"alice changed Goblin 2&#39;s HP from {before} to 1 in round 2." in log


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "alice changed Goblin 2's HP from 6 to 1 in round 2"),
    ("pt", "alice alterou os PV de Goblin 2 de 6 para 1 na rodada 2"),
    ("ru", "alice изменил(а) ОЗ Goblin 2 с 6 на 1 в раунде 2"),
])
def test_audit_sentence_in_the_narrators_language(app: Any, lang: str, words: str) -> None:
    """Issue 11 item 10: the sentence in the narrator's language (the panel's catalogs)."""
    entry = AuditEntry(at=datetime.now(UTC), actor="alice", action="override.hp", entity="combatant",
                       entity_id="5", before={"value": 6}, after={"value": 1}, note="")
    say = audit_words._Say(entry, 2, {5: "Goblin 2"}, {"goblin-2": "Goblin 2"},
                           queries.AuditSubjects({}, {}, {}), "UTC")
    with app.test_request_context(), force_locale(lang):
        assert audit_words.sentence(say) == words


#: every action the code writes into the audit log (git grep -n "audit" pbp/), and a value
#: of the shape it writes
WRITTEN: dict[str, tuple[Any, Any, str]] = {
    "campaign.create": (None, {"name": "Keep"}, "alice created the campaign Keep"),
    "campaign.settings": ({"approval_mode": True, "round_hours": 24}, {"approval_mode": False, "round_hours": 24},
                          "alice changed the campaign's settings: approval mode: yes → no"),
    "campaign.tables": ({"keys": []}, {"keys": ["omens", "weather"]},
                        "alice changed the campaign's random tables: omens, weather"),
    "narrator.add": (None, {"username": "bob"}, "alice added the narrator bob"),
    "narrator.accounts": ({"username": "bob", "accounts": []}, {"username": "bob", "accounts": ["bob_gm", "gm2"]},
                          "alice set the accounts of bob: — → bob_gm, gm2"),
    # STALL-7: the initiative mode, per campaign or encounter
    "campaign.initiative_mode": ({"turns": "individual"}, {"turns": "popcorn"},
                                 "alice set the campaign's initiative mode to popcorn"),
    "encounter.initiative_mode": ({"turns": "individual"}, {"turns": "side"},
                                  "alice set this encounter's initiative mode to side"),
    "encounter.create": (None, {"name": "Bridge"}, "alice created the encounter Bridge"),
    "encounter.start": ({"status": "setup"}, {"status": "active", "round": 1, "order": ["aria"],
                                              "deadline": "2026-12-01T12:00:00+00:00"},
                        "alice started the encounter: round 1 opens, deadline 2026-12-01 12:00"),
    "encounter.end": ({"status": "active"}, {"status": "finished", "closed_round": 3}, "alice ended the encounter"),
    "roll.secret": ({}, {"roll": 9, "index": 7, "label": "ambush"}, "alice rolled in secret: roll #7 in round 2"),   # DICE-2
    "roll.reveal": ({}, {"roll": 9, "revealed": [9, 10], "reason": ""}, "alice revealed 2 secret roll(s) in round 2"),
    "combatant.save": ({"name": "Aria", "hp": 20, "side": "players"}, {"name": "Aria", "hp": 12, "side": "players"},
                       "alice edited Aria: HP: 20 → 12"),
    "combatant.import": (None, {"count": 2, "keys": ["aria", "goblin-2"]},
                         "alice imported 2 combatants: Aria, Goblin 2"),
    "thread.add": (None, {"url": "http://f/t/1"}, "alice added the thread http://f/t/1"),
    "thread.edit": ({"url": "http://f/t/1"}, {"url": "http://f/t/2"}, "alice edited the thread http://f/t/2"),
    "thread.pause": ({"url": "http://f/t/1"}, {"url": "http://f/t/1"}, "alice paused the thread http://f/t/1"),
    "thread.resume": ({"url": "http://f/t/1"}, {"url": "http://f/t/1"}, "alice resumed the thread http://f/t/1"),
    "thread.remove": ({"url": "http://f/t/1"}, None, "alice removed the thread http://f/t/1"),
    "thread.reread": ({"url": "http://f/t/1"}, {"url": "http://f/t/1", "reread_requested_at": 1.0},
                      "alice asked for the whole thread http://f/t/1 to be read again"),
    "round.resolve": ({"state": "open"}, {"state": "resolved", "events": 9}, "alice resolved round 2 (9 events)"),
    "round.reresolve": ({"state": "open"}, {"state": "resolved", "events": 9},
                        "alice resolved round 2 again (9 events)"),
    "override.roll": (14, 25, "alice set roll #7 of Aria from 14 to 25 in round 2"),
    "override.hp": (6, 1, "alice changed Goblin 2's HP from 6 to 1 in round 2"),
    "override.condition.add": ([], [{"name": "prone", "rounds": 2}],
                               "alice gave Goblin 2 the condition prone for 2 rounds in round 2"),
    "override.condition.remove": ([{"name": "prone"}], [],
                                  "alice removed the condition prone from Goblin 2 in round 2"),
    "override.initiative": (["aria", "goblin-2"], ["goblin-2", "aria"],
                            "alice reordered the initiative: Goblin 2, Aria in round 2"),
    "override.action.add": (None, {"kind": "attack", "target": "goblin-2"},
                            "alice added an action to the post of Aria: attack → goblin-2 in round 2"),
    "override.action.confirm": ({"kind": "attack", "target": "goblin-2"}, {"kind": "attack", "target": "goblin-2"},
                                "alice confirmed the action of Aria: attack → goblin-2 in round 2"),
    "override.action.correct": ({"kind": "move"}, {"kind": "attack", "target": "goblin-2"},
                                "alice corrected the action of Aria: move → attack → goblin-2 in round 2"),
    "override.action.reject": ({"kind": "move"}, None, "alice rejected the action of Aria: move in round 2"),
    "override.penalty.waive": ([], ["aria"], "alice waived the late-post penalty of Aria in round 2"),
    "override.penalty.apply": (["aria"], [], "alice applied the late-post penalty to Aria again in round 2"),
    "override.deadline": ("2026-12-01T12:00:00+00:00", "2026-12-02T12:00:00+00:00",
                          "alice moved the deadline from 2026-12-01 12:00 to 2026-12-02 12:00 in round 2"),
    "override.reply.hold": ("pending", "held", "alice held back a reply (result) for approval in round 2"),
    "override.reply.approve": ("held", "pending", "alice approved a reply (result): now pending in round 2"),
    "override.round.reresolve": ("resolved", "resolved", "alice re-resolved round 2"),
    "override.round.correct": (1, [{"code": "hp", "who": "aria"}], "alice posted a correction of round 2 (1 changes)"),
    # STALL-1 / STALL-2 (the times in UTC, the zone of this test)
    "absence.start": (None, {"until": "2026-12-10T00:00:00+00:00", "text": "until 2026-12-10"},
                      "alice noted that aria_p is away until 2026-12-10 00:00 in round 2"),
    "absence.set": (None, {"until": "2026-12-10T00:00:00+00:00"},
                    "alice marked aria_p away until 2026-12-10 00:00 in round 2"),
    "absence.unread": (None, {"text": "until whenever"},
                       "alice could not read an absence of aria_p: until whenever in round 2"),
    "absence.end": ({"until": "2026-12-10T00:00:00+00:00"}, {"by": "post"},
                    "alice ended the absence of aria_p in round 2"),
    "standing.default": (None, {"text": "defend"},
                         "alice noted the default standing order of Aria: defend in round 2"),
    "standing.if": (None, {"text": "the orc charges, I shoot it"},
                    "alice noted a conditional standing order of Aria: the orc charges, I shoot it in round 2"),
    "standing.clear": (None, {"text": "none"}, "alice cleared the default standing order of Aria in round 2"),
    "standing.refused": (None, {"text": "cast fireball", "reason": "limited:spell"},
                         "alice refused a standing order of Aria: cast fireball in round 2"),
    "standing.cancel": ({"text": "defend"}, None, "alice cancelled a standing order of Aria: defend in round 2"),
    "standing.apply": (None, {"source": "default", "text": "defend", "away": True},
                       "alice had Aria (away) follow its standing order: defend in round 2"),
    # STALL-5 (issue 15)
    "encounter.round_hours": (None, 12.0, "alice set this encounter's rounds to 12 hours"),
    "round.extension.granted": ({"deadline": "2026-12-01T12:00:00+00:00"},
                                {"player": "bob", "hours": 12.0, "deadline": "2026-12-02T00:00:00+00:00",
                                 "automatic": False},
                                "alice granted bob 12 h more: the deadline moved from 2026-12-01 12:00 to "
                                "2026-12-02 00:00 in round 2"),
    "round.extension.queued": ({"deadline": "2026-12-01T12:00:00+00:00"}, {"player": "bob", "hours": 24.0,
                                                                          "limit": 12.0},
                               "bob asked for 24 h more, over the limit of 12 h a round: it waits for a "
                               "narrator in round 2"),
    "round.extension.refused": ({"state": "queued"}, {"player": "bob", "hours": 24.0, "state": "refused"},
                                "alice refused bob's request for 24 h more in round 2"),
}
ENTITIES = {"override.roll": ("roll", "70"), "override.action.confirm": ("declaration", "80"),
            "override.action.add": ("declaration", "80"),
            "override.action.correct": ("declaration", "80"), "override.action.reject": ("declaration", "80"),
            "override.reply.hold": ("reply", "90"), "override.reply.approve": ("reply", "90"),
            "override.hp": ("combatant", "5"), "override.condition.add": ("combatant", "5"),
            "override.condition.remove": ("combatant", "5"), "combatant.save": ("combatant", "1"),
            **{a: ("player", "aria_p") for a in ("absence.start", "absence.set", "absence.unread",
                                                  "absence.end")},
            **{a: ("combatant", "aria") for a in ("standing.default", "standing.if", "standing.clear",
                                                   "standing.refused", "standing.cancel",
                                                   "standing.apply")}}


def test_every_action_the_code_writes_has_its_sentence() -> None:
    """Issue 11 item 10: each action written in pbp/ (the panel's, the overrides', the
    fight's, the resolver's) has a sentence of its own."""
    from pathlib import Path

    from pbp.rounds.overrides import KINDS
    root = Path(__file__).resolve().parents[2] / "pbp"
    code = "\n".join(p.read_text() for p in root.rglob("*.py"))
    written = set(re.findall(r'audit_write\(s, [\w.]+, "([\w.]+)"', code))
    written |= set(re.findall(r'_audit\(session, enc, "([\w.]+)"', code))
    written |= {"round.resolve", "round.reresolve", "thread.pause", "thread.resume"}
    # STALL-1/2: the rounds layer's entries, and those it names in an expression
    written |= set(re.findall(r'(?:action=|_audit\(session, \w+, )"((?:absence|standing)\.[a-z]+)"', code))
    written |= {"standing.default", "standing.if", "standing.clear", "absence.unread"}
    written |= {f"override.{k}" for k in KINDS}
    written |= set(re.findall(r'"(round\.extension\.\w+)"', code))   # STALL-5, pbp/rounds/extensions.py
    assert written <= set(audit_words.SENTENCES) and written <= set(WRITTEN)


@pytest.mark.parametrize("action", sorted(WRITTEN))
def test_each_action_reads_as_a_sentence(app: Any, action: str) -> None:
    """Issue 11 item 10: the sentence of each action, worked out by hand from what is written."""
    before, after, words = WRITTEN[action]
    entity, entity_id = ENTITIES.get(action, ("round", "3"))
    wrap = (lambda v: None if v is None else {"value": v}) if not action.startswith(("round.", "encounter.")) \
        else (lambda v: v)
    entry = AuditEntry(at=datetime.now(UTC), actor="alice", action=action, entity=entity, entity_id=entity_id,
                       before=wrap(before), after=wrap(after), note="")
    subjects = queries.AuditSubjects({70: (7, "aria")}, {80: 1}, {90: "resolution"})
    say = audit_words._Say(entry, 2 if "." in action and not action.startswith(("campaign", "thread", "narrator",
                                                                                   "encounter.", "combatant."))
                           else None, {1: "Aria", 5: "Goblin 2"}, {"aria": "Aria", "goblin-2": "Goblin 2"},
                           subjects, "UTC")
    with app.test_request_context(), force_locale("en"):
        assert audit_words.sentence(say) == words
    with app.test_request_context(), force_locale("pt"):
        pt = audit_words.sentence(say)
    assert pt != words and "{" not in pt


def test_unknown_action_still_reads_as_words(app: Any) -> None:
    """An action with no sentence yet (written by newer code) shows its values as words."""
    entry = AuditEntry(at=datetime.now(UTC), actor="system", action="encounter.teleport", entity="encounter",
                       entity_id="1", before={"where": "gate"}, after={"where": ["hall", "crypt"]}, note="")
    say = audit_words._Say(entry, None, {}, {}, queries.AuditSubjects({}, {}, {}), "UTC")
    with app.test_request_context(), force_locale("en"):
        assert audit_words.sentence(say) == "The service: encounter.teleport (where: gate → where: hall, crypt)"


def test_migration_0005_fills_in_old_entries(db_url: str, ids: dict[str, Any]) -> None:
    """Issue 11 item 10: entries written before 0005 get their encounter and round from what
    they name (down to 0004 drops the columns; up again fills them in)."""
    from pbp.store.db import downgrade, upgrade
    with session_scope(make_engine(db_url)) as s:
        expected = {e.id: (e.encounter_id, e.round_id) for e in s.scalars(select(AuditEntry))}
        assert any(v[0] == ids["encounter"] and v[1] == ids["round1"] for v in expected.values())
        campaign_only = [e.id for e in s.scalars(select(AuditEntry).where(AuditEntry.campaign_id.is_not(None)))
                         if e.entity in ("campaign", "thread")]
        assert s.get(Campaign, ids["campaign"]) is not None and s.get(Combatant, 1) is not None
    downgrade(db_url, "0004")
    upgrade(db_url)
    with session_scope(make_engine(db_url)) as s:
        again = {e.id: (e.encounter_id, e.round_id) for e in s.scalars(select(AuditEntry))}
    assert again == expected and all(again[i] == (None, None) for i in campaign_only)
