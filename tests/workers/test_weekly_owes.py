"""STALL-9: the weekly who-owes-a-post list through the beat task (Celery eager mode on
SQLite), on a clock: not before the campaign's weekday and hour (in its zone), once in
that ISO week whatever the number of ticks, again the next week; delivered through the
outbox into the thread (a scenario file), in the campaign's language."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select

from pbp.store import models as m
from pbp.store.db import session_scope
from tests.workers.test_tasks_eager import env  # noqa: F401  (the fixture)

MONDAY = datetime(2026, 11, 30, tzinfo=UTC)     # ISO 2026-W49 starts on this Monday


def _owes(e: Any) -> list[tuple[str, str, str]]:
    with session_scope(e.engine) as s:
        return [(r.idempotency_key, r.state, r.body) for r in
                s.scalars(select(m.Reply).where(m.Reply.kind == "owes").order_by(m.Reply.id))]


def _posted(e: Any) -> str:
    """What the bot posted in the demo thread (the scenario file's replies beside it)."""
    from pbp.sources.scenario_file import FileSource
    from workers.demo import demo_thread_path

    path = FileSource(str(demo_thread_path(e.settings))).replies_path
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_stall9_weekly_list_once_per_iso_week_through_beat_task(
        env: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """STALL-9: Monday 09:00 Moscow (06:00 UTC); ticks before, twice after, next week."""
    from workers.demo import seed_demo

    cid = seed_demo(env.settings, now=MONDAY + timedelta(hours=1))
    with session_scope(env.engine) as s:
        camp = s.get(m.Campaign, cid)
        assert camp is not None
        thread = s.scalars(select(m.Thread).where(m.Thread.campaign_id == cid)).one()
        camp.timezone, camp.language = "Europe/Moscow", "pt"
        camp.owes_thread_id, camp.owes_weekday, camp.owes_hour = thread.id, 0, 9
    clock = [MONDAY + timedelta(hours=5, minutes=59)]
    monkeypatch.setattr("workers.tasks.utcnow", lambda: clock[0])

    assert env.tasks.weekly_owes.apply(throw=True).get() == 0    # 08:59 in Moscow
    assert _owes(env) == []
    clock[0] = MONDAY + timedelta(hours=6)                          # 09:00 in Moscow
    assert env.tasks.weekly_owes.apply(throw=True).get() == 1
    [(key, state, body)] = _owes(env)
    assert (key, state) == (f"owes:{cid}:2026-W49", "sent")
    assert body.startswith("Quem deve um post") and "rodada 1" in body
    posted = _posted(env)
    assert posted.count(f"marker: pbp-reply:owes:{cid}:2026-W49") == 1 and "Quem deve um post" in posted
    for later in (timedelta(hours=6, minutes=10), timedelta(days=3, hours=2), timedelta(days=6, hours=23)):
        clock[0] = MONDAY + later                                   # the same ISO week (Moscow)
        assert env.tasks.weekly_owes.apply(throw=True).get() == 0
    assert len(_owes(env)) == 1
    clock[0] = MONDAY + timedelta(days=7, hours=6, minutes=5)     # next Monday 09:05
    assert env.tasks.weekly_owes.apply(throw=True).get() == 1
    keys = [k for k, _s, _b in _owes(env)]
    assert keys == [f"owes:{cid}:2026-W49", f"owes:{cid}:2026-W50"]
    assert _posted(env).count("Quem deve um post") == 2
