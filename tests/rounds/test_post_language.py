"""Issue 13 items 1, 2 and 4 through the service (``ingest_posts`` and ``resolve_round``):
posts in another language than the campaign's, posts with asides, quoted rolls."""

from __future__ import annotations

from sqlalchemy import select

from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post


def _events(engine, round_id: int, actor: str) -> list[tuple[str, str | None]]:  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        rows = s.scalars(select(m.EventRecord).where(m.EventRecord.round_id == round_id,
                                                     m.EventRecord.actor == actor))
        return [(e.code, e.target) for e in rows]


def test_portuguese_and_russian_posts_in_an_english_campaign(engine):
    """Issue 13 item 2: each post is read in its own language when plainly written in it;
    both attacks are declared with their target and weapon, rolled, resolved, and the
    declaration says which language it was read in. A short post keeps English."""
    w = make_world(engine, language="en")
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "Eu ataco o Goblin Snag com a minha espada [roll]1d20+5[/roll]"),
              post("p2", "bob", at(1), "Я атакую гоблина Rot своим мечом [roll]1d20+5[/roll]"),
              post("p3", "carol", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]")],
             now=at(1))
    decls = w.declarations(rid)
    aria, bram, cyd = decls["aria"][-1], decls["bram"][-1], decls["cyd"][-1]
    assert (aria.lang, bram.lang, cyd.lang) == ("pt", "ru", "en")
    assert [(a["kind"], a["target"], a["weapon"]) for a in aria.actions] == [("attack", "gob1", "sword")]
    assert [(a["kind"], a["target"], a["weapon"]) for a in bram.actions] == [("attack", "gob2", "sword")]
    assert all(a["rolled"] for a in aria.actions + bram.actions)    # the tags were rolled
    w.resolve(rid, at(25))
    assert w.reply(f"{rid}:resolution") is not None
    codes = {c for c, _t in _events(engine, rid, "aria")}
    assert codes & {"attack.hit", "attack.miss", "attack.critical", "attack.fumble"}, codes
    assert any(t == "gob2" for _c, t in _events(engine, rid, "bram"))


def test_mixed_post_reads_the_narration_language(engine):
    """Issue 13 item 2: English narration with a Portuguese aside reads English, and a
    Portuguese post with an English (OOC) aside reads Portuguese."""
    w = make_world(engine, language="pt")
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "(OFF: desculpa a demora, não consegui postar ontem) "
                                         "I attack Goblin Snag with my sword [roll]1d20+5[/roll]"),
              post("p2", "bob", at(1), "(OOC: sorry, I was away all the weekend and the week) "
                                       "Ataco o Goblin Rot com a espada [roll]1d20+5[/roll]")],
             now=at(1))
    decls = w.declarations(rid)
    assert decls["aria"][-1].lang == "en" and decls["bram"][-1].lang == "pt"
    assert [a["kind"] for a in decls["aria"][-1].actions] == ["attack"]
    assert [a["kind"] for a in decls["bram"][-1].actions] == ["attack"]


def test_a_post_with_an_aside_is_declared(engine):
    """Issue 13 item 1: ``(OOC: back tomorrow)`` before the declaration no longer hides it,
    and one after it adds no move; both are declared, rolled and resolved."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "(OOC: back tomorrow) I attack Goblin Snag with my sword "
                                         "[roll]1d20+5[/roll]"),
              post("p2", "bob", at(1), "I attack Goblin Rot with my sword [roll]1d20+5[/roll] "
                                       "(OOC: back tomorrow)")], now=at(1))
    decls = w.declarations(rid)
    assert [(a["kind"], a["target"]) for a in decls["aria"][-1].actions] == [("attack", "gob1")]
    assert [(a["kind"], a["target"]) for a in decls["bram"][-1].actions] == [("attack", "gob2")]
    w.resolve(rid, at(25))
    assert any(t == "gob1" for _c, t in _events(engine, rid, "aria"))


def test_a_quoted_roll_is_kept_for_the_narrator_and_never_rolled(engine):
    """Issue 13 item 4: Bram quotes Aria's attack and its roll; Bram's own roll is rolled,
    the quoted one is stored on his declaration as quoted and never rolled for him."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "bob", at(1), "[quote=alice]I attack Goblin Snag [roll]1d20+7[/roll][/quote]\n"
                                       "Nice! I attack Goblin Rot with my sword [roll]1d20+5[/roll]")],
             now=at(1))
    bram = w.declarations(rid)["bram"][-1]
    assert [(q["expression"], q["written"]) for q in bram.quoted_rolls] == [("1d20+7", "1d20+7")]
    assert [(a["kind"], a["target"]) for a in bram.actions] == [("attack", "gob2")]
    with session_scope(engine) as s:
        rolled = [r.written for r in s.scalars(select(m.RollRecord).where(
            m.RollRecord.round_id == rid, m.RollRecord.kind == "tag"))]
    assert rolled == ["1d20+5"]


def test_initiative_for_another_players_combatant_is_refused_in_the_campaigns_language(engine):
    """Non-negotiable 5 (a reply says what went wrong in words a player understands): a
    player's ``.ri`` naming a combatant they do not control is refused, and the reply of a
    Portuguese campaign says so in Portuguese (it was stored and shown in English)."""
    w = make_world(engine, language="pt")
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "Eu ataco o Goblin Snag com a minha espada "
                                         "[roll]1d20+5[/roll]\n.ri 12 Goblin Snag")], now=at(1))
    aria = w.declarations(rid)["aria"][-1]
    assert [e["code"] for e in aria.errors] == ["initiative.not-yours"]
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert "'Goblin Snag' não é seu para rolar" in body
    assert "not yours" not in body


def test_a_narrators_post_is_read_in_the_language_of_the_whole_post(engine):
    """Issue 13 item 2, SCALE-6: the narrator's post declaring for two goblins is read in
    the language of the whole post, guessed once. Each part alone is too short to be
    plainly Portuguese (one hint word: ``com``, ``o``; the margin is two), the whole post
    is (two hint words, no English one), so both goblins' Portuguese attacks are declared;
    read part by part in English, neither verb was known."""
    w = make_world(engine, language="en")
    rid = w.open(at(0))
    w.ingest([post("g1", "GM", at(1), "Goblin Snag: ataco Aria com adaga [roll]1d20+2[/roll]\n"
                                      "Goblin Rot: ataco o Bram [roll]1d20+2[/roll]")], now=at(1))
    decls = w.declarations(rid)
    snag, rot = decls["gob1"][-1], decls["gob2"][-1]
    assert (snag.lang, rot.lang) == ("pt", "pt")
    assert [(a["kind"], a["target"]) for a in snag.actions] == [("attack", "aria")]
    assert [(a["kind"], a["target"]) for a in rot.actions] == [("attack", "bram")]
    assert all(a["rolled"] for a in snag.actions + rot.actions)
