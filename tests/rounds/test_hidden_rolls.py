"""DICE-2 secret rolls through the round service: a hidden roll in a post is sealed in the
public reply (no value, no expression, no faces; its seal), takes the round's next index,
is revealed by the narrator or at the encounter's end, and then checks from the text alone;
a changed value or a forged reveal is detected and named.

Expected values are worked out here from PROOF.md, not from pbp: ``h = sha256("K:n:i")``,
``c = sha256("h:expression")``, and a d20's face drawn as docs/verifiable-dice.md says
(SHA-256 counter mode, 32-bit big-endian words, no modulo bias).
"""

from __future__ import annotations

import hashlib
import re

import pytest
from sqlalchemy import select, text

from pbp.render.hidden import check_hidden, read_hidden
from pbp.rounds import secret, service
from pbp.store import models as m
from pbp.store.db import session_scope

from .test_verify import drop_roll_trigger
from .world import at, make_world, post


def sha(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


def d20(seed: str, index: int = 0) -> int:
    """The first d20 face of roll *index* under *seed*, by docs/verifiable-dice.md."""
    limit = 2**32 - 2**32 % 20
    block = 0
    while True:
        digest = hashlib.sha256(f"{seed}:{index}:{block}".encode()).digest()
        for j in range(8):
            word = int.from_bytes(digest[4 * j:4 * j + 4], "big")
            if word < limit:
                return word % 20 + 1
        block += 1


SEALED = {"en": "Aria rolled in secret (sealed {c}…)",
          "pt": "Aria rolou em segredo (selado {c}…)",
          "ru": "Aria: тайный бросок (печать {c}…)"}
REVEALED = {"en": "Aria's secret roll #{i} of round 1 (stealth), revealed: 1d20+3 = {total} (dice: {face})",
            "pt": "Rolagem secreta nº {i} da rodada 1 (stealth), de Aria, revelada: 1d20+3 = {total} (dados: {face})",
            "ru": "Тайный бросок №{i} раунда 1 (stealth, Aria) раскрыт: 1d20+3 = {total} (кости: {face})"}


def _play(engine, lang: str = "en", platform: str = "bbcode"):  # type: ignore[no-untyped-def]
    w = make_world(engine, language=lang, platform=platform)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I sneak behind the goblins. [roll hidden]1d20+3 stealth[/roll]\n"
                                         "I attack Goblin Snag with my sword [roll]1d20+5[/roll]"),
              post("p2", "bob", at(1), "I attack Goblin Rot.\n!r -h 1d20+2")], now=at(1))
    reply_id = w.resolve(rid, at(25))
    return w, rid, reply_id


def _secret_rows(engine, rid):  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        rows = list(s.scalars(select(m.RollRecord).where(m.RollRecord.round_id == rid)
                              .order_by(m.RollRecord.roll_index)))
        for r in rows:
            s.expunge(r)
        enc_key = s.scalar(select(m.Encounter.hidden_key))
    return rows, enc_key


def _bodies(engine) -> list[str]:
    with session_scope(engine) as s:
        return list(s.scalars(select(m.Reply.body).order_by(m.Reply.id)))


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_DICE_2_a_hidden_roll_in_a_post_is_sealed_in_the_public_reply(engine, lang):
    w, rid, reply_id = _play(engine, lang)
    rows, key = _secret_rows(engine, rid)
    hidden = [r for r in rows if r.hidden]
    assert [(r.actor, r.expression) for r in hidden] == [("aria", "1d20+3"), ("bram", "1d20+2")]
    # the index counts in the round like any roll: no gap, no double
    assert [r.roll_index for r in rows] == list(range(len(rows)))
    opening = w.reply(f"{rid}:opening").body
    assert f"hidden={sha(key)}" in opening        # the commitment to K, before any roll
    with session_scope(engine) as s:
        body = s.get(m.Reply, reply_id).body
    aria = hidden[0]
    h = sha(f"{key}:1:{aria.roll_index}")
    c = sha(f"{h}:1d20+3")
    face = d20(h)
    assert (aria.total, aria.faces, aria.seal) == (face + 3, [face], c)
    assert SEALED[lang].format(c=c[:6]) in body
    assert f"#{aria.roll_index} hidden {c}" in body
    # nothing of the value: its proof line is its seal only (the block lists every roll of
    # the round, DICE-1, public ones with the same expression included), no breakdown
    # outside the public rolls', no seed
    lines = [x.strip() for x in body.replace("[code]", "\n").replace("[/code]", "\n").splitlines()]
    public = {r.breakdown for r in rows if not r.hidden}
    for r in hidden:
        assert [x for x in lines if x.startswith(f"#{r.roll_index} ")] == [f"#{r.roll_index} hidden {r.seal}"]
        assert r.breakdown in public or r.breakdown not in body
        assert sha(f"{key}:1:{r.roll_index}") not in body
    assert key not in body
    # the public roll beside it is still shown, and given to Aria's attack (not the secret one)
    public = next(r for r in rows if r.kind == "tag" and not r.hidden)
    assert public.breakdown in body
    with session_scope(engine) as s:
        report = service.verify_round(s, rid)
    assert report.ok, report.lines()


def test_DICE_2_a_secret_roll_is_never_an_actions_roll(engine):
    """Aria's attack is declared with a secret roll only: the engine rolls the attack in the
    open, and no event of the round names the secret roll's index."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll hidden]1d20+5[/roll]")],
             now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        secret_index = s.scalar(select(m.RollRecord.roll_index).where(m.RollRecord.hidden.is_(True)))
        used = {int(i) for e in s.scalars(select(m.EventRecord).where(m.EventRecord.round_id == rid))
                for i in e.roll_indexes or []}
        attacks = s.scalars(select(m.EventRecord).where(m.EventRecord.actor == "aria",
                                                        m.EventRecord.code.like("attack.%"))).all()
    assert secret_index is not None and secret_index not in used
    assert attacks, "the attack is still resolved, with the engine's own roll"


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_DICE_2_the_narrator_reveals_and_the_reply_checks(engine, lang):
    w, rid, _ = _play(engine, lang, platform="markdown")
    rows, key = _secret_rows(engine, rid)
    aria = next(r for r in rows if r.hidden and r.actor == "aria")
    with session_scope(engine) as s:
        reply_id = secret.reveal(s, w.encounter_id, [aria.id], None, at(26), reason="the guard turns")
        again = secret.reveal(s, w.encounter_id, [aria.id], None, at(27))   # once only
        body = s.get(m.Reply, reply_id).body
        audit = s.scalars(select(m.AuditEntry.action).where(m.AuditEntry.action == "roll.reveal")).all()
    assert again is None and audit == ["roll.reveal"]
    h = sha(f"{key}:1:{aria.roll_index}")
    face = d20(h)
    said = body.replace("\\#", "#")   # Markdown escapes a '#' in a sentence
    assert REVEALED[lang].format(i=aria.roll_index, total=face + 3, face=face) in said
    line = f"#{aria.roll_index} revealed {h} 1d20+3 = {face + 3} [{face}]"
    assert line in body
    assert sha(f"{h}:1d20+3") == aria.seal        # sha256(h:expr) == the c published before
    bram = next(r for r in rows if r.hidden and r.actor == "bram")
    assert f"#{bram.roll_index} hidden" not in body and bram.breakdown not in body  # still sealed
    report = check_hidden(read_hidden(_bodies(engine)))
    assert report.ok and (report.sealed, report.revealed) == (2, 1), report.problems


def test_DICE_2_the_encounters_end_publishes_the_key_and_every_seed_checks(engine):
    w, rid, _ = _play(engine)
    with session_scope(engine) as s:
        closing = service.end_encounter(s, w.encounter_id, at(30), None)
        body = s.get(m.Reply, closing).body
    rows, key = _secret_rows(engine, rid)
    assert f"pbp-dice v1 hidden-key={key}" in body
    seeds = {int(i): h for i, h in re.findall(r"#(\d+) revealed ([0-9a-f]{64})", body)}
    hidden = [r for r in rows if r.hidden]
    assert seeds == {r.roll_index: sha(f"{key}:1:{r.roll_index}") for r in hidden}
    for r in hidden:
        assert sha(f"{seeds[r.roll_index]}:{r.expression}") == r.seal
    proof = read_hidden(_bodies(engine))
    assert proof.key == key and proof.commitment == sha(key)
    report = check_hidden(proof)
    assert report.ok and report.revealed == 2, report.problems


def test_DICE_2_a_fight_the_engine_ends_reveals_in_its_result(engine):
    """Aria's blow drops a goblin of 1 HP: the fight is over, and that result reveals her
    secret roll and the key (no closing reply is needed)."""
    w = make_world(engine)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        for c in s.scalars(select(m.Combatant).where(m.Combatant.side == "goblins")):
            c.hp = 1 if c.key == "gob1" else 0
            c.down = c.key != "gob1"
    w.ingest([post("p1", "alice", at(1), "[roll hidden]1d20+3 stealth[/roll]\n"
                                         "I attack Goblin Snag with my sword")], now=at(1))
    for hours in (25, 49, 73):   # a miss may need another round
        with session_scope(engine) as s:
            enc = s.get(m.Encounter, w.encounter_id)
            if enc.status == "finished":
                break
            current = service.current_round(s, w.encounter_id).id
        w.ingest([post(f"p{hours}", "alice", at(hours - 20), "I attack Goblin Snag with my sword")],
                 now=at(hours - 20))
        w.resolve(current if hours > 25 else rid, at(hours))
    bodies = _bodies(engine)
    _rows, key = _secret_rows(engine, rid)
    assert any(f"hidden-key={key}" in b for b in bodies)
    report = check_hidden(read_hidden(bodies))
    assert report.ok and report.revealed == 1, report.problems


def test_DICE_2_tampering_a_stored_value_is_named(engine):
    """Someone with database access drops the trigger and changes Aria's secret total before
    it is revealed: the reveal publishes the changed value, and both the text check and
    ``pbp verify`` name the roll."""
    w, rid, _ = _play(engine)
    rows, _key = _secret_rows(engine, rid)
    aria = next(r for r in rows if r.hidden and r.actor == "aria")
    with engine.begin() as conn:
        drop_roll_trigger(conn)
        conn.execute(text("UPDATE rolls SET total = 23, faces = '[20]' WHERE id = :i"), {"i": aria.id})
    with session_scope(engine) as s:
        secret.reveal(s, w.encounter_id, None, None, at(26))
        report = service.verify_round(s, rid)
    problems = check_hidden(read_hidden(_bodies(engine))).problems
    assert any(p.startswith(f"round 1: hidden roll #{aria.roll_index} was revealed as 23 [20]")
               and "the value was changed" in p for p in problems), problems
    assert any(f"roll #{aria.roll_index}" in p and "stored 23 [20]" in p for p in report.problems)


def test_DICE_2_a_forged_reveal_text_is_named(engine):
    """The reveal reply as a visitor reads it, altered: another total, another expression,
    another key. Each is detected and named."""
    w, rid, _ = _play(engine)
    rows, key = _secret_rows(engine, rid)
    aria = next(r for r in rows if r.hidden and r.actor == "aria")
    with session_scope(engine) as s:
        service.end_encounter(s, w.encounter_id, at(30), None)
    bodies = _bodies(engine)
    h = sha(f"{key}:1:{aria.roll_index}")
    face = d20(h)
    true = f"#{aria.roll_index} revealed {h} 1d20+3 = {face + 3} [{face}]"
    assert true in bodies[-1] and check_hidden(read_hidden(bodies)).ok

    def problems(old: str, new: str) -> list[str]:
        forged = [*bodies[:-1], bodies[-1].replace(old, new)]
        assert forged[-1] != bodies[-1]
        return check_hidden(read_hidden(forged)).problems

    other = face % 20 + 1
    found = problems(true, true.replace(f"= {face + 3} [{face}]", f"= {other + 3} [{other}]"))
    assert any("the value was changed" in p for p in found), found
    found = problems(true, true.replace("1d20+3 =", "1d20+13 =").replace(f"= {face + 3} ", f"= {face + 13} "))
    assert any(f"round 1: hidden roll #{aria.roll_index}" in p and "forged reveal" in p for p in found), found
    fake = sha("another key")
    found = problems(f"hidden-key={key}", f"hidden-key={fake}")
    assert any("does not hash to the one committed when the encounter opened" in p for p in found), found
    assert any("not rolled with the seed the hidden key gives" in p for p in found), found


def test_DICE_2_a_roll_revealed_before_its_rounds_result_checks_against_the_key(engine):
    """The narrator reveals Aria's secret roll while round 1 is still open: the reveal reply
    and the round's result show it revealed (its seal was never published), and the key at
    the end vouches for its seed."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "[roll hidden]1d20+3 stealth[/roll]")], now=at(1))
    with session_scope(engine) as s:
        notice = secret.reveal(s, w.encounter_id, None, None, at(2))
        assert notice is not None
    result = w.resolve(rid, at(25))
    rows, key = _secret_rows(engine, rid)
    aria = next(r for r in rows if r.hidden)
    h = sha(f"{key}:1:{aria.roll_index}")
    with session_scope(engine) as s:
        body = s.get(m.Reply, result).body
    assert f"#{aria.roll_index} revealed {h} 1d20+3 = {d20(h) + 3} [{d20(h)}]" in body
    assert f"#{aria.roll_index} hidden" not in body and "rolled in secret" not in body
    assert check_hidden(read_hidden(_bodies(engine))).ok
    with session_scope(engine) as s:
        service.end_encounter(s, w.encounter_id, at(30), None)
    bodies = _bodies(engine)
    report = check_hidden(read_hidden(bodies))
    assert report.ok and report.revealed == 1, report.problems
    forged_seed = sha("chosen later")
    forged = [b.replace(h, forged_seed) for b in bodies]
    assert any("not rolled with the seed the hidden key gives" in p
               for p in check_hidden(read_hidden(forged)).problems)
