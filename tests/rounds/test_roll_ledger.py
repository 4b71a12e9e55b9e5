"""DICE-3 (the roll ledger: deleted posts, superseded revisions, re-posts, fishing,
tampering) and DICE-5 (a roll the narrator set is never silent), through the round
service, on SQLite and PostgreSQL. Expected values come from issue 16 and PBP-4: a tag
is rolled once; a deleted-and-re-posted tag gets its first roll back, or is flagged."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from sqlalchemy import select, text

from pbp.cli import cli
from pbp.dice import DiceBox
from pbp.rounds import service
from pbp.rounds.overrides import set_roll
from pbp.rounds.verify import verify_round
from pbp.store import models as m
from pbp.store.db import session_scope
from pbp.store.roll_ledger import encounter_ledger

from .world import at, make_world, post

#: the same attack in the three languages players write (tests/rounds/test_post_language.py)
ATTACK = {
    "en": "I attack Goblin Snag with my sword [roll]1d20+5[/roll]",
    "pt": "Eu ataco o Goblin Snag com a minha espada [roll]1d20+5[/roll]",
    "ru": "Атакую Goblin Snag мечом [roll]1d20+5[/roll]",
}
KEPT = {"en": "re-posted after a roll: the deleted post's roll stands (PBP-4)",
        "pt": "postado de novo após a rolagem: vale a rolagem do post apagado (PBP-4)",
        "ru": "опубликовано заново после броска: остаётся бросок удалённого поста (PBP-4)"}


def _ledger(engine, w, **kw):
    with session_scope(engine) as s:
        return encounter_ledger(s, w.encounter_id, **kw)


def _tag_rolls(engine):
    with session_scope(engine) as s:
        return [(r.roll_index, r.total, r.post_id) for r in s.scalars(
            select(m.RollRecord).where(m.RollRecord.kind == "tag").order_by(m.RollRecord.roll_index))]


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_dice3_a_deleted_and_reposted_tag_gets_its_first_roll_back(engine, lang):
    """DICE-3 give-back: same tag, same author, same combatant, same round: the re-post's
    attack uses the deleted post's roll; no second roll exists; the reply and the ledger
    say so; pbp verify still passes (the roll is checked once, as made)."""
    w = make_world(engine, language=lang)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK[lang])], now=at(1))
    [(index, total, first_post)] = _tag_rolls(engine)
    w.ingest([post("p1", "alice", at(1), "", change="deleted")], now=at(2))
    w.ingest([post("p2", "alice", at(3), ATTACK[lang])], now=at(3))
    assert _tag_rolls(engine) == [(index, total, first_post)]        # no new roll
    decls = w.declarations(rid)["aria"]
    repost = next(d for d in decls if not d.deleted)
    assert repost.actions[0]["rolled"]["index"] == index
    assert {"code": "reposted-roll-kept"} in repost.notes
    assert w.count(m.RollReuse) == 1
    [row] = [r for r in _ledger(engine, w) if r.kind == "tag"]
    assert row.post == "p1" and row.player == "alice" and row.given_to == "p2"
    assert set(row.flags) == {"given-back", "deleted"} and row.used
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    assert KEPT[lang] in body
    with session_scope(engine) as s:
        attack = s.scalar(select(m.EventRecord).where(m.EventRecord.actor == "aria",
                                                      m.EventRecord.code.in_(("attack.hit", "attack.miss"))))
        assert attack is not None and index in attack.roll_indexes
        assert verify_round(s, rid).ok


def test_dice3_a_repost_with_another_tag_is_flagged_reposted_after_roll(engine):
    """DICE-3 flag path: the re-post's tag is not the deleted one's (1d20+9 for 1d20+5), so
    it cannot take that roll safely: rolled anew, noted "re-posted after roll", the ledger
    flags the new roll and the fishing (two rolls for one attack)."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK["en"])], now=at(1))
    w.ingest([post("p1", "alice", at(1), "", change="deleted")], now=at(2))
    w.ingest([post("p2", "alice", at(3), "I attack Goblin Snag with my sword [roll]1d20+9[/roll]")],
             now=at(3))
    assert len(_tag_rolls(engine)) == 2 and w.count(m.RollReuse) == 0
    repost = next(d for d in w.declarations(rid)["aria"] if not d.deleted)
    assert {"code": "reposted-after-roll"} in repost.notes
    rows = {r.post: r for r in _ledger(engine, w) if r.kind == "tag"}
    assert "reposted" in rows["p2"].flags and "deleted" in rows["p1"].flags
    assert "fishing" in rows["p1"].flags and "fishing" in rows["p2"].flags
    assert rows["p1"].fishing_with == [rows["p2"].roll_index]
    w.resolve(rid, at(25))
    assert ("re-posted after roll: the deleted post's roll could not be matched, the narrator "
            "is told (PBP-4)") in w.reply(f"{rid}:resolution").body


def test_dice3_fishing_second_roll_for_the_same_attack_in_an_edit_is_flagged(engine):
    """DICE-3 fishing: an edit adds a second attack roll for the same attack. PBP-4 is
    unchanged (each tag rolled once, the first tag stays bound to the attack); the ledger
    flags both rolls and says which one the round used."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK["en"])], now=at(1))
    w.ingest([post("p1", "alice", at(1), ATTACK["en"] + " and again [roll]1d20+5[/roll]",
                   change="edited", edited_at=at(2))], now=at(2))
    rolls = _tag_rolls(engine)
    assert len(rolls) == 2
    first, second = rolls[0][0], rolls[1][0]
    w.resolve(rid, at(25))
    rows = {r.roll_index: r for r in _ledger(engine, w, round_number=1) if r.kind == "tag"}
    assert "fishing" in rows[first].flags and rows[first].fishing_with == [second]
    assert "fishing" in rows[second].flags and rows[second].fishing_with == [first]
    assert rows[first].used and not rows[second].used     # the reply uses the first roll
    assert rows[second].revision == 2 and "superseded" not in rows[second].flags


def test_dice3_rolls_of_removed_tags_and_deleted_posts_stay_in_the_ledger(engine):
    """DICE-3: a roll whose tag vanished in an edit and a roll of a deleted post are still
    listed, by player, post, tag and round; filters by player and round."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK["en"]),
              post("p2", "bob", at(1), "I attack Goblin Rot with my sword [roll]1d20+5[/roll]")],
             now=at(1))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword", change="edited",
                   edited_at=at(2)),
              post("p2", "bob", at(1), "", change="deleted")], now=at(2))
    rows = {r.post: r for r in _ledger(engine, w) if r.kind == "tag"}
    assert set(rows["p1"].flags) >= {"superseded", "tag-removed"}
    assert rows["p1"].revision == 1 and rows["p1"].tag_index == 0 and rows["p1"].round_number == 1
    assert "deleted" in rows["p2"].flags and rows["p2"].player == "bob"
    assert {r.post for r in _ledger(engine, w, player="BOB") if r.kind == "tag"} == {"p2"}
    assert _ledger(engine, w, round_number=2) == []
    d = w.declarations(rid)["aria"][0]
    assert {"code": "rolled-tag-removed", "tags": [0]} in d.notes and d.edited_after_roll


def test_dice3_a_roll_keeps_whose_post_it_was_when_the_post_row_is_gone(engine):
    """DICE-3: ``rolls.post_id`` is SET NULL when a post row goes (only with the rolls
    trigger out of the way: the SET NULL is an UPDATE of rolls); the ledger still names
    the post and its author (kept beside the roll)."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK["en"])], now=at(1))
    w.resolve(rid, at(25))
    _no_trigger(engine)
    with engine.begin() as conn:
        conn.execute(m.Declaration.__table__.delete())
        conn.execute(m.PostRevision.__table__.delete())
        conn.execute(m.Post.__table__.delete())
    [row] = [r for r in _ledger(engine, w) if r.kind == "tag"]
    assert (row.post, row.player, row.tag_index) == ("p1", "alice", 0)
    assert "deleted" in row.flags


def _no_trigger(engine) -> None:
    """What someone with database access does first: the rolls trigger goes."""
    with engine.begin() as conn:
        if engine.dialect.name == "sqlite":
            conn.execute(text("DROP TRIGGER rolls_immutable"))
        else:
            conn.execute(text("ALTER TABLE rolls DISABLE TRIGGER rolls_immutable"))


def _tamper(engine, roll_id: int, total: int) -> None:
    """Change a stored roll bypassing the ORM and the immutability trigger."""
    _no_trigger(engine)
    with engine.begin() as conn:
        conn.execute(text("UPDATE rolls SET total = :t WHERE id = :i"), {"t": total, "i": roll_id})


def test_dice3_an_altered_ledger_row_is_named_by_verify_and_the_ledger(engine, db_url):
    """DICE-3 tampering: a roll's total changed in SQL is named by pbp verify (its post and
    author) and flagged "tampered" in the ledger with what the seed gives."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK["en"])], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        roll = s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "tag"))
        roll_id, index, total, expression = roll.id, roll.roll_index, roll.total, roll.expression
        seed = s.get(m.Round, rid).seed
    assert DiceBox(seed=seed).replay(expression, index).total == total   # honest before
    _tamper(engine, roll_id, total + 3)
    with session_scope(engine) as s:
        report = verify_round(s, rid)
    assert not report.ok
    assert any(p.startswith(f"roll #{index} (aria, tag 0 of post p1 by alice, '1d20+5') does not "
                            f"match the seed: stored {total + 3}") for p in report.problems)
    [row] = [r for r in _ledger(engine, w) if r.kind == "tag"]
    assert "tampered" in row.flags and row.seed_total == total and row.total == total + 3
    result = CliRunner().invoke(cli, ["verify", "--db", db_url, "--encounter", str(w.encounter_id)])
    assert result.exit_code == 1
    assert (f"FAIL roll #{index} (aria, tag 0 of post p1 by alice, '1d20+5') does not match the seed"
            in result.output)


def test_dice3_a_repost_seen_before_the_deletion_is_fishing_not_a_give_back(engine):
    """DICE-3: the poller sees the re-post before the first post's deletion: two live posts
    of one attack, each rolled; the deletion afterwards gives nothing back (the re-post's
    tag has its own roll, PBP-4) and the ledger flags both rolls as fishing; the latest
    post counts (PBP-2), so the round uses the second roll, which the ledger says."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK["en"])], now=at(1))
    w.ingest([post("p2", "alice", at(2), ATTACK["en"])], now=at(2))
    w.ingest([post("p1", "alice", at(1), "", change="deleted")], now=at(3))
    rolls = _tag_rolls(engine)
    assert len(rolls) == 2 and w.count(m.RollReuse) == 0
    open_rows = {r.post: r for r in _ledger(engine, w) if r.kind == "tag"}
    assert open_rows["p2"].used and not open_rows["p1"].used   # as the round stands now
    w.resolve(rid, at(25))
    rows = {r.post: r for r in _ledger(engine, w) if r.kind == "tag"}
    assert "fishing" in rows["p1"].flags and "fishing" in rows["p2"].flags
    assert rows["p2"].used and not rows["p1"].used


NARRATOR = {"en": ("the narrator set this roll", "the narrator set this roll; the value is private"),
            "pt": ("o narrador definiu esta rolagem", "o narrador definiu esta rolagem; o valor é privado"),
            "ru": ("рассказчик задал этот бросок", "рассказчик задал этот бросок; значение скрыто")}


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
@pytest.mark.parametrize("private", [False, True])
def test_dice5_a_roll_the_narrator_set_is_marked_next_to_it_never_silent(engine, lang, private):
    """DICE-5: set_roll (the panel's override form calls it) marks the roll in the reply,
    next to the roll, in the campaign's language; a campaign keeping values private gets
    the fact without the value. The ledger shows the narrator's total either way."""
    w = make_world(engine, language=lang)
    with session_scope(engine) as s:
        s.get(m.Campaign, w.campaign_id).private_roll_values = private
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK[lang])], now=at(1))
    with session_scope(engine) as s:
        roll = s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "tag"))
        breakdown, index = roll.breakdown, roll.roll_index
        set_roll(s, roll.id, 2, "typo in the tag", None)
    w.resolve(rid, at(25))
    body = w.reply(f"{rid}:resolution").body
    public, hidden = NARRATOR[lang]
    if private:
        assert f"{breakdown} ({hidden})" in body
        assert "-> 2" not in body and " set to 2" not in body and "definida como 2" not in body
    else:
        assert f"{breakdown} -> 2 ({public})" in body
    assert f"{'№' if lang == 'ru' else '#'}{index}" in body   # the override line names the roll
    [row] = [r for r in _ledger(engine, w) if r.kind == "tag"]
    assert "narrator" in row.flags and row.set_total == 2
    with session_scope(engine) as s:
        assert verify_round(s, rid).ok            # the stored roll is what the seed gave


def test_dice5_private_value_in_a_correction_still_says_the_narrator_set_it(engine):
    """DICE-5 after the result is out: the correction reply says the narrator set the
    roll, without the value when the campaign keeps it private."""
    w = make_world(engine)
    with session_scope(engine) as s:
        s.get(m.Campaign, w.campaign_id).private_roll_values = True
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK["en"])], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        for r in s.scalars(select(m.Reply).where(m.Reply.round_id == rid)):
            r.state = "sent"
        roll = s.scalar(select(m.RollRecord).where(m.RollRecord.kind == "tag"))
        index = roll.roll_index
        set_roll(s, roll.id, 1, "fumble", None)
        reply_id = service.correct_round(s, rid, "fumble", None, at(26))
        body = s.get(m.Reply, reply_id).body
    assert f"roll #{index} (Aria): the narrator set this roll (the value is private)" in body


def test_dice2_dice3_a_secret_roll_is_checked_against_its_own_seed_not_flagged(engine):
    """DICE-2/DICE-3: a secret roll is drawn from its own seed sha256("K:n:i") under the
    encounter's hidden key, so the ledger checks it there: an honest one is not flagged
    "tampered" (the round seed's replay flagged every secret roll, in red, on the
    narrator's own page), and one altered in SQL still is, with what its seed gives."""
    from pbp.dice import hidden_seed
    from pbp.rounds.secret import roll_secret

    w = make_world(engine)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        roll_id = roll_secret(s, w.encounter_id, "1d20+2", "ambush", None, at(1))
    with session_scope(engine) as s:
        roll = s.get(m.RollRecord, roll_id)
        enc = s.get(m.Encounter, w.encounter_id)
        own = hidden_seed(enc.hidden_key, s.get(m.Round, rid).number, roll.roll_index)
        total = roll.total
        assert roll.hidden and DiceBox(seed=own).replay("1d20+2", 0).total == total   # honest
    [row] = [r for r in _ledger(engine, w) if r.roll_id == roll_id]
    assert "tampered" not in row.flags and row.seed_total is None
    _tamper(engine, roll_id, total + 3)
    [row] = [r for r in _ledger(engine, w) if r.roll_id == roll_id]
    assert "tampered" in row.flags and row.seed_total == total
