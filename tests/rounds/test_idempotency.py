"""At most once, enforced by the database: the same posts twice, a round resolved twice
(one after the other and at the same time), a reply delivered twice."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError

from pbp.rounds import service
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post

POSTS = [post("p1", "alice", at(1), "I attack Goblin Snag with my sword [roll]1d20+5[/roll]"),
         post("p2", "bob", at(2), "I attack Goblin Rot [roll]1d20+5[/roll] [roll]1d8[/roll]"),
         post("p3", "GM", at(3), "Goblin Snag: attacks Aria with the dagger")]


def _counts(w):  # type: ignore[no-untyped-def]
    return {t.__name__: w.count(t) for t in (m.Post, m.PostRevision, m.Declaration, m.RollRecord,
                                             m.EventRecord, m.Reply, m.Round)}


def test_processing_the_same_posts_twice_changes_nothing(engine):
    w = make_world(engine)
    w.open(at(0))
    first = w.ingest(POSTS, now=at(3))
    before = _counts(w)
    assert w.ingest(POSTS, now=at(4)) == first
    assert _counts(w) == before


def test_resolving_a_round_twice_makes_no_second_roll_and_no_second_reply(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest(POSTS, now=at(3))
    reply = w.resolve(rid, at(25))
    before = _counts(w)
    assert w.resolve(rid, at(26)) == reply
    assert _counts(w) == before


def test_resolving_at_the_same_time_resolves_once(engine):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest(POSTS, now=at(3))
    barrier = threading.Barrier(2)
    outcomes: list[object] = []

    def worker() -> None:
        barrier.wait()
        for _attempt in range(5):       # what Celery's autoretry does on OperationalError
            try:
                with session_scope(engine) as s:
                    outcomes.append(service.resolve_round(s, rid, at(25)))
                return
            except (OperationalError, IntegrityError) as exc:
                outcomes.append(f"{type(exc).__name__}: {str(exc)[:90]}")

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    with session_scope(engine) as s:
        replies = list(s.scalars(select(m.Reply).where(m.Reply.round_id == rid,
                                                       m.Reply.kind == "resolution")))
        assert len(replies) == 1
        assert [o for o in outcomes if isinstance(o, int)] == [replies[0].id] * 2, outcomes
        starts = s.scalars(select(m.EventRecord).where(m.EventRecord.round_id == rid,
                                                       m.EventRecord.code == "round.start")).all()
        assert len(starts) == 1
        assert len(s.scalars(select(m.Round).where(m.Round.number == 2)).all()) <= 1


@pytest.mark.parametrize("table", ["roll-tag", "roll-index", "reply", "post", "round"])
def test_unique_constraints_refuse_doubles_that_bypass_the_code(engine, table):
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest(POSTS[:1], now=at(1))
    w.resolve(rid, at(25))
    with pytest.raises(IntegrityError), session_scope(engine) as s:
        roll = s.scalar(select(m.RollRecord).where(m.RollRecord.tag_index == 0))
        reply = s.scalar(select(m.Reply).where(m.Reply.kind == "resolution"))
        p = s.scalar(select(m.Post))
        values = {"round_id": roll.round_id, "expression": "1d20", "total": 1,
                  "breakdown": "1d20 (1) = 1"}
        s.add({
            "roll-tag": lambda: m.RollRecord(**values, roll_index=999, post_id=roll.post_id,
                                             tag_index=0),
            "roll-index": lambda: m.RollRecord(**values, roll_index=roll.roll_index),
            "reply": lambda: m.Reply(thread_id=reply.thread_id, kind="resolution", marker="x",
                                     idempotency_key=reply.idempotency_key, platform="bbcode",
                                     language="en", body="again"),
            "post": lambda: m.Post(thread_id=p.thread_id, platform_id=p.platform_id, author="x",
                                   posted_at=at(1), body="", text="", content_hash="0"),
            "round": lambda: m.Round(encounter_id=w.encounter_id, number=1, opens_at=at(0),
                                     deadline=at(1), seed="s", commitment="c"),
        }[table]())


class FakeSource:
    """Posts into a list; can lose the answer of its first post (the post still lands)."""

    def __init__(self, lose_first_answer: bool = False) -> None:
        self.posts: list[tuple[str, str]] = []
        self.lose = lose_first_answer

    def fetch(self, cursor):  # type: ignore[no-untyped-def]
        raise NotImplementedError

    def find_reply(self, marker: str) -> str | None:
        return next((pid for pid, text in self.posts if marker in text), None)

    def reply(self, text: str, marker: str, *, in_reply_to: str | None = None) -> str:
        pid = f"r{len(self.posts) + 1}"
        self.posts.append((pid, text))
        if self.lose:
            self.lose = False
            from pbp.sources.base import SourceError

            raise SourceError("timeout reading the answer", retryable=True)
        return pid


def test_a_reply_is_posted_once_even_when_the_answer_is_lost(engine):
    from pbp.sources.base import SourceError

    w = make_world(engine)
    w.open(at(0))
    src = FakeSource(lose_first_answer=True)
    with session_scope(engine) as s:
        (rid,) = service.pending_replies(s)
    with pytest.raises(SourceError), session_scope(engine) as s:
        service.deliver_reply(s, rid, src)
    for _ in range(2):
        with session_scope(engine) as s:
            assert service.deliver_reply(s, rid, src) == "r1"
    assert len(src.posts) == 1
    with session_scope(engine) as s:
        assert s.get(m.Reply, rid).state == "sent"
        assert service.pending_replies(s) == []
