"""STALL-4 early close through the beat's deadline sweep (``pbp.sweep_deadlines``, Celery
eager mode on the migrated settings database): the sweep sends the round to
``pbp.resolve_round`` once every expected player declared and the grace is over, and not
before; the reply is delivered to the thread with its status block (STALL-8)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pbp.rounds import service
from pbp.store import models as m
from pbp.store.db import session_scope
from tests.rounds.world import make_world, post

from .test_tasks_eager import env  # noqa: F401  (the eager Celery app and its database)


def _world(env: Any, tmp_path: Path, opened: datetime) -> Any:  # noqa: F811
    w = make_world(env.engine, early_close=True, timezone_name="America/Sao_Paulo")
    thread_file = tmp_path / "thread.yaml"
    thread_file.write_text("", encoding="utf-8")
    with session_scope(env.engine) as s:
        s.get(m.Thread, w.thread_id).url = str(thread_file)
        s.get(m.Encounter, w.encounter_id).started_at = opened - timedelta(minutes=1)
    return w


def test_STALL4_the_deadline_sweep_resolves_a_round_everyone_declared_once_the_grace_is_over(
        env: Any, tmp_path: Path) -> None:  # noqa: F811
    now = datetime.now(UTC)
    w = _world(env, tmp_path, now - timedelta(hours=1))
    rid = w.open(now - timedelta(hours=1))
    posts = [post(f"p{i}", p, now - timedelta(minutes=30), "#defend")
             for i, p in enumerate(("alice", "bob"))]
    w.ingest(posts, now=now - timedelta(minutes=30))
    w.ingest([post("p3", "carol", now - timedelta(minutes=5), "#defend")], now=now - timedelta(minutes=5))
    counts = env.tasks.sweep_deadlines.apply(throw=True).get()
    assert counts["rounds"] == 0                 # 5 minutes into the 10-minute grace
    with session_scope(env.engine) as s:
        assert s.get(m.Round, rid).state == "open"
        s.get(m.Campaign, w.campaign_id).close_grace_minutes = 4
    counts = env.tasks.sweep_deadlines.apply(throw=True).get()
    assert counts["rounds"] == 1                 # grace of 4 minutes: over
    with session_scope(env.engine) as s:
        rnd = s.get(m.Round, rid)
        assert rnd.state == "resolved" and rnd.resolved_at < rnd.deadline   # before its deadline
        nxt = service.current_round(s, w.encounter_id)
        assert nxt is not None and nxt.number == 2 and nxt.state == "open"
        reply = s.query(m.Reply).filter(m.Reply.idempotency_key == f"{rid}:resolution").one()
        assert "Status — round 2" in reply.body and "Owes a post: Aria, Bram, Cyd" in reply.body
        assert reply.state == "sent"
    assert f"pbp-reply:{rid}:resolution" in (tmp_path / "thread.replies.yaml").read_text(encoding="utf-8")
