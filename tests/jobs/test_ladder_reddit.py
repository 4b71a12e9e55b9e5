"""STALL-3 live on Reddit: the ladder's private message goes out through the real praw
client (``redditor(name).message``) to the local Reddit (tests/harness/reddit_server.py,
``/api/compose``) and is read back by the player from their inbox (``/message/inbox``).
A 429 and an outage during the notification: retried from the row's ``not_before``, never
sent twice, and the round resolves at its deadline all the same."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from pbp.jobs import delivery, notify
from pbp.rounds import service
from pbp.store import models as m
from pbp.store.db import session_scope
from tests.rounds.world import at, make_world
from tests.sources.reddit_fixtures import client, fixtures_dir, load_server_module

from .conftest import Res


@pytest.fixture
def reddit() -> Iterator[Any]:
    with load_server_module().RedditServer(fixtures_dir()) as server:
        yield server


@pytest.fixture
def live(res: Res, reddit: Any, monkeypatch) -> tuple[Res, Any, int, int]:  # type: ignore[no-untyped-def]
    for k, v in {"PBP_SECRET_REDDIT__COM_CLIENTID": "cid", "PBP_SECRET_REDDIT__COM_CLIENTSECRET": "sec",
                 "PBP_SECRET_REDDIT__COM_USERNAME": "pbp_bot", "PBP_SECRET_REDDIT__COM_PASSWORD": "pw"}.items():
        monkeypatch.setenv(k, v)
    r = res
    sid = reddit.add_submission("pbp", author="the_gm")
    w = make_world(r.engine, reminder_hours=(12.0,))
    with session_scope(r.engine) as s:
        c = s.get_one(m.Campaign, w.campaign_id)
        c.notify_hours = 4.0
        t = s.get_one(m.Thread, w.thread_id)
        t.kind, t.platform = "reddit", "markdown"
        t.url = f"https://www.reddit.com/r/pbp/comments/{sid}/ambush/"
        t.options = {**(t.options or {}), "oauth_url": reddit.url, "reddit_url": reddit.url}
    rid = w.open(at(0))
    return r, reddit, w.encounter_id, rid


def _note(r: Res, player: str) -> m.Notification:
    with session_scope(r.engine) as s:
        note = s.scalar(select(m.Notification).where(m.Notification.player == player))
        assert note is not None
        s.expunge(note)
        return note


def test_STALL3_reddit_private_message_read_back_by_the_player(live) -> None:  # type: ignore[no-untyped-def]
    r, reddit, _eid, rid = live
    ids = notify.queue_notifications(r, rid, at(20))
    assert len(ids) == 3                                    # alice, bob, carol all owe a post
    for nid in ids:
        assert notify.deliver_notification(r, nid, at(20)).platform_id is not None
    inbox = list(client(reddit, username="bob").inbox.all(limit=None))
    assert [(msg.author.name, msg.subject) for msg in inbox] == [
        ("pbp_bot", "Your turn: round 1 of Ambush on the Goblin Road")]
    assert "Bram still owe(s) a post in round 1" in inbox[0].body
    assert "/r/pbp/comments/" in inbox[0].body and "2026-12-01 09:00 (America/Sao_Paulo)" in inbox[0].body
    assert _note(r, "bob").state == "sent"
    assert reddit.count("/api/compose") == 3


@pytest.mark.parametrize("status", [429, 500])
def test_STALL3_429_or_outage_is_retried_never_doubled_and_the_round_does_not_stall(
        live, status: int) -> None:  # type: ignore[no-untyped-def]
    r, reddit, _eid, rid = live
    notify.queue_notifications(r, rid, at(20))
    bob = _note(r, "bob")
    reddit.fail(r"^/api/compose", status, times=1, retry_after=4)
    first = notify.deliver_notification(r, bob.id, at(20))
    assert first.retry_in is not None and first.error is not None
    after = _note(r, "bob")
    assert after.state == "pending" and after.not_before is not None and after.last_error
    assert reddit.messages == []                                 # nothing went out
    with session_scope(r.engine) as s:                           # not before its back-off
        assert bob.id not in delivery.due_work(s, at(20)).notes
        assert bob.id in delivery.due_work(s, after.not_before + timedelta(seconds=1)).notes
        # the round does not wait for a notification: due and resolved at its deadline
        assert rid in delivery.due_work(s, at(24)).rounds
        service.resolve_round(s, rid, at(24))
    assert notify.deliver_notification(r, bob.id, at(21)).platform_id is not None
    assert notify.deliver_notification(r, bob.id, at(21, 5)).platform_id is None   # already sent
    assert [msg["dest"] for msg in reddit.messages] == ["bob"]
    with session_scope(r.engine) as s:
        assert bob.id not in delivery.due_work(s, at(22)).notes
