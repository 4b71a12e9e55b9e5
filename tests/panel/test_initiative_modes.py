"""STALL-7: the initiative mode set in the panel, per campaign and per encounter (the
encounter's wins), validated (bad values refused in words, nothing saved) and audited;
and the stored value reaches the engine's policy (the encounter's over the campaign's)."""

from __future__ import annotations

import html
from typing import Any

from sqlalchemy import select

from pbp.rounds.policy import policy_for
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Campaign, Encounter


def _page(alice: Any, r: Any) -> str:
    assert r.status_code == 303, r.text
    return html.unescape(alice.get(r.headers["Location"]).text)


def test_STALL7_encounter_mode_is_saved_audited_and_wins_over_the_campaign(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    camp = alice.post(f"/campaigns/{ids['campaign']}/initiative-mode",
                      {"turns": "side", "sides_first": "players"})
    assert camp.status_code == 303
    page = _page(alice, alice.post(f"/encounters/{ids['encounter']}/initiative-mode",
                                   {"turns": "popcorn", "sides_first": "initiative", "first": ""}))
    assert ("Initiative mode of this encounter: popcorn (whoever acts names who acts next), "
            "from the next round on.") in page
    assert '<option value="popcorn" selected>' in page
    with session_scope(make_engine(db_url)) as s:
        enc = s.get(Encounter, ids["encounter"])
        assert enc.houserules["initiative"]["turns"] == "popcorn"
        assert s.get(Campaign, ids["campaign"]).houserules["initiative"] == {
            "turns": "side", "sides_first": "players", "first": ""}
        # the engine sees the encounter's mode, the campaign's for what the encounter leaves
        assert policy_for(enc.campaign, enc).houserules["initiative"]["turns"] == "popcorn"
        actions = [e.action for e in s.scalars(select(AuditEntry).order_by(AuditEntry.id))]
        assert "campaign.initiative_mode" in actions and "encounter.initiative_mode" in actions
        entry = s.scalars(select(AuditEntry).where(
            AuditEntry.action == "encounter.initiative_mode")).one()
        assert entry.after == {"value": {"turns": "popcorn", "sides_first": "initiative", "first": ""}}
    # empty: back to the campaign's
    page = _page(alice, alice.post(f"/encounters/{ids['encounter']}/initiative-mode", {"turns": ""}))
    assert "This encounter uses the campaign's initiative mode, from the next round on." in page
    with session_scope(make_engine(db_url)) as s:
        enc = s.get(Encounter, ids["encounter"])
        assert "initiative" not in (enc.houserules or {})
        assert policy_for(enc.campaign, enc).houserules["initiative"]["turns"] == "side"


def test_STALL7_bad_values_are_refused_in_words_and_nothing_is_saved(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/encounters/{ids['encounter']}/initiative-mode"
    for form, words in [
            ({"turns": "zigzag"}, "Initiative mode: 'zigzag' is not one of individual, side, block, popcorn."),
            ({"turns": "side", "sides_first": "goblins"},
             "Which side acts first: 'goblins' is not one of initiative, players, enemies."),
            ({"turns": "popcorn", "first": "nobody-here"},
             "First to act (popcorn): 'nobody-here' is not in this fight.")]:
        page = _page(alice, alice.post(url, form))
        assert "Not changed: " + words in page, form
    r = alice.post(f"/campaigns/{ids['campaign']}/initiative-mode", {"turns": ""})
    assert r.status_code == 303
    with session_scope(make_engine(db_url)) as s:
        assert "initiative" not in (s.get(Encounter, ids["encounter"]).houserules or {})
        assert "initiative" not in (s.get(Campaign, ids["campaign"]).houserules or {})
        assert s.scalars(select(AuditEntry).where(
            AuditEntry.action.like("%initiative_mode"))).first() is None


def test_STALL7_another_narrators_encounter_is_404(alice: Any, ids: dict[str, Any]) -> None:
    assert alice.post(f"/encounters/{ids['other_encounter']}/initiative-mode",
                      {"turns": "side"}).status_code == 404
