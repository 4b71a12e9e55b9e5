"""STALL-3 live on Misago (tests/harness/misago/): the ladder's direct notification starts
a private thread to the player through Misago's JSON API (the preset's ``[pm]``:
``POST /api/private-threads/`` on the bot's login session), and the player, logged in
with a plain client of their own, reads it in their private threads."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
import requests
from sqlalchemy import select

from pbp.jobs import notify
from pbp.sources.forum_session import forget_sessions
from pbp.store import models as m
from pbp.store.db import session_scope
from tests.harness.misago.helpers import PLAYER, load_harness, serve
from tests.rounds.world import at, make_world

from .conftest import Res

pytestmark = [pytest.mark.integration]


@pytest.fixture(scope="module")
def misago() -> Iterator[Any]:
    yield from serve(load_harness())


def _as_player(base: str) -> requests.Session:
    s = requests.Session()
    s.get(base + "/").raise_for_status()
    r = s.post(base + "/api/auth/", json=PLAYER, headers={"X-CSRFToken": s.cookies["csrftoken"]})
    assert r.status_code == 200, r.text
    return s


@pytest.mark.parametrize("engine", ["sqlite"], indirect=True)
def test_STALL3_misago_private_thread_read_back_by_the_player(res: Res, misago: Any,
                                                              monkeypatch) -> None:  # type: ignore[no-untyped-def]
    port = urlsplit(misago.base).port
    monkeypatch.setenv(f"PBP_SECRET_127_0_0_1_{port}_USERNAME", "pbpbot")
    monkeypatch.setenv(f"PBP_SECRET_127_0_0_1_{port}_PASSWORD", "botpass")
    forget_sessions()
    line = next(x for x in misago.seed("thread", f"Ladder {time.time_ns()}", "1") if x.startswith("THREAD"))
    _, path, _tid, _, _ = line.split()
    w = make_world(res.engine, reminder_hours=(12.0,))
    with session_scope(res.engine) as s:
        s.get_one(m.Campaign, w.campaign_id).notify_hours = 4.0
        t = s.get_one(m.Thread, w.thread_id)
        t.kind, t.platform, t.url = "forum", "markdown", misago.base + path
        t.options = {**(t.options or {}), "preset": "misago", "allowed_hosts": ["127.0.0.1"]}
        for c in s.get_one(m.Encounter, w.encounter_id).combatants:
            if c.player:                      # one player account on the harness: "player"
                c.player = "player" if c.key == "bram" else None
    rid = w.open(at(0))
    ids = notify.queue_notifications(res, rid, at(20))
    assert len(ids) == 1
    outcome = notify.deliver_notification(res, ids[0], at(20))
    assert outcome.platform_id is not None, outcome.error
    assert notify.deliver_notification(res, ids[0], at(20, 1)).platform_id is None   # sent once
    with session_scope(res.engine) as s:
        note = s.scalar(select(m.Notification))
        assert (note.channel, note.state) == ("forum-pm", "sent")
    with _as_player(misago.base) as player:
        threads = player.get(misago.base + "/api/private-threads/").json()["results"]
        mine = [t for t in threads if str(t["id"]) == outcome.platform_id]
        assert [t["title"] for t in mine] == ["Your turn: round 1 of Ambush on the Goblin Road"]
        posts = player.get(f"{misago.base}/api/private-threads/{outcome.platform_id}/posts/").json()
        text = " ".join(p["content"] for p in posts["post_set"]["results"])
        assert "Bram still owe(s) a post in round 1" in text and path in text
        assert "2026-12-01 09:00 (America/Sao_Paulo)" in text
