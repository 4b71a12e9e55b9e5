"""DICE-1 (issue 16): chained commitments and the published dice proof, through the round
service. An encounter's seeds are links of one hash chain published when it opens; every
reply carries the proof block; the checker (pbp.verify_proof, no database) passes a clean
encounter and names each tampering: a total changed in a sentence or in the block, an
altered seed, a round re-rolled with a fresh seed by someone with database access.

Expected values come from the chain's definition (PROOF.md, docs/verifiable-dice.md):
``s_L = anchor``, ``s_(k-1) = sha256(s_k)``, round k rolls with ``s_k``; they are
recomputed here with hashlib, not read from the program's output.
"""

from __future__ import annotations

import hashlib
import re
import secrets

import pytest
from click.testing import CliRunner
from sqlalchemy import delete, select

from pbp.cli import cli
from pbp.panel import overrides as panel_overrides
from pbp.rounds import lifecycle, service
from pbp.rounds.replies import rewrite_reply
from pbp.rounds.verify import verify_replies
from pbp.store import models as m
from pbp.store import queries
from pbp.store.db import session_scope
from pbp.verify_proof import check, read_blocks

from .world import at, make_world, post

ATTACK = {"en": "I attack Goblin Snag with my sword [roll]1d20+5[/roll]",
          "pt": "Ataco o Goblin Snag com a espada [roll]1d20+5[/roll]",
          "ru": "Атакую Goblin Snag мечом [roll]1d20+5[/roll]"}
NPC = {"en": "Goblin Rot: attacks Bram with the dagger",
       "pt": "Goblin Rot: ataca Bram com a adaga",
       "ru": "Goblin Rot: атакует Bram кинжалом"}
CHAIN_WORDS = {"en": "Dice chain for this encounter: {chain}.",
               "pt": "Cadeia de dados deste encontro: {chain}.",
               "ru": "Цепочка костей этой схватки: {chain}."}
KEPT_WORDS = {"en": "The narrator resolved this round again: every roll made before is kept",
              "pt": "O narrador resolveu esta rodada de novo: todas as rolagens feitas antes foram mantidas",
              "ru": "Ведущий разрешил этот раунд заново: все сделанные ранее броски сохранены"}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def hashed(text: str, times: int) -> str:
    for _ in range(times):
        text = sha(text)
    return text


def play_round(w, rid: int, start: float, lang: str = "en") -> None:  # type: ignore[no-untyped-def]
    """alice attacks with a tag roll, the narrator has a goblin attack; resolved at the
    deadline (24 hours after the round opened)."""
    w.ingest([post(f"a{rid}", "alice", at(start + 1), ATTACK[lang]),
              post(f"g{rid}", "GM", at(start + 2), NPC[lang], fmt="text")], now=at(start + 2))
    w.resolve(rid, at(start + 25))


def two_rounds(engine, lang: str = "en", platform: str = "bbcode"):  # type: ignore[no-untyped-def]
    """Rounds 1 and 2 resolved (round 3 open, unless the fight ended): (world, [ids])."""
    w = make_world(engine, language=lang, platform=platform)
    r1 = w.open(at(0))
    play_round(w, r1, 0, lang)
    with session_scope(engine) as s:
        r2 = queries.current_round(s, w.encounter_id).id
    play_round(w, r2, 25, lang)
    return w, [r1, r2]


def replies(w) -> list[str]:  # type: ignore[no-untyped-def]
    with session_scope(w.engine) as s:
        return queries.encounter_replies(s, w.encounter_id)


def resolution(w, rid: int) -> str:  # type: ignore[no-untyped-def]
    return w.reply(f"{rid}:resolution").body


def test_dice1_each_round_rolls_with_the_next_link_of_the_chain_published_at_the_opening(engine, db_url):
    """DICE-1: chain = anchor hashed L times; round 1's seed hashes to the chain, round 2's
    to round 1's; the opening publishes the chain (words and block); the proof check and
    ``pbp verify --encounter`` pass on the untouched encounter."""
    w, (r1, r2) = two_rounds(engine)
    with session_scope(engine) as s:
        enc = s.get(m.Encounter, w.encounter_id)
        anchor, length, chain, key = enc.dice_anchor, enc.dice_chain_length, enc.dice_chain, enc.hidden_key
        seeds = [s.get(m.Round, r).seed for r in (r1, r2)]
        commitments = [s.get(m.Round, r).commitment for r in (r1, r2)]
        rolls = int(len(list(s.scalars(select(m.RollRecord.id).where(m.RollRecord.round_id.in_((r1, r2)))))))
    assert re.fullmatch(r"[0-9a-f]{64}", anchor) and length == 1000
    assert chain == hashed(anchor, 1000)
    assert seeds == [hashed(anchor, 999), hashed(anchor, 998)]
    assert sha(seeds[0]) == chain and sha(seeds[1]) == seeds[0]
    assert commitments == [chain, seeds[0]]
    opening = w.reply(f"{r1}:opening").body
    assert CHAIN_WORDS["en"].format(chain=chain) in opening
    assert f"pbp-dice v1 encounter chain={chain} hidden={sha(key)}" in opening
    assert f"pbp-dice v1 round=1 commit={chain}" in opening
    report = check(read_blocks(replies(w)))
    assert report.ok, report.lines()
    assert report.chain == chain and report.rounds[:2] == [1, 2]
    assert report.rolls == rolls and report.shown >= 4   # initiative, tag, attack, defense...
    with session_scope(engine) as s:
        assert service.verify_round(s, r1).ok and service.verify_round(s, r2).ok
    result = CliRunner().invoke(cli, ["verify", "--db", db_url, "--encounter", str(w.encounter_id)])
    assert result.exit_code == 0, result.output
    assert f"dice chain {chain}: rounds 1, 2" in result.output and "every check passes" in result.output


@pytest.mark.parametrize("lang", ["pt", "ru", "en"])
def test_dice1_the_opening_says_the_chain_in_the_campaign_language(engine, lang):
    """DICE-1: the chain in words, in Portuguese, Russian and English (posts in each)."""
    w, (r1, _r2) = two_rounds(engine, lang=lang, platform="markdown")
    with session_scope(engine) as s:
        chain = s.get(m.Encounter, w.encounter_id).dice_chain
    assert CHAIN_WORDS[lang].format(chain=chain) in w.reply(f"{r1}:opening").body
    report = check(read_blocks(replies(w)))
    assert report.ok, report.lines()


def test_dice1_a_total_changed_in_the_sentences_is_named(engine):
    """DICE-1 tampering: alice's tag roll shown with a total one higher in the human text
    (the block untouched) is not what the seed gives: named with the round and the text."""
    w, (r1, _r2) = two_rounds(engine)
    with session_scope(engine) as s:
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == r1, m.RollRecord.kind == "tag"))
        shown, total = tag.breakdown, tag.total
    texts = replies(w)
    body = resolution(w, r1)
    forged = shown.replace(f"= {total}", f"= {total + 1}")
    assert shown in body
    texts[texts.index(body)] = body.replace(shown, forged, 1)
    report = check(read_blocks(texts))
    assert f"round 1: the reply says '{forged}', which is not what any roll of the round " \
           "gives under its seed" in report.problems


def test_dice1_a_total_changed_in_the_block_is_named(engine):
    """DICE-1 tampering: the tag roll's line in the block says a total one higher."""
    w, (r1, _r2) = two_rounds(engine)
    with session_scope(engine) as s:
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == r1, m.RollRecord.kind == "tag"))
        i, expr, total, faces = tag.roll_index, tag.expression, tag.total, list(tag.faces)
    line = f"#{i} {expr} = {total} [{','.join(map(str, faces))}]"
    texts = replies(w)
    body = resolution(w, r1)
    assert line in body
    texts[texts.index(body)] = body.replace(line, f"#{i} {expr} = {total + 1} [{','.join(map(str, faces))}]")
    report = check(read_blocks(texts))
    assert (f"round 1: roll #{i} '{expr}': the reply shows {total + 1} {faces}, the seed gives "
            f"{total} {faces}") in report.problems


def test_dice1_an_altered_seed_is_named_in_the_replies_and_in_the_database(engine):
    """DICE-1 tampering: round 1's revealed seed replaced (in the reply, then in the
    database): it does not hash to the commitment nor to the chain."""
    w, (r1, r2) = two_rounds(engine)
    with session_scope(engine) as s:
        seed = s.get(m.Round, r1).seed
    other = sha("a seed someone liked better")
    texts = [t.replace(f"round=1 seed={seed}", f"round=1 seed={other}") for t in replies(w)]
    report = check(read_blocks(texts))
    assert "round 1: the seed does not hash to the chain: the round was rolled with a seed " \
           "outside the chain" in report.problems
    assert any(p.startswith("round 1: the seed revealed does not hash to the commitment") for p in report.problems)
    with session_scope(engine) as s:
        s.get(m.Round, r1).seed = other
    with session_scope(engine) as s:
        db = service.verify_round(s, r1)
        after = service.verify_round(s, r2)
    assert "the seed does not hash to the encounter's dice chain: the round was rolled with a " \
           "seed outside the chain" in db.problems
    assert "the seed does not hash to round 1's seed: the round was rolled with a seed " \
           "outside the chain" in after.problems


def _reopen_with_a_fresh_seed(w, r1: int) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """What someone with database access does to re-roll round 2: drop the open round and
    open it again with a seed of their own choosing."""
    fresh = secrets.token_hex(32)
    with session_scope(w.engine) as s:
        r2 = queries.current_round(s, w.encounter_id)
        assert r2.number == 2 and r2.state == "open"
        s.execute(delete(m.Round).where(m.Round.id == r2.id))
        rid = service.open_round(s, w.encounter_id, at(25), seed=fresh)
    return rid, fresh


def test_dice1_a_round_re_rolled_with_a_fresh_seed_breaks_the_chain(engine, db_url):
    """DICE-1 tampering: round 2 re-opened with a fresh random seed through the database,
    then played: its seed hashes to neither the commitment round 1's reply published nor
    round 1's seed; the check, ``pbp verify`` and its exit status say so."""
    w = make_world(engine)
    r1 = w.open(at(0))
    play_round(w, r1, 0)
    rid, fresh = _reopen_with_a_fresh_seed(w, r1)
    play_round(w, rid, 25)
    report = check(read_blocks(replies(w)))
    assert "round 2: the seed does not hash to round 1's seed: the round was rolled with a seed " \
           "outside the chain" in report.problems
    with session_scope(engine) as s:
        assert "the seed does not hash to round 1's seed: the round was rolled with a seed " \
               "outside the chain" in service.verify_round(s, rid).problems
    result = CliRunner().invoke(cli, ["verify", "--db", db_url, "--encounter", str(w.encounter_id)])
    assert result.exit_code == 1
    assert "round 2: the seed does not hash to round 1's seed" in result.output


def test_dice1_a_fresh_seed_announced_in_a_rewritten_reply_still_breaks_the_chain(engine):
    """DICE-1 tampering: the re-roller also re-renders round 1's (unposted) result so it
    commits to the fresh seed: the commitment is then not round 1's seed, and it says so."""
    w = make_world(engine)
    r1 = w.open(at(0))
    play_round(w, r1, 0)
    rid, fresh = _reopen_with_a_fresh_seed(w, r1)
    with session_scope(engine) as s:
        rnd = s.get(m.Round, r1)
        rewrite_reply(s, rnd, "resolution", at(25), queries.reply_parts(s, r1, "resolution"))
    assert f"round=2 commit={sha(fresh)}" in resolution(w, r1)
    play_round(w, rid, 25)
    with session_scope(engine) as s:
        report = verify_replies(s, w.encounter_id)
    assert f"round 2: its commitment {sha(fresh)} is not round 1's seed: the round was " \
           "announced with a seed outside the chain" in report.problems


def test_dice1_an_encounter_from_before_the_chain_keeps_per_round_seeds(engine):
    """DICE-1: an encounter made before the migration (no anchor, its first round opened
    with a seed of its own) keeps per-round seeds; its replies check out, as "no chain
    (older encounter)", each seed against its own commitment."""
    w = make_world(engine)
    with session_scope(engine) as s:
        r1 = service.open_round(s, w.encounter_id, at(0), seed="an older round seed")
        enc = s.get(m.Encounter, w.encounter_id)
        assert enc.dice_anchor is None and enc.dice_chain is None
    play_round(w, r1, 0)
    with session_scope(engine) as s:
        r2 = queries.current_round(s, w.encounter_id)
        assert r2.number == 2 and r2.commitment == sha(r2.seed)
        assert r2.seed != "an older round seed"
    assert "Dice chain" not in w.reply(f"{r1}:opening").body
    report = check(read_blocks(replies(w)))
    assert report.ok, report.lines()
    assert report.chain is None and report.lines()[0].startswith("no chain (older encounter)")


@pytest.mark.parametrize("lang", ["pt", "ru", "en"])
def test_dice1_a_re_resolved_round_says_every_roll_is_kept_and_still_checks(engine, lang):
    """DICE-1: the narrator overrides a roll and resolves round 1 again before its reply is
    posted: every roll line of the block is the same as before, the reply says the rolls
    were kept (in the campaign's language), and the proof check passes."""
    w = make_world(engine, language=lang)
    r1 = w.open(at(0))
    play_round(w, r1, 0, lang)
    block = re.compile(r"^#\d+ .*\]$", re.M)
    before = block.findall(resolution(w, r1))
    with session_scope(engine) as s:
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == r1, m.RollRecord.kind == "tag"))
        panel_overrides.set_roll(s, tag.id, -20, "typo", None)
        service.reresolve_round(s, r1, at(26))
    body = resolution(w, r1)
    assert KEPT_WORDS[lang] in body
    assert block.findall(body)[:len(before)] == before
    report = check(read_blocks(replies(w)))
    assert report.ok, report.lines()


def test_dice1_the_block_reads_back_after_a_visitors_html_to_text(engine):
    """DICE-1: what a forum's HTML-to-text leaves of a reply (code tags gone, nbsp and
    doubled spaces, lines indented) reads to the same blocks, and checks the same."""
    w, _ids = two_rounds(engine)
    texts = replies(w)

    def visitor(text: str) -> str:
        text = text.replace("[code]", "\n").replace("[/code]", "\n")
        return "\n".join("\u00a0 " + line.replace(" ", "\u00a0 ") for line in text.splitlines())

    clean, mangled = read_blocks(texts), read_blocks([visitor(t) for t in texts])
    assert [b.lines for b in mangled] == [b.lines for b in clean]
    report = check(mangled)
    assert report.ok, report.lines()
    assert report.shown == check(clean).shown > 0


def test_dice1_a_reply_cut_into_parts_keeps_its_block_readable(engine):
    """DICE-1: a resolution too long for the platform is cut into parts (the block with
    it): read in order, the parts give the whole block and the check passes."""
    w = make_world(engine)
    with session_scope(engine) as s:
        s.get(m.Thread, w.thread_id).options = {"narrators": ["GM"], "max_reply_chars": 700}
    r1 = w.open(at(0))
    play_round(w, r1, 0)
    with session_scope(engine) as s:
        parts = queries.reply_parts(s, r1, "resolution")
        assert len(parts) >= 3
        rolls = len(list(s.scalars(select(m.RollRecord.id).where(m.RollRecord.round_id == r1))))
    report = check(read_blocks(replies(w)))
    assert report.ok, report.lines()
    assert report.rolls == rolls


def test_dice1_the_seeded_hook_gives_the_anchor(engine):
    """DICE-1: ``lifecycle.seeded`` (pbp simulate, benchmarks) now gives the encounter's
    anchor: the same source, the same chain and the same seeds."""
    chains = []
    for slug in ("one", "two"):
        with lifecycle.seeded(lambda: "fixed secret"):
            w = make_world(engine, slug=slug)
            w.open(at(0))
        with session_scope(engine) as s:
            enc = s.get(m.Encounter, w.encounter_id)
            chains.append((enc.dice_anchor, enc.dice_chain))
    assert chains[0] == chains[1] == (sha("fixed secret"), hashed(sha("fixed secret"), 1000))


def test_dice1_the_closing_reply_reveals_the_closed_round_and_the_hidden_key(engine):
    """DICE-1/DICE-2: the narrator ends the encounter while round 2 is open: the closing
    reply reveals round 2's seed (the next link) with its rolls, and the hidden key whose
    SHA-256 the opening published; the whole encounter still checks."""
    w = make_world(engine)
    r1 = w.open(at(0))
    play_round(w, r1, 0)
    with session_scope(engine) as s:
        r2 = queries.current_round(s, w.encounter_id)
        seed2, key, chain = r2.seed, r2.encounter.hidden_key, r2.encounter.dice_chain
        closing_id = service.end_encounter(s, w.encounter_id, at(30), None)
        closing = s.get(m.Reply, closing_id).body
        s1 = queries.current_round(s, w.encounter_id, 1).seed
    assert sha(seed2) == s1
    assert f"pbp-dice v1 round=2 seed={seed2}" in closing
    assert f"pbp-dice v1 hidden-key={key}" in closing
    assert f"hidden={sha(key)}" in w.reply(f"{r1}:opening").body
    report = check(read_blocks(replies(w)))
    assert report.ok, report.lines()
    assert report.chain == chain and report.rounds == [1, 2]
    forged = [t.replace(f"hidden-key={key}", f"hidden-key={sha('another key')}") for t in replies(w)]
    assert "the hidden key published at the end does not hash to the one committed when the " \
           "encounter opened" in check(read_blocks(forged)).problems


def test_dice1_a_correction_after_posting_lists_every_roll_again_and_checks(engine):
    """DICE-1: a correction of a posted round keeps every roll (issue 11 item 6); its reply
    carries the round's seed and every roll by index again, and the encounter checks."""
    w = make_world(engine)
    r1 = w.open(at(0))
    play_round(w, r1, 0)
    with session_scope(engine) as s:
        for r in s.scalars(select(m.Reply).where(m.Reply.round_id == r1)):
            r.state = "sent"
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == r1, m.RollRecord.kind == "tag"))
        seed = s.get(m.Round, r1).seed
        panel_overrides.set_roll(s, tag.id, -20, "the tag was a typo", None)
        service.correct_round(s, r1, "typo fix", None, at(30))
        count = len(list(s.scalars(select(m.RollRecord.id).where(m.RollRecord.round_id == r1))))
        correction = s.scalar(select(m.Reply).where(m.Reply.round_id == r1, m.Reply.kind == "correction")).body
    assert f"pbp-dice v1 round=1 seed={seed}" in correction
    assert len(re.findall(r"^#\d+ ", correction, re.M)) == count
    report = check(read_blocks(replies(w)))
    assert report.ok, report.lines()


def test_dice1_pbp_verify_checks_the_replies_as_posted(engine, db_url, tmp_path):
    """DICE-1: ``pbp verify --published`` runs the proof check over the text given (the
    replies as posted, one after the other): clean, exit 0; a total changed in a
    sentence, exit 1 with the round and the forged breakdown named."""
    w, (r1, _r2) = two_rounds(engine)
    with session_scope(engine) as s:
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == r1, m.RollRecord.kind == "tag"))
        shown, total = tag.breakdown, tag.total
    page = tmp_path / "thread.txt"
    page.write_text("\n".join(replies(w)), encoding="utf-8")
    args = ["verify", "--db", db_url, "--encounter", str(w.encounter_id), "--published", str(page)]
    clean = CliRunner().invoke(cli, args)
    assert clean.exit_code == 0, clean.output
    forged = shown.replace(f"= {total}", f"= {total + 1}")
    page.write_text(page.read_text(encoding="utf-8").replace(shown, forged, 1), encoding="utf-8")
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 1
    assert f"FAIL round 1: the reply says '{forged}'" in result.output


def test_dice1_a_surprise_round_zero_takes_the_first_link(engine):
    """DICE-1 with a surprise round (BEY-1, round 0): round 0 rolls with link 1 (its
    commitment is the chain), round 1 with link 2; the chain checks through both."""
    w = make_world(engine, ruleset="beyonders", surprise=True, surprised=["gob1", "gob2"])
    r0 = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword"),
              post("p2", "GM", at(1), "Goblin Snag: attacks Aria")], now=at(1))
    w.resolve(r0, at(25))
    with session_scope(engine) as s:
        enc = s.get(m.Encounter, w.encounter_id)
        zero, one = s.get(m.Round, r0), queries.current_round(s, w.encounter_id)
        assert (zero.number, one.number) == (0, 1)
        assert zero.seed == hashed(enc.dice_anchor, 999) and one.seed == hashed(enc.dice_anchor, 998)
        assert zero.commitment == enc.dice_chain
    report = check(read_blocks(replies(w)))
    assert report.ok, report.lines()
    assert report.rounds == [0, 1]
