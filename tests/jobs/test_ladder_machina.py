"""STALL-3 live on django-machina (tests/harness/machina/), which has no private messages:
the preset says ``[pm] kind = "mention"``, so the ladder's direct notification is an
@mention reply in the thread, posted once through machina's reply form (its marker looked
for first), and a visitor reads it on the thread's page."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from pbp.jobs import notify
from pbp.sources.forum_session import forget_sessions
from pbp.store import models as m
from pbp.store.db import session_scope
from tests.harness.machina.helpers import load_harness, serve, visible_posts
from tests.rounds.world import at, make_world

from .conftest import Res

pytestmark = [pytest.mark.integration]


@pytest.fixture(scope="module")
def machina() -> Iterator[Any]:
    yield from serve(load_harness())


@pytest.mark.parametrize("engine", ["sqlite"], indirect=True)
def test_STALL3_machina_has_no_private_messages_the_player_is_mentioned_once(
        res: Res, machina: Any, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    port = urlsplit(machina.base).port
    monkeypatch.setenv(f"PBP_SECRET_127_0_0_1_{port}_USERNAME", "pbpbot")
    monkeypatch.setenv(f"PBP_SECRET_127_0_0_1_{port}_PASSWORD", "botpass")
    forget_sessions()
    line = next(x for x in machina.seed("topic", f"Ladder {time.time_ns()}", "1") if x.startswith("TOPIC"))
    topic = machina.base + line.split()[1]
    w = make_world(res.engine, reminder_hours=(12.0,))
    with session_scope(res.engine) as s:
        s.get_one(m.Campaign, w.campaign_id).notify_hours = 4.0
        t = s.get_one(m.Thread, w.thread_id)
        t.kind, t.platform, t.url = "forum", "bbcode", topic
        t.options = {**(t.options or {}), "preset": "machina", "allowed_hosts": ["127.0.0.1"]}
        for c in s.get_one(m.Encounter, w.encounter_id).combatants:
            if c.player:
                c.player = "player" if c.key == "bram" else None
    rid = w.open(at(0))
    ids = notify.queue_notifications(res, rid, at(20))
    assert len(ids) == 1
    outcome = notify.deliver_notification(res, ids[0], at(20))
    assert outcome.platform_id is not None, outcome.error
    assert notify.deliver_notification(res, ids[0], at(20, 1)).platform_id is None
    with session_scope(res.engine) as s:
        note = s.scalar(select(m.Notification))
        assert (note.channel, note.state) == ("mention", "sent")
    shown = [text for text in visible_posts(topic).values() if "@player" in text]
    assert len(shown) == 1
    assert "Bram still owe(s) a post in round 1" in shown[0] and "2026-12-01 09:00 (America/Sao_Paulo)" in shown[0]
