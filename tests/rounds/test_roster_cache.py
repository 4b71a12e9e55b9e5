"""SCALE-6: the encounter's combatants kept between polls (pbp.rounds.roster_cache), on real
SQLite and PostgreSQL: kept while nothing changes, and never stale.

Expected values come from the roster as edited: after the narrator renames a goblin in
the panel, a post naming the new name must target it; after a write past the ORM gives a
hero to another player, that player's post must declare for it; after a co-narrator is
added, their post must declare for the NPCs. Each edit is made in a session of its own and
committed, as the panel and other workers do, between two polls of the same process.
"""

from __future__ import annotations

from sqlalchemy import Engine, select, update

from pbp.rounds import roster_cache
from pbp.store import models as m
from pbp.store.campaigns import CampaignNarrator, Narrator
from pbp.store.db import session_scope

from .world import at, make_world, post


def _built() -> int:
    """Rows converted to engine values so far (a row kept is not converted again)."""
    return roster_cache.stats["built"]


def _targets(w, round_id: int, key: str) -> list[str | None]:  # type: ignore[no-untyped-def]
    return [a.get("target") for d in w.declarations(round_id).get(key, []) if not d.deleted
            for a in d.actions]


def test_scale_6_roster_kept_between_polls_while_unchanged(engine: Engine) -> None:
    """Two polls with no edit between them use the very same engine values (a hit), and
    read the posts as a fresh build would."""
    roster_cache.clear()
    w = make_world(engine)
    rid = w.open(at(0))
    built = _built()
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]")], now=at(2))
    assert _built() == built + 5           # the five combatants, converted once
    w.ingest([post("p2", "bob", at(1, 10), "I attack Goblin Rot [roll]1d20+5[/roll]")], now=at(3))
    assert _built() == built + 5           # none again: nothing changed
    assert _targets(w, rid, "aria") == ["gob1"] and _targets(w, rid, "bram") == ["gob2"]


def test_scale_6_a_panel_edit_to_the_roster_is_seen_by_the_next_poll(engine: Engine) -> None:
    """The narrator renames Goblin Rot to Goblin Mire (as the panel's combatant form does:
    the row's columns set, committed); the next poll reads "Goblin Mire" as gob2."""
    roster_cache.clear()
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Rot [roll]1d20+5[/roll]")], now=at(2))
    built = _built()
    with session_scope(engine) as s:
        row = s.scalar(select(m.Combatant).where(m.Combatant.encounter_id == w.encounter_id,
                                                 m.Combatant.key == "gob2"))
        assert row is not None
        row.name = "Goblin Mire"
        row.sheet = {**(row.sheet or {}), "aliases": ["Mire"]}
    w.ingest([post("p2", "bob", at(1, 10), "I attack Goblin Mire [roll]1d20+5[/roll]")], now=at(3))
    assert _targets(w, rid, "bram") == ["gob2"]
    assert _built() == built + 1           # the edited row only


def test_scale_6_a_write_past_the_orm_is_seen_by_the_next_poll(engine: Engine) -> None:
    """A statement that bypasses the ORM (another tool, a migration, SQL by hand) gives
    Cyd to dave and renames Goblin Snag to Goblin Fang; the next poll reads both."""
    roster_cache.clear()
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]")], now=at(2))
    with session_scope(engine) as s:
        s.execute(update(m.Combatant).where(m.Combatant.encounter_id == w.encounter_id,
                                            m.Combatant.key == "cyd").values(player="dave"))
        s.execute(update(m.Combatant).where(m.Combatant.encounter_id == w.encounter_id,
                                            m.Combatant.key == "gob1")
                  .values(name="Goblin Fang", sheet={"aliases": ["Fang"]}))
    w.ingest([post("p2", "dave", at(1, 10), "I attack Goblin Fang [roll]1d20+2[/roll]")], now=at(3))
    assert _targets(w, rid, "cyd") == ["gob1"]


def test_scale_6_a_combatant_added_and_a_narrator_added_are_seen_by_the_next_poll(
        engine: Engine) -> None:
    """An imported goblin (a new row) is a target at the next poll; a co-narrator added
    to the campaign declares for the NPCs at the next poll, where before it declared
    nothing (it controlled no combatant)."""
    roster_cache.clear()
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("n1", "dm2", at(1), "Goblin Snag: attacks Aria")], now=at(2))
    assert "gob1" not in w.declarations(rid)
    with session_scope(engine) as s:
        s.add(m.Combatant(encounter_id=w.encounter_id, key="gob3", name="Goblin Grub",
                          side="goblins", hp=9, max_hp=9, sheet={"stats": {"luta": 2}}))
        narrator = Narrator(username="dm2", display_name="DM Two", password_hash="x")
        s.add(narrator)
        s.flush()
        s.add(CampaignNarrator(campaign_id=w.campaign_id, narrator_id=narrator.id,
                               platform_names=["dm2"]))
    w.ingest([post("p2", "alice", at(1, 10), "I attack Goblin Grub [roll]1d20+5[/roll]"),
              post("n2", "dm2", at(1, 20), "Goblin Snag: attacks Aria")], now=at(3))
    assert _targets(w, rid, "aria") == ["gob3"]
    assert _targets(w, rid, "gob1") == ["aria"]


def test_scale_6_a_row_whose_columns_changed_is_the_combatant_a_fresh_build_makes() -> None:
    """After a round, most rows differ from the kept ones by a column (hit points, down,
    initiative) while their sheet is the same: the combatant made from the kept sheet and
    the row's own columns is exactly the one ``codec.combatant_to_model`` builds from the
    row, for every column changed alone, for two combatants sharing a sheet (and the
    conditions of each), and for a sheet seen for the first time; a sheet's JSON is
    decoded once, whoever's row it is."""
    from pbp.rounds.codec import combatant_to_model
    from pbp.store import json_text

    roster_cache.clear()
    sheet = json_text.dumps({"stats": {"luta": 5, "dex_mod": 1}, "aliases": ["Snag"],
                             "weapons": [{"name": "dagger", "damage": "1d4",
                                          "aliases": ["adaga"]}],
                             "extra_actions": {"bonus": 1}, "hp": 999})   # hp: a column wins
    poisoned = json_text.dumps([{"name": "poisoned", "rounds": 2}])
    base = (1, "gob1", "Goblin Snag", "goblins", None, 9, 9, 2.0, False, sheet, "[]")
    changed = [base, base[:5] + (4,) + base[6:], base[:6] + (12,) + base[7:],
               base[:7] + (None,) + base[8:], base[:8] + (True,) + base[9:],
               (2, "gob2", "Goblin Rot", "orcs", "bob", 3, 9, 1.5, False, sheet, "[]"),
               (2, "gob2", "Goblin Rot", "orcs", "bob", 3, 9, 1.5, False, sheet, poisoned),
               (3, "h", "Hero", "heroes", "alice", 20, 20, None, False, None, None)]
    for content in changed:
        stored, model = roster_cache._entry(content)
        assert model == combatant_to_model(stored), content   # type: ignore[arg-type]
        assert (stored.hp, stored.key, stored.down) == (content[5], content[1], content[8])
    assert roster_cache._entry(changed[1])[1].hp == 4 and roster_cache._entry(base)[1].hp == 9
    assert len(roster_cache._sheets) == 3   # (sheet, []), (sheet, poisoned), (None, None)
