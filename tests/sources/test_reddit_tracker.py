# ruff: noqa: F811  -- fixtures are imported from reddit_fixtures by name
"""STALL-8: the tracker post on Reddit, live against the local Reddit server through praw:
one comment per encounter, posted when round 1 opens, edited in place (``comment.edit``)
when round 2 opens, retried after a refused edit, never a second comment; a forum
thread gets no tracker (no edit path there)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import praw
import pytest
from reddit_fixtures import bot, reddit_server  # noqa: F401  (fixtures)
from sqlalchemy import select

from pbp.panel.sample import roster
from pbp.rounds import service
from pbp.rounds.outbox import pending_replies
from pbp.sources.base import SourceError
from pbp.sources.reddit import RedditSource
from pbp.store import db as store
from pbp.store import models as m

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def db(tmp_path: Path) -> Any:
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    store.upgrade(url)
    return store.make_engine(url)


def _fight(session: Any, kind: str, url: str, options: dict[str, Any] | None = None) -> tuple[int, int]:
    campaign = m.Campaign(name="Goblin Hills", slug=f"goblin-hills-{kind}", ruleset="forum-d20",
                          tracker_post=True, early_close=False, timezone="UTC")
    thread = m.Thread(campaign=campaign, kind=kind, url=url, platform="markdown", options=options or {})
    session.add_all([campaign, thread])
    session.flush()
    enc = service.start_encounter(session, thread.id, roster(4), name="Hill fight", now=T0)
    rnd = service.open_round(session, enc, T0, deadline=T0 + timedelta(hours=24), seed="tracker-1")
    return enc, rnd


def _deliver(db: Any, source: RedditSource) -> None:
    with store.session_scope(db) as s:
        ids = pending_replies(s)
    for rid in ids:
        with store.session_scope(db) as s:
            service.deliver_reply(s, rid, source)


def test_stall8_tracker_posted_once_then_edited_in_place(db: Any, reddit_server: Any,
                                                         bot: praw.Reddit) -> None:
    """STALL-8: post, edit on the next round (after one refused edit), no duplicate."""
    sid = reddit_server.add_submission("dnd", author="narrator")
    source = RedditSource(sid, reddit=bot)
    with store.session_scope(db) as s:
        enc, r1 = _fight(s, "reddit", f"https://www.reddit.com/r/dnd/comments/{sid}/x/")
    marker = f"pbp-reply:tracker:{enc}"
    _deliver(db, source)
    [tracker] = reddit_server.comments_by("pbp_bot", marker)
    assert "Hill fight — Tracker" in tracker.body and "round 1" in tracker.body
    assert "Owes a post: Aria, Brom" in tracker.body
    assert reddit_server.count("/api/editusertext") == 0

    with store.session_scope(db) as s:          # round 1 resolves at its deadline; round 2 opens
        service.resolve_round(s, r1, T0 + timedelta(hours=24))
        [edit] = s.scalars(select(m.Reply).where(m.Reply.kind == "edit")).all()
        assert edit.in_reply_to == f"tracker:{enc}" and edit.marker == marker
        edit_id = edit.id
    reddit_server.fail(r"/api/editusertext", status=503, retry_after=None)
    with pytest.raises(SourceError), store.session_scope(db) as s:
        service.deliver_reply(s, edit_id, source)
    source = RedditSource(sid, reddit=bot)        # the next sweep, past the 30 s backoff
    _deliver(db, source)
    [after] = reddit_server.comments_by("pbp_bot", marker)
    assert after.id == tracker.id and "round 2" in after.body and "round 1" not in after.body
    assert reddit_server.count("/api/editusertext") == 2            # one refused, one taken
    with store.session_scope(db) as s:
        edit = s.get(m.Reply, edit_id)
        assert edit is not None and (edit.state, edit.platform_id) == ("sent", tracker.id)
        assert service.deliver_reply(s, edit_id, source) == tracker.id   # sent: nothing again
    assert reddit_server.count("/api/editusertext") == 2
    assert len(reddit_server.comments_by("pbp_bot", marker)) == 1

    # two rounds go by before the next sweep: the older edit is cancelled unsent, the newer
    # one (round 4) goes out; an old state never overwrites a new one
    for hours in (48, 72):
        with store.session_scope(db) as s:
            open_now = service.current_round(s, enc)
            assert open_now is not None
            service.resolve_round(s, open_now.id, T0 + timedelta(hours=hours))
    _deliver(db, source)
    [latest] = reddit_server.comments_by("pbp_bot", marker)
    assert latest.id == tracker.id and "round 4" in latest.body
    assert reddit_server.count("/api/editusertext") == 3
    with store.session_scope(db) as s:
        states = [r.state for r in s.scalars(select(m.Reply).where(m.Reply.kind == "edit").order_by(m.Reply.id))]
    assert states == ["sent", "cancelled", "sent"]


def test_stall8_no_tracker_where_the_bot_cannot_edit(db: Any) -> None:
    """STALL-8: a forum thread whose preset has no edit path (machina's HTML forms) queues
    no tracker at all."""
    with store.session_scope(db) as s:
        _fight(s, "forum", "http://127.0.0.1:9/viewtopic.php?t=1")
        kinds = {r.kind for r in s.scalars(select(m.Reply))}
    assert "tracker" not in kinds and "edit" not in kinds
