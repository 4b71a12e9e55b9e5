"""SCALE-6: what an ingest batch asks of the database, counted on real SQLite and PostgreSQL.

Expected figures come from the posts: an unchanged re-poll changes nothing, so it writes
nothing; a batch reads its encounter, rounds, roster and stored posts once and writes each
table in one statement, so 30 posts cost the statements 3 posts cost; every roll tag is
rolled once, at consecutive indexes (PBP-4), whatever the size of the batch.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from sqlalchemy import Engine, select

from pbp.store import models as m
from pbp.store.db import session_scope
from tests.sql_log import starting
from tests.sql_log import statements as sent

from .world import at, make_world, post

WRITES = ("INSERT", "UPDATE", "DELETE", "SAVEPOINT", "RELEASE", "ROLLBACK TO")


def statements(engine: Engine) -> AbstractContextManager[list[str]]:
    """Every statement the engine sends while inside (BEGIN aside), white space folded."""
    return sent(engine, besides=starting("BEGIN"), fold=True)


def attacks(prefix: str, n: int, minute: int = 0) -> list:
    """*n* posts by alice and bob in turn, each an attack with one roll tag."""
    return [post(f"{prefix}{i}", "alice" if i % 2 else "bob", at(1, minute + i),
                 f"I attack Goblin Snag [roll]1d20+{i % 7}[/roll]") for i in range(n)]


def rolls_of(engine: Engine, round_id: int) -> list[tuple[int, str | None, int | None]]:
    with session_scope(engine) as s:
        return [tuple(r) for r in s.execute(  # type: ignore[misc]
            select(m.RollRecord.roll_index, m.Post.platform_id, m.RollRecord.tag_index)
            .outerjoin(m.Post, m.Post.id == m.RollRecord.post_id)
            .where(m.RollRecord.round_id == round_id).order_by(m.RollRecord.roll_index))]


def test_scale_6_an_unchanged_repoll_writes_nothing(engine: Engine) -> None:
    """The same posts polled again: no INSERT, UPDATE, DELETE nor SAVEPOINT; only the read
    that finds them stored (and the thread), whatever their number."""
    w = make_world(engine)
    w.open(at(0))
    batch = attacks("p", 12) + [post("gm", "GM", at(2), "Goblin Snag: attacks Aria")]
    first = w.ingest(batch, now=at(3))
    with statements(engine) as seen:
        again = w.ingest(batch, now=at(4))
    assert again == first
    assert not [s for s in seen if s.upper().startswith(WRITES)], seen
    assert len(seen) <= 2, seen


def test_scale_6_a_batch_makes_as_many_statements_for_30_posts_as_for_3(engine: Engine) -> None:
    """Per batch, not per post: the statements of a batch of 30 new posts are those of a
    batch of 3, and every tag is still rolled once, in post order, without a gap."""
    w = make_world(engine)
    rid = w.open(at(0))
    opening = len(rolls_of(engine, rid))   # the round's own rolls (initiative)
    with statements(engine) as small:
        w.ingest(attacks("a", 3), now=at(2))
    with statements(engine) as large:
        w.ingest(attacks("b", 30, minute=5), now=at(3))
    assert len(large) == len(small), (small, large)
    # the statements of a 3-post batch, BEGIN aside: 7 on SQLite (the posts, revisions,
    # rolls, roll links and declarations written one statement each), 3 on PostgreSQL
    # (pbp.rounds.bulk_pg: one, the posts' ids taken with the rounds); the thread and its
    # campaign read once (SCALE-6 third pass), the roster and the hints in one statement
    # (10 and 7 before: ninth pass), the thread with the stored posts among the batch's,
    # the rounds with the roster and the hints, every row in one statement (9 and 6,
    # then 8 and 5, then 7 and 4 before: tenth pass)
    assert len(small) == (7 if engine.dialect.name == "sqlite" else 3), small
    got = rolls_of(engine, rid)
    assert [i for i, _, _ in got] == list(range(opening + 33))
    assert [p for _, p, _ in got[opening:]] == [f"a{i}" for i in range(3)] + [f"b{i}" for i in range(30)]
    assert w.count(m.Declaration) == 33 and w.count(m.RollPost) == 33
    assert w.count(m.PostRevision) == 33


def test_scale_6_a_post_deleted_and_reposted_in_one_batch_gets_its_roll_back(engine: Engine) -> None:
    """DICE-3 within one batch: the poll sees alice's rolled post deleted and her re-post
    of the same tag at once; the re-post takes the first roll, no second roll is made."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]")], now=at(2))
    before = rolls_of(engine, rid)
    w.ingest([post("p1", "alice", at(1), "", change="deleted"),
              post("p2", "alice", at(3), "I attack Goblin Snag [roll]1d20+5[/roll]")], now=at(4))
    assert rolls_of(engine, rid) == before              # no new roll
    repost = next(d for d in w.declarations(rid)["aria"] if not d.deleted)
    assert {"code": "reposted-roll-kept"} in repost.notes
    assert repost.actions[0]["rolled"]["index"] == before[-1][0]


def test_scale_6_an_edit_in_a_later_batch_keeps_the_roll_and_adds_a_revision(engine: Engine) -> None:
    """PBP-4 through the batch path: an edit is a new revision flagged after the roll,
    the tag keeps its first roll, and the declaration follows the new text."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]")], now=at(2))
    before = rolls_of(engine, rid)
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Rot [roll]1d20+5[/roll]",
                   change="edited", edited_at=at(1, 30))], now=at(3))
    assert rolls_of(engine, rid) == before
    with session_scope(engine) as s:
        revs = list(s.execute(select(m.PostRevision.number, m.PostRevision.change,
                                     m.PostRevision.after_roll).order_by(m.PostRevision.number)))
    assert [tuple(r) for r in revs] == [(1, "new", False), (2, "edited", True)]
    decl = w.declarations(rid)["aria"]
    assert len(decl) == 1 and decl[0].actions[0]["target"] == "gob2"


def test_scale_6_an_insert_has_one_text_for_1_row_and_for_30(engine: Engine) -> None:
    """SCALE-6: on PostgreSQL the batch's writes are one text whatever the batch size (each table's
    rows one JSON document), so psycopg's statement cache and prepared statements apply; on
    SQLite each table's rows go through the driver's executemany. Either way the rows are
    those posted: every
    roll sits beside its own post (the ids a batch of 1 and of 30 get back map each roll
    to the right post), one declaration a post, in post order, indexes without a gap."""
    w = make_world(engine)
    rid = w.open(at(0))
    opening = len(rolls_of(engine, rid))
    with statements(engine) as one:
        w.ingest(attacks("a", 1), now=at(2))
    with statements(engine) as thirty:
        w.ingest(attacks("b", 30, minute=5), now=at(3))
    inserts = [[s for s in seen if s.upper().startswith(("INSERT", "WITH"))]
               for seen in (one, thirty)]
    tables = ("posts", "post_revisions", "rolls", "roll_posts", "declarations")
    if engine.dialect.name == "postgresql":
        # one statement (pbp.rounds.bulk_pg): the posts (their ids taken with the live
        # rounds) with their revisions, the rolls with their posts and the declarations;
        # each table's rows one JSON document
        assert len(inserts[0]) == 1, inserts[0]
        assert [[t for t in tables if f"INSERT INTO {t} " in s] for s in inserts[0]] == [
            ["posts", "post_revisions", "rolls", "roll_posts", "declarations"]]
        assert set(inserts[1]) == set(inserts[0])   # (a read mid-batch writes rolls early)
        assert all("jsonb_array_elements(" in s for s in inserts[1]), inserts[1]
    else:   # SQLite: one INSERT a table, the driver's executemany, for 1 post as for 30
        # (the posts' ids taken with the live rounds: none read back through RETURNING)
        assert len(inserts[0]) == 5, inserts[0]
        assert inserts[1] == inserts[0]
    got = rolls_of(engine, rid)
    assert [i for i, _, _ in got] == list(range(opening + 31))
    assert [p for _, p, _ in got[opening:]] == ["a0"] + [f"b{i}" for i in range(30)]
    with session_scope(engine) as s:
        posts = dict(s.execute(select(m.Post.id, m.Post.platform_id)).all())
        written = sorted((posts[d.post_id], d.actions[0]["target"]) for d in
                         s.scalars(select(m.Declaration).where(m.Declaration.round_id == rid)))
        beside = s.execute(select(m.RollPost.platform_id, m.RollRecord.post_id)
                           .join(m.RollRecord, m.RollRecord.id == m.RollPost.roll_id)
                           .where(m.RollRecord.round_id == rid)).all()
    assert written == sorted([("a0", "gob1")] + [(f"b{i}", "gob1") for i in range(30)])
    assert sorted(p for p, _ in beside) == sorted(["a0"] + [f"b{i}" for i in range(30)])
    assert all(posts[post_id] == p for p, post_id in beside), beside
