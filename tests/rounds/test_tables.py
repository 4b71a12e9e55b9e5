"""DICE-6 through the round service: a post's ``.table crit`` rolls the table's die under
the round's seed, once, and the resolution reply shows the entry with its roll; the roll
verifies from the revealed seed like every other.

Expected entries are read by hand from ``pbp/config/tables/forum-d20/crit.toml`` (1-2 weak
joint, 3-4 weapon arm, 5-6 leg, 7-8 torso, 9 head, 10 vital point), not from the program.
"""

from __future__ import annotations

import hashlib
import struct

from sqlalchemy import func, select

from pbp.dice import CHAIN_LENGTH, DiceBox, chain_link, commitment
from pbp.rounds import lifecycle, service
from pbp.rounds.rolls import next_index
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post

#: pbp/config/tables/forum-d20/crit.toml, entry by entry (total -> the start of its text)
CRIT_EN = {1: "Weak joint", 2: "Weak joint", 3: "Weapon arm", 4: "Weapon arm", 5: "Leg",
           6: "Leg", 7: "Torso", 8: "Torso", 9: "Head", 10: "Vital point"}
CRIT_PT = {1: "Articulação fraca", 2: "Articulação fraca", 3: "Braço da arma",
           4: "Braço da arma", 5: "Perna", 6: "Perna", 7: "Tronco", 8: "Tronco", 9: "Cabeça",
           10: "Ponto vital"}


def _face_from_doc(seed: str, index: int, size: int) -> int:
    """docs/verifiable-dice.md step 3, written again here: SHA-256("<seed>:<i>:<k>"),
    32-bit big-endian words, skip w >= 2^32 - 2^32 mod n, face = w mod n + 1."""
    limit = (1 << 32) - (1 << 32) % size
    block = 0
    while True:
        words = struct.unpack(">8I", hashlib.sha256(f"{seed}:{index}:{block}".encode()).digest())
        for w in words:
            if w < limit:
                return w % size + 1
        block += 1


def _play(engine, text: str, *, language: str = "en", campaign_tables: str | None = None):  # type: ignore[no-untyped-def]
    w = make_world(engine, language=language)
    if campaign_tables is not None:
        with session_scope(engine) as s:
            s.get(m.Campaign, w.campaign_id).tables = campaign_tables
    rid = w.open(at(0, 10))
    w.ingest([post("p1", "alice", at(1), text)], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        rnd = s.get(m.Round, rid)
        tables = [(r.roll_index, r.expression, r.total, r.breakdown, r.label, r.tag_index)
                  for r in s.scalars(select(m.RollRecord).where(m.RollRecord.round_id == rid,
                                                               m.RollRecord.kind == "table"))]
        body = "\n".join(s.scalars(select(m.Reply.body).where(
            m.Reply.idempotency_key.like(f"{rid}:resolution%"))))
        report = service.verify_round(s, rid)
        return w, rid, rnd.seed, tables, body, report


def test_dice6_table_crit_in_a_post_is_rolled_with_the_round_seed_and_shown_with_its_entry(engine):
    """DICE-6: `.table crit` (en) -> one roll of the ruleset table's die (1d10), recorded
    with the round's seed and index; the reply says 'Critical hit table (1d10 (n) = n):
    <the entry for n>'; `pbp verify` passes and the face is the doc's algorithm's."""
    _w, _rid, seed, tables, body, report = _play(
        engine, "I attack Goblin Snag with my sword [roll]1d20+5[/roll]\n.table crit")
    assert len(tables) == 1
    index, expression, total, breakdown, label, tag_index = tables[0]
    assert (expression, label, tag_index) == ("1d10", "table:crit", 1)
    assert total == _face_from_doc(seed, index, 10)
    assert DiceBox(seed=seed).replay("1d10", index).total == total
    assert f"Critical hit table ({breakdown}): {CRIT_EN[total]}" in body
    assert report.ok, report.lines()


def test_dice6_tabela_in_portuguese_says_the_entry_in_portuguese(engine):
    """DICE-6: `[tabela]crítico[/tabela]` in a Portuguese campaign: the table's Portuguese
    name and the entry's Portuguese text."""
    _w, _rid, _seed, tables, body, report = _play(
        engine, "Ataco o Goblin Snag com a espada [roll]1d20+5[/roll] [tabela]crítico[/tabela]",
        language="pt")
    [(_i, _e, total, breakdown, _l, _t)] = tables
    assert f"Tabela de acertos críticos ({breakdown}): {CRIT_PT[total]}" in body
    assert report.ok, report.lines()


def test_dice6_tablitsa_in_russian_names_the_table_in_russian_and_falls_back_to_english(engine):
    """DICE-6: `.таблица крит` in a Russian campaign: the forum-d20 table has a Russian
    name but its entries only in Portuguese and English: the reply says the English one."""
    _w, _rid, _seed, tables, body, _report = _play(
        engine, "Атакую Goblin Snag мечом [roll]1d20+5[/roll]\n.таблица крит", language="ru")
    [(_i, _e, total, breakdown, _l, _t)] = tables
    assert f"Таблица критических попаданий ({breakdown}): {CRIT_EN[total]}" in body


def test_dice6_unknown_table_is_said_with_the_tables_that_exist_and_rolls_nothing(engine):
    """DICE-6: `!table dragons` names no table: no roll, and the reply lists the tables
    forum-d20 ships (pbp/config/tables/forum-d20: crit, fumble, location, loot)."""
    _w, _rid, _seed, tables, body, report = _play(
        engine, "I attack Goblin Snag with my sword [roll]1d20+5[/roll]\n!table dragons")
    assert tables == []
    assert ("there is no table called 'dragons'; the tables here: crit, fumble, location, loot"
            in body)
    assert report.ok, report.lines()
    with session_scope(engine) as s:   # the rest of the post still counts: Aria's attack
        codes = set(s.scalars(select(m.EventRecord.code).where(m.EventRecord.round_id == _rid,
                                                               m.EventRecord.actor == "aria")))
    assert codes & {"attack.hit", "attack.miss", "attack.auto-miss", "attack.auto-hit",
                     "attack.miss-chance"}


OMENS = """
[[tables]]
key = "omens"
die = "2d6"
name = { en = "Omens", pt = "Presságios", ru = "Знамения" }
aliases = ["omen", "presságio", "знамение"]
entries = [
  { range = "2-6", text = "A crow calls twice." },
  { range = "7", text = "Nothing stirs." },
  { range = "8-12", text = "The wind turns." },
]
"""


def test_dice6_campaign_table_is_rolled_and_an_edit_never_rolls_it_again(engine):
    """DICE-6 with PBP-4: the campaign's own 2d6 table; the player edits `.table omen`
    into `.table loot` before the deadline: the first roll and its draw stand."""
    w = make_world(engine)
    with session_scope(engine) as s:
        s.get(m.Campaign, w.campaign_id).tables = OMENS
    rid = w.open(at(0, 10))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]\n.table omen")],
             now=at(1))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]\n.table loot",
                   change="edited", edited_at=at(2))], now=at(2))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        recs = list(s.scalars(select(m.RollRecord).where(m.RollRecord.kind == "table")))
        body = s.scalar(select(m.Reply.body).where(m.Reply.idempotency_key == f"{rid}:resolution"))
        ok = service.verify_round(s, rid).ok
    assert [(r.expression, r.label) for r in recs] == [("2d6", "table:omens")]
    total = recs[0].total
    entry = "A crow calls twice." if total <= 6 else "Nothing stirs." if total == 7 \
        else "The wind turns."
    assert f"Omens ({recs[0].breakdown}): {entry}" in body
    assert "Loot table" not in body and ok


def _seed_with_natural(engine, natural: int, probe_slug: str):  # type: ignore[no-untyped-def]
    """A seed under which Aria's tag roll (`1d20+5`, the round's first roll after the
    opening's initiative rolls) shows *natural*: found by replaying the seed, as any
    player could, never by forcing the dice."""
    w = make_world(engine, slug=probe_slug)
    rid = w.open(at(0, 10))
    with session_scope(engine) as s:
        first = next_index(s, rid)
    for n in range(10_000):
        seed = f"crit-seed-{n}"   # the source gives the anchor: round 1 rolls with link 1 (DICE-1)
        link = chain_link(commitment(seed), CHAIN_LENGTH, 1)
        if DiceBox(seed=link).replay("1d20+5", first).natural == natural:
            return seed, first
    raise AssertionError("no seed found")


def test_dice6_engine_critical_rolls_the_crit_table_when_the_campaign_turns_it_on(
        engine, monkeypatch):  # type: ignore[no-untyped-def]
    """DICE-6 item 4, forum-d20: with `[rounds] crit_tables = true`, Aria's natural 20
    (FD-8 hit, FD-9 critical) is followed by a roll of the crit table (1d10, under the
    round's seed, the next index) and the reply says its entry; a narrator's
    re-resolution hands the same table roll back (no second roll); `pbp verify` passes.
    Without the setting no table is rolled."""

    seed, first = _seed_with_natural(engine, 20, "probe")
    monkeypatch.setattr(lifecycle, "seed_source", lambda: seed)
    w = make_world(engine, slug="crits", houserules={"rounds": {"crit_tables": True}})
    rid = w.open(at(0, 10))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]")],
             now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        assert s.scalar(select(m.RollRecord.natural).where(
            m.RollRecord.round_id == rid, m.RollRecord.roll_index == first)) == 20
        codes = [e.code for e in s.scalars(select(m.EventRecord).where(m.EventRecord.round_id == rid)
                                           .order_by(m.EventRecord.seq))]
        draws = list(s.scalars(select(m.EventRecord).where(m.EventRecord.round_id == rid,
                                                          m.EventRecord.code == "table.draw")))
        assert len(draws) == 1 and codes[codes.index("table.draw") - 1] == "attack.critical"
        [index] = draws[0].roll_indexes
        rec = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == rid,
                                                  m.RollRecord.roll_index == index))
        assert (rec.expression, rec.label) == ("1d10", "table:crit")
        assert rec.total == _face_from_doc(chain_link(commitment(seed), CHAIN_LENGTH, 1), index, 10)
        body = s.scalar(select(m.Reply.body).where(m.Reply.idempotency_key == f"{rid}:resolution"))
        assert f"Critical hit table ({rec.breakdown}): {CRIT_EN[rec.total]}" in body
        service.reresolve_round(s, rid, at(26))
    with session_scope(engine) as s:
        again = list(s.scalars(select(m.EventRecord).where(m.EventRecord.round_id == rid,
                                                          m.EventRecord.code == "table.draw")))
        assert [e.roll_indexes for e in again] == [[index]]
        assert s.scalar(select(func.count()).select_from(m.RollRecord).where(
            m.RollRecord.round_id == rid, m.RollRecord.label == "table:crit")) == 1
        assert service.verify_round(s, rid).ok

    off = make_world(engine, slug="no-crits")
    rid2 = off.open(at(0, 10))
    off.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]")],
               now=at(1))
    off.resolve(rid2, at(25))
    with session_scope(engine) as s:
        assert s.scalar(select(m.RollRecord.natural).where(
            m.RollRecord.round_id == rid2, m.RollRecord.roll_index == first)) == 20
        assert "table.draw" not in set(s.scalars(select(m.EventRecord.code)
                                                 .where(m.EventRecord.round_id == rid2)))


def test_dice6_a_narrator_set_table_roll_is_marked_and_picks_its_entry(engine):  # type: ignore[no-untyped-def]
    """DICE-6 with DICE-5: the narrator sets the crit table roll's total in the panel's
    service; the reply marks the roll as set by the narrator and says the entry of the
    total set (9: the head; 10 when 9 came up); the stored roll stays as rolled and
    `pbp verify` still passes, listing the override."""
    from pbp.rounds.overrides import set_roll

    w = make_world(engine)
    rid = w.open(at(0, 10))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]\n"
                   ".table crit")], now=at(1))
    with session_scope(engine) as s:
        rec = s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "table"))
        rolled, breakdown = rec.total, rec.breakdown
        wanted = 10 if rolled == 9 else 9
        set_roll(s, rec.id, wanted, "the head, for the story", None)
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        body = s.scalar(select(m.Reply.body).where(m.Reply.idempotency_key == f"{rid}:resolution"))
        again = s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "table"))
        report = service.verify_round(s, rid)
    assert f"Critical hit table ({breakdown} -> {wanted} (narrator)): {CRIT_EN[wanted]}" in body
    assert again.total == rolled
    assert report.ok and any(f"set to {wanted} by the narrator" in o for o in report.overrides)
