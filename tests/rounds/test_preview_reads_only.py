"""SCALE-4: the reply preview of an open round is a dry run that writes nothing.

It runs in a read-only transaction (SQLite ``query_only``, PostgreSQL ``READ ONLY``: what
the panel's GET pages get), sends no INSERT, UPDATE, DELETE or SAVEPOINT, leaves the
session clean, and says what the resolution will say: the same text as the reply the
resolver then queues, line for line, but for the marker (``(preview)`` against the
reply's idempotency marker).
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine, update
from sqlalchemy.exc import DBAPIError

from pbp.rounds import service
from pbp.store import models as m
from pbp.store.db import reading, session_factory
from tests.sql_log import WRITES, statements

from .world import at, make_world, post


def _without_marker(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if "pbp-reply:" not in ln and "(preview)" not in ln]


def _preview_read_only(engine: Engine, round_id: int, now: Any) -> tuple[str, list[str]]:
    with statements(engine) as seen:
        s = session_factory(reading(engine))()
        try:
            text = service.preview_reply(s, round_id, now=now)
            assert not s.new and not s.dirty and not s.deleted   # nothing changed in memory
        finally:
            s.rollback()
            s.close()
    return text, seen


def _play(w: Any) -> int:
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag [roll]1d20+5[/roll]"),
              post("p2", "bob", at(2), "#defend"),
              post("p3", "bob", at(3), "I attack Goblin Rot with my sword")], now=at(3))
    return rid


@pytest.mark.parametrize("approval", [False, True])
def test_SCALE_4_the_preview_writes_nothing_and_says_what_the_resolution_will(engine: Engine,
                                                                               approval: bool) -> None:
    """Aria attacks, Bram changes his mind (the second post counts, the first is shown as
    superseded), Cyd says nothing (latency): the preview in a read-only transaction is the
    reply the resolution queues, its next round's deadline and commitment included."""
    w = make_world(engine, approval=approval)
    rid = _play(w)
    counts = [w.count(t) for t in (m.RollRecord, m.EventRecord, m.Reply, m.Round, m.AuditEntry)]
    text, seen = _preview_read_only(engine, rid, at(25))
    assert [s for s in seen if WRITES.match(s)] == []
    assert seen, "the preview read nothing?"
    assert [w.count(t) for t in (m.RollRecord, m.EventRecord, m.Reply, m.Round, m.AuditEntry)] == counts
    assert "(preview)" in text
    w.resolve(rid, at(25))
    final = w.reply(f"{rid}:resolution").body
    assert _without_marker(text) == _without_marker(final)
    if not approval:   # the round it opens, as the preview announced it
        assert "Round 2" in final and "Dice commitment" in text


def test_SCALE_4_a_read_only_transaction_refuses_a_write(engine: Engine) -> None:
    """The guard itself: what the panel's GET requests run in cannot write, on either
    database, so a write slipped into a page fails in the tests instead of taking the lock."""
    w = make_world(engine)
    rid = w.open(at(0))
    s = session_factory(reading(engine))()
    try:
        with pytest.raises(DBAPIError, match="(?i)read.?only"):
            s.execute(update(m.Round).where(m.Round.id == rid).values(state="cancelled"))
    finally:
        s.rollback()
        s.close()
    assert w.count(m.Round, m.Round.state == "open") == 1
