"""STALL-8, live on Misago 0.39 (tests/harness/misago/): the tracker post is posted once
through the API and edited in place (``PUT /api/threads/T/posts/P/``, the preset's
``edit_url``) when the next round opens; a visitor reads one tracker, with round 2."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from pbp.rounds import service
from pbp.rounds.outbox import pending_replies
from pbp.sources.base import SourceError
from pbp.store import db as store
from pbp.store import models as m
from tests.harness.misago.helpers import visible_posts
from tests.sources.test_forum_misago import _bot_turn, _fresh_sessions, new_thread, source  # noqa: F401
from tests.sources.test_reddit_tracker import T0, _fight

pytestmark = pytest.mark.integration


def test_stall8_misago_tracker_edited_in_place(misago: Any, tmp_path: Path) -> None:
    """STALL-8: one Misago post for the tracker; its text follows the round."""
    url, tid, _start = new_thread(misago, "Tracker thread", 1)
    engine = store.make_engine(f"sqlite:///{tmp_path / 'pbp.sqlite'}")
    store.upgrade(f"sqlite:///{tmp_path / 'pbp.sqlite'}")
    with store.session_scope(engine) as s:
        enc, r1 = _fight(s, "forum", url, {"preset": "misago", "allowed_hosts": ["127.0.0.1"]})
        assert [r.kind for r in s.scalars(select(m.Reply))].count("tracker") == 1
    marker = f"pbp-reply:tracker:{enc}"

    def deliver() -> None:
        with store.session_scope(engine) as s:
            ids = pending_replies(s)
        for rid in ids:
            for attempt in range(4):
                _bot_turn()
                try:
                    with store.session_scope(engine) as s:
                        service.deliver_reply(s, rid, source(url))
                    break
                except SourceError as err:
                    # Under load a post before this one may have reached Misago late, so its
                    # 3 s flood window starts later than _bot_turn counted: wait the preset's
                    # retry time and try again, as the worker's outbox sweep does.
                    if not err.retryable or attempt == 3:
                        raise
                    time.sleep(err.retry_after or 5)

    deliver()
    mine = [p for p in visible_posts(misago.base, tid).values() if marker in str(p.get("content"))]
    assert len(mine) == 1 and "round 1" in str(mine[0]["content"])
    with store.session_scope(engine) as s:
        service.resolve_round(s, r1, T0 + timedelta(hours=24))
        assert [r.kind for r in s.scalars(select(m.Reply).where(m.Reply.state == "pending"))].count("edit") == 1
    deliver()
    after = [p for p in visible_posts(misago.base, tid).values() if marker in str(p.get("content"))]
    assert [p["id"] for p in after] == [mine[0]["id"]]
    assert "round 2" in str(after[0]["content"]) and "round 1" not in str(after[0]["content"])
    engine.dispose()
