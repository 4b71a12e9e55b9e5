"""SCALE-6: a poll's posts are ingested as one batch under one savepoint, and still no roll
is lost or made twice: on a clash with another worker the batch is read again guarded, and
a post whose reading fails is left out (stored unread) while the others are read.

The expected figures come from the posts themselves (PBP-4: one roll per roll tag, indexes
consecutive in the round without a gap), not from a run of the program.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, select, text

from pbp.rounds import batch, ingest, rolls
from pbp.store import ingest_reads
from pbp.store import models as m
from pbp.store.db import session_scope
from tests.sql_log import starting, statements

from .world import at, make_world, post

#: three roll tags in all: one in p1, two in p2; p3 is the narrator's NPC attack
POSTS = [post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]"),
         post("p2", "bob", at(2), "I attack Goblin Rot [roll]1d20+5[/roll] [roll]1d8[/roll]"),
         post("p3", "GM", at(3), "Goblin Snag: attacks Aria with the dagger")]


def break_bobs_post(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Reading p2 (bob's) raises, as a bug met in one post would; the real reader returned."""
    real = ingest.process_post

    def broken_for_bob(session, post, **kw):  # type: ignore[no-untyped-def]
        if post.platform_id == "p2":
            raise RuntimeError("a bug met in bob's post")
        return real(session, post, **kw)

    monkeypatch.setattr(ingest, "process_post", broken_for_bob)
    return real


def tag_rolls(engine: Engine, round_id: int) -> list[tuple[int, str | None, int | None]]:
    """(index, post platform id, tag) of the round's rolls, by index."""
    with session_scope(engine) as s:
        rows = s.execute(select(m.RollRecord.roll_index, m.Post.platform_id, m.RollRecord.tag_index)
                         .outerjoin(m.Post, m.Post.id == m.RollRecord.post_id)
                         .where(m.RollRecord.round_id == round_id).order_by(m.RollRecord.roll_index))
        return [tuple(r) for r in rows]  # type: ignore[misc]


def test_scale_6_a_batch_takes_one_savepoint_and_keeps_every_roll(engine: Engine) -> None:
    w = make_world(engine)
    rid = w.open(at(0))
    with statements(engine, only=starting("SAVEPOINT")) as seen:
        ids = w.ingest(POSTS, now=at(3))
    assert len(ids) == 3
    # before SCALE-6: one per post and per roll (6 here); a poll's fresh session has nothing
    # of its own to keep, so the batch is its transaction and takes none
    assert seen == [], seen
    got = tag_rolls(engine, rid)
    assert [i for i, _, _ in got] == list(range(len(got)))      # no gap, no double
    assert [(p, t) for _, p, t in got if p] == [("p1", 0), ("p2", 0), ("p2", 1)]
    before = w.count(m.RollRecord)
    w.ingest(POSTS, now=at(4))    # the same posts again: nothing new
    assert w.count(m.RollRecord) == before


@pytest.mark.parametrize("flushed", [True, False])
def test_scale_6_a_batch_after_other_work_takes_a_savepoint_and_keeps_that_work(
        engine: Engine, monkeypatch: pytest.MonkeyPatch, flushed: bool) -> None:
    """A session that already did something (written, or only added) keeps it: the batch
    runs under a savepoint, and the pass undone for a post that cannot be read undoes the
    savepoint only, not the caller's work."""
    w = make_world(engine)
    w.open(at(0))
    break_bobs_post(monkeypatch)
    with statements(engine, only=starting("SAVEPOINT")) as seen, session_scope(engine) as s:
        s.add(m.Post(thread_id=w.thread_id, platform_id="before", author="carol", posted_at=at(1),
                     body="seen before the batch", text="seen before the batch", fmt="text",
                     content_hash="x", revisions_seen=1, first_seen_at=at(1), last_seen_at=at(1)))
        if flushed:
            s.flush()
        ingest.ingest_posts(s, w.thread_id, POSTS, now=at(3))
    assert len(seen) >= 2, seen      # the first pass's, undone, then the second's (and p2's own)
    with session_scope(engine) as s:
        stored = set(s.scalars(select(m.Post.platform_id)))
    assert stored == {"before", "p1", "p2", "p3"}


def test_scale_6_a_clash_on_a_roll_index_reads_the_batch_again_and_loses_no_roll(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another worker took the next index after this batch read the round's top index: the
    database refuses the double, the batch is read again guarded, the rolls go on at 1."""
    w = make_world(engine)
    rid = w.open(at(0))
    opening = len(tag_rolls(engine, rid))   # the round's own rolls (initiative), 0..k-1
    with session_scope(engine) as s:   # the other worker's roll, index k
        rolls.make_roll(s, s.get_one(m.Round, rid), "1d20", kind="table", actor="snag")
    calls = {"stale": 0, "guarded": 0}
    real_count, real_next = batch.count_from, rolls.next_index

    def stale_once(session, round_id, top):  # type: ignore[no-untyped-def]
        # the round's top index as read before the other worker's roll
        calls["stale"] += 1
        real_count(session, round_id, opening - 1 if opening else None)

    def counted(session, round_id):  # type: ignore[no-untyped-def]
        calls["guarded"] += 1
        return real_next(session, round_id)

    monkeypatch.setattr(batch, "count_from", stale_once)
    monkeypatch.setattr(rolls, "next_index", counted)

    ids = w.ingest(POSTS, now=at(3))
    assert len(ids) == 3
    assert calls["stale"] and calls["guarded"]   # a stale count, then the guarded pass ran
    got = tag_rolls(engine, rid)
    assert [i for i, _, _ in got] == list(range(opening + 4))   # no gap, no double
    assert got[opening][1] is None                               # the other worker's stays
    assert [(p, t) for _, p, t in got[opening + 1:]] == [("p1", 0), ("p2", 0), ("p2", 1)]
    assert w.count(m.Post) == 3


def test_scale_6_a_post_that_cannot_be_read_is_stored_unread_and_the_others_are_read(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    w = make_world(engine)
    rid = w.open(at(0))
    real = break_bobs_post(monkeypatch)
    ids = w.ingest(POSTS, now=at(3))
    assert len(ids) == 3                                         # p2 kept too
    assert w.count(m.Post) == 3
    assert [p for _, p, _ in tag_rolls(engine, rid) if p] == ["p1"]   # p2's tags not rolled
    with session_scope(engine) as s:
        p2 = s.scalar(select(m.Post).where(m.Post.platform_id == "p2"))
        assert p2 is not None and p2.body.startswith("I attack Goblin Rot")
        authors = set(s.scalars(select(m.Post.platform_id).join(m.Declaration, m.Declaration.post_id == m.Post.id)))
    assert authors == {"p1", "p3"}
    monkeypatch.setattr(ingest, "process_post", real)             # fixed: bob edits his post
    edited = post("p2", "bob", at(2), "I attack Goblin Rot [roll]1d20+5[/roll] [roll]1d8[/roll] !",
                  change="edited", edited_at=at(2, 30))
    w.ingest([edited], now=at(4))
    assert [p for _, p, _ in tag_rolls(engine, rid) if p] == ["p1", "p2", "p2"]


@pytest.mark.parametrize("bad", ["\x00", "\ud83d"], ids=["nul", "lone-surrogate"])
def test_a_post_holding_an_unstorable_character_is_read_and_stalls_nothing(
        engine: Engine, bad: str) -> None:
    """Bad input loses nothing: a post holding a NUL character (PostgreSQL's text cannot
    hold one, and refused the whole batch at every poll) or a lone surrogate (as a JSON
    API may send "\\ud83d" alone; UTF-8 cannot hold one, and the record was not even
    made) is stored with U+FFFD in its place, declared and rolled; the other post of the
    batch too, on both databases."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), f"I attack Goblin Snag{bad} [roll]1d20+5[/roll]"),
              post("p2", "bob", at(1, 1), "I attack Goblin Rot [roll]1d20+5[/roll]")], now=at(2))
    with session_scope(engine) as s:
        stored = s.scalar(select(m.Post).where(m.Post.platform_id == "p1"))
        assert stored is not None and bad not in stored.body + stored.text
        assert "Goblin Snag\ufffd" in stored.text
    assert [p for _, p, _ in tag_rolls(engine, rid)][-2:] == ["p1", "p2"]
    decls = w.declarations(rid)
    assert decls["aria"][-1].actions[0]["target"] == "gob1"
    assert decls["bram"][-1].actions[0]["target"] == "gob2"


def test_scale_6_the_hints_read_finds_deleted_posts_without_the_threads_history(
        engine: Engine) -> None:
    """SCALE-6, DICE-3: the read every batch makes of the thread's deleted posts (does one
    hold a roll to give back?) searches the index of (thread, deleted_at), on a range that
    holds only deleted posts, not every post of the thread (the cost grew with each
    round). Asked of each database's own planner."""
    from pbp.store.ingest_reads import _HINTS

    w = make_world(engine)
    compiled = _HINTS.compile(engine)
    with engine.connect() as c:
        if engine.dialect.name == "sqlite":
            params = compiled.construct_params({"campaign": w.campaign_id, "thread": w.thread_id})
            plan = " ".join(str(r[3]) for r in c.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + str(compiled),
                tuple(params[k] for k in compiled.positiontup or ())))
            assert "ix_posts_thread_deleted (thread_id=? AND deleted_at>?)" in plan, plan
        else:   # a long fight's history (3,000 posts, 3 deleted), as the planner sees it
            c.exec_driver_sql(
                "INSERT INTO posts (thread_id, platform_id, author, posted_at, body, text, fmt, "
                "content_hash, revisions_seen, first_seen_at, last_seen_at, is_ours, deleted_at) "
                "SELECT %(thread)s, 'h' || n, 'alice', now(), 'b', 'b', 'text', 'h', 1, now(), "
                "now(), false, CASE WHEN n %% 1000 = 0 THEN now() END "
                "FROM generate_series(1, 3000) AS n", {"thread": w.thread_id})
            c.exec_driver_sql("ANALYZE posts")
            c.commit()
            literal = _HINTS.params(campaign=w.campaign_id, thread=w.thread_id).compile(
                engine, compile_kwargs={"literal_binds": True})
            plan = " ".join(r[0] for r in c.execute(text(f"EXPLAIN {literal}")))
            assert "ix_posts_thread_deleted" in plan and "deleted_at IS NOT NULL" in plan, plan


def test_scale_6_a_batchs_new_posts_are_read_ahead_once_each(engine: Engine) -> None:
    """SCALE-6: the batch's new posts are read together before their rolls and rows, and
    each part of a post is parsed once (not again when the post is declared): two players'
    posts and the narrator's post for both goblins are 1 + 1 + 2 parser calls; the
    declarations are those of a post read in place (targets, rolls, one a combatant)."""
    from pbp.parse import parse_post
    from pbp.rounds import service

    w = make_world(engine)
    rid = w.open(at(0))
    texts: list[str] = []

    def counting(text: str, **kw: Any) -> Any:
        texts.append(text)
        return parse_post(text, **kw)

    with session_scope(engine) as s:
        service.ingest_posts(s, w.thread_id, [
            post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]"),
            post("p2", "bob", at(1, 1), "I attack Goblin Rot [roll]1d20+5[/roll]"),
            post("g1", "GM", at(1, 2), "Goblin Snag: attacks Aria [roll]1d20+2[/roll]\n"
                                       "Goblin Rot: attacks Bram [roll]1d20+2[/roll]")],
            now=at(2), parse=counting)
    assert len(texts) == 4, texts
    decls = w.declarations(rid)
    assert [(k, [a["target"] for a in decls[k][-1].actions]) for k in sorted(decls)] == [
        ("aria", ["gob1"]), ("bram", ["gob2"]), ("gob1", ["aria"]), ("gob2", ["bram"])]
    assert [p for _, p, _ in tag_rolls(engine, rid)][-4:] == ["p1", "p2", "g1", "g1"]


def test_scale_6_the_live_rounds_rosters_and_hints_read_as_one_statement_equal_each_read(
        engine: Engine) -> None:
    """SCALE-6: a batch reads the live encounters' rounds, their combatants and the hints
    in one statement (the combatants and hints as JSON); what it finds is what the three
    reads find alone, value for value and type for type (a whole-number initiative stays
    a float, a flag a bool), with every kind of hint present: a narrator's names, a
    player on the ladder, an absence, a deleted post's tag roll not given back (DICE-3,
    STALL-1, STALL-3)."""
    w = make_world(engine)
    w.open(at(0))
    w.ingest([post("d1", "alice", at(1), "I attack Goblin Snag [roll]1d20+3[/roll]")], now=at(2))
    w.ingest([post("d1", "alice", at(1), "", change="deleted")], now=at(3))
    with session_scope(engine) as s:
        narrator = m.Narrator(username="gm2", password_hash="x")
        s.add(narrator)
        s.flush()
        s.add(m.CampaignNarrator(campaign_id=w.campaign_id, narrator_id=narrator.id,
                                 platform_names=["Mestre", "GM Two"]))
        s.add(m.LadderPlayer(campaign_id=w.campaign_id, player="bob", missed_in_row=2))
        s.add(m.Absence(campaign_id=w.campaign_id, player="Carol", starts_at=at(0),
                        until=at(0) + timedelta(days=3)))
        goblin = s.scalar(select(m.Combatant).where(m.Combatant.key == "gob1"))
        goblin.initiative, goblin.down = 12.0, True
    with session_scope(engine) as s:
        rows = ingest_reads.live_rounds(s, w.thread_id)
        alone = ({w.encounter_id: ingest_reads.combatants_as_stored(s, w.encounter_id)},
                 ingest_reads.batch_hints(s.connection(), w.campaign_id, w.thread_id))
        together = ingest_reads.live_rounds_with_rosters(s, w.thread_id, w.campaign_id)
        assert [(e.id, r and r.id, top) for e, r, top in together.rows] == [
            (e.id, r and r.id, top) for e, r, top in rows]
    assert together.rosters == alone[0]
    roster = together.rosters[w.encounter_id]
    assert [[type(v) for v in row] for row in roster] == [
        [type(v) for v in row] for row in alone[0][w.encounter_id]]
    assert [row[1] for row in roster] == ["aria", "bram", "cyd", "gob1", "gob2"]
    assert roster[3][7] == 12.0 and roster[3][8] is True
    for hints in (together.hints, alone[1]):
        assert hints is not None
        assert hints.narrators == {"mestre", "gm two"}
        assert hints.ladder == {"bob"} and hints.absent == {"carol"}
        assert {actor for _, actor in hints.repost} == {"aria"}
    assert vars(together.hints) == vars(alone[1])


def test_scale_6_the_thread_read_with_its_stored_posts_equals_each_read(engine: Engine) -> None:
    """SCALE-6: a batch reads its thread (with the campaign) and the stored posts among
    its records in one statement, the posts as JSON; what it finds is what the two reads
    find alone: ids, content hashes, the aware UTC times (posted, deleted), a post of
    the thread only, and no post for an id never stored; more ids than a chunk take the
    two reads."""
    w = make_world(engine)
    w.open(at(0))
    w.ingest([post("k1", "alice", at(1, 7), "I attack Goblin Snag [roll]1d20+3[/roll]"),
              post("k2", "bob", at(1, 9), "I wait")], now=at(2))
    w.ingest([post("k2", "bob", at(1, 9), "", change="deleted")], now=at(3, 4))
    with session_scope(engine) as s:   # the same platform id in another thread: not ours
        other = m.Thread(campaign_id=w.campaign_id, kind="file", url="other://", platform="bbcode")
        s.add(other)
        s.flush()
        s.add(m.Post(thread_id=other.id, platform_id="k1", author="zed", posted_at=at(1),
                     body="x", text="x", content_hash="zzz", first_seen_at=at(1),
                     last_seen_at=at(1)))
    ids = ["k1", "k2", "never"]
    for asked in (ids, ids + [f"x{i}" for i in range(ingest_reads.CHUNK)]):
        with session_scope(engine) as s:
            thread, together = ingest_reads.thread_and_known(s, w.thread_id, asked)
            alone = ingest_reads.known_posts(s, w.thread_id, asked)
            assert thread is not None and thread.id == w.thread_id
            assert thread.campaign.id == w.campaign_id
        assert together == alone
        assert sorted(together) == ["k1", "k2"]
        assert together["k1"].posted_at == at(1, 7) and together["k1"].deleted_at is None
        assert together["k2"].deleted_at == at(3, 4)
        assert together["k1"].content_hash != "zzz"
    with session_scope(engine) as s:
        assert ingest_reads.thread_and_known(s, w.thread_id + 999, ids) == (None, {})


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_scale_6_a_post_another_worker_stores_while_the_batch_reads_is_kept_once(
        engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """SCALE-6 on PostgreSQL, where a batch takes its new posts' ids with the live rounds
    and writes the posts with its other rows at its end: another worker stores p1 after
    the batch found p1 new. The database refuses the double at the batch's one write,
    the batch is read again guarded and takes the other worker's p1: every post once,
    p1's tag rolled once (by the other worker), p2's two tags after it, no gap, and each
    roll beside its own post."""
    w = make_world(engine)
    rid = w.open(at(0))
    opening = len(tag_rolls(engine, rid))
    real = ingest_reads.live_rounds_with_rosters
    taken: list[list[int] | None] = []

    def other_worker_first(session, *args, **kw):  # type: ignore[no-untyped-def]
        out = real(session, *args, **kw)
        taken.append(out.post_ids)
        if len(taken) == 1:   # the other worker, in its own transaction, committed
            monkeypatch.setattr(ingest_reads, "live_rounds_with_rosters", real)
            w.ingest(POSTS[:1], now=at(2, 30))
            monkeypatch.setattr(ingest_reads, "live_rounds_with_rosters", other_worker_first)
        return out

    monkeypatch.setattr(ingest_reads, "live_rounds_with_rosters", other_worker_first)
    ids = w.ingest(POSTS, now=at(3))
    assert taken[0] is not None and len(taken[0]) == 3   # ids taken for p1, p2, p3
    assert taken[1:] == [None]   # the guarded pass takes no ids: it stores post by post
    assert len(set(ids)) == 3 and w.count(m.Post) == 3
    got = tag_rolls(engine, rid)
    assert [i for i, _, _ in got] == list(range(opening + 3))
    assert [(p, t) for _, p, t in got[opening:]] == [("p1", 0), ("p2", 0), ("p2", 1)]
    decls = w.declarations(rid)
    assert sorted(k for k, ds in decls.items() if any(not d.deleted for d in ds)) == [
        "aria", "bram", "gob1"]
    assert all(len(ds) == 1 for ds in decls.values())


def test_scale_6_the_live_read_takes_ids_for_the_batchs_new_posts(engine: Engine) -> None:
    """SCALE-6: the live read takes as many ids as the batch has new posts, none stored:
    the next after the top one on SQLite (the batch holds the write lock), fresh ones
    from the sequence on PostgreSQL; none when none are asked for. The posts then
    written take them, each post's rolls and declarations beside it."""
    w = make_world(engine)
    rid = w.open(at(0))
    first = w.ingest(POSTS[:1], now=at(2))
    with session_scope(engine) as s:
        assert ingest_reads.live_rounds_with_rosters(s, w.thread_id, w.campaign_id).post_ids is None
        taken = ingest_reads.live_rounds_with_rosters(s, w.thread_id, w.campaign_id,
                                                      new_posts=3).post_ids
    assert taken is not None and len(set(taken)) == 3 and min(taken) > max(first)
    if engine.dialect.name == "sqlite":
        assert taken == [max(first) + 1, max(first) + 2, max(first) + 3]
    later = w.ingest(POSTS[1:], now=at(4))
    assert len(set(later)) == 2 and min(later) > max(first)
    assert [(p, t) for _, p, t in tag_rolls(engine, rid) if p] == [("p1", 0), ("p2", 0), ("p2", 1)]
