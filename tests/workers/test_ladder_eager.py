"""STALL-3 through the beat's deadline sweep (``pbp.sweep_deadlines``, Celery eager mode):
once a round's T−y has come the sweep sends ``pbp.queue_notifications``, which queues one
notification per player who owes a post and sends each (``pbp.deliver_notification``)
as a Reddit private message through praw to the local Reddit; a second sweep finds nothing
to do and sends nothing twice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pbp.store import models as m
from pbp.store.db import session_scope
from tests.rounds.world import make_world
from tests.sources.reddit_fixtures import fixtures_dir, load_server_module

from .test_tasks_eager import env  # noqa: F401  (the eager Celery app and its database)


@pytest.fixture
def reddit() -> Any:
    with load_server_module().RedditServer(fixtures_dir()) as server:
        yield server


def test_STALL3_the_sweep_queues_and_sends_the_notifications_once(
        env: Any, reddit: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    for k, v in {"PBP_SECRET_REDDIT__COM_CLIENTID": "cid", "PBP_SECRET_REDDIT__COM_CLIENTSECRET": "sec",
                 "PBP_SECRET_REDDIT__COM_USERNAME": "pbp_bot", "PBP_SECRET_REDDIT__COM_PASSWORD": "pw"}.items():
        monkeypatch.setenv(k, v)
    now = datetime.now(UTC)
    sid = reddit.add_submission("pbp", author="the_gm")
    w = make_world(env.engine, reminder_hours=())
    with session_scope(env.engine) as s:
        s.get_one(m.Campaign, w.campaign_id).notify_hours = 4.0
        t = s.get_one(m.Thread, w.thread_id)
        t.kind, t.platform = "reddit", "markdown"
        t.url = f"https://www.reddit.com/r/pbp/comments/{sid}/ambush/"
        t.options = {**(t.options or {}), "oauth_url": reddit.url, "reddit_url": reddit.url}
        s.get_one(m.Encounter, w.encounter_id).started_at = now - timedelta(hours=22)
    # a 24 h round opened 21 h ago: its deadline is 3 h away, its T−4 h an hour ago
    rid = w.open(now - timedelta(hours=21))
    counts = env.tasks.sweep_deadlines.apply(throw=True).get()
    assert counts["notify_rounds"] == 1
    assert sorted(msg["dest"] for msg in reddit.messages) == ["alice", "bob", "carol"]
    with session_scope(env.engine) as s:
        notes = s.query(m.Notification).filter(m.Notification.round_id == rid).all()
        assert sorted((n.player, n.state) for n in notes) == [("alice", "sent"), ("bob", "sent"), ("carol", "sent")]
    counts = env.tasks.sweep_deadlines.apply(throw=True).get()
    assert (counts["notify_rounds"], counts["notifications"]) == (0, 0)
    assert len(reddit.messages) == 3 and reddit.count("/api/compose") == 3
