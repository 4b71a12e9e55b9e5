"""The workers against Misago (tests/harness/misago/): issue 14 point 6 end to end.

A player posts through Misago's API with a plain client; a real worker and beat (Redis +
PostgreSQL) read the thread through the posts API (``format = "json"``), and the opening,
the reminder and the resolution appear on the thread exactly once, posted by the bot after
its JSON login. The reminder is due right after the opening (Misago allows a member one
post per 3 s; with the worker's host interval it was not refused in the runs seen here,
and a refusal would be retried, never doubled).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.harness.misago.helpers import load_harness, player_posts, serve, visible_posts

from .conftest import Stack, timedelta, utc_now, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture(scope="module")
def misago() -> Iterator[Any]:
    yield from serve(load_harness())


def test_misago_posts_in_reminder_and_resolution_out(redis_pg_stack: Stack, misago: Any) -> None:
    from pbp.store import models as m

    st = redis_pg_stack
    port = urlsplit(misago.base).port
    st.env.update({f"PBP_SECRET_127_0_0_1_{port}_USERNAME": "pbpbot",
                   f"PBP_SECRET_127_0_0_1_{port}_PASSWORD": "botpass",
                   "PBP_USER_AGENT": "pbp-tests/1"})
    line = next(x for x in misago.seed("thread", f"Workers {time.time_ns()}", "1")
                if x.startswith("THREAD"))
    _, path, tid, _, _ = line.split()
    opened = utc_now()
    st.seed(round_seconds=600, reminder_seconds=[590], players={"brienne": "player", "tomas": "tomas"},
            thread={"kind": "forum", "url": misago.base + path, "platform": "markdown",
                    "options": {"preset": "misago", "allowed_hosts": ["127.0.0.1"]}}, now=opened)
    st.start_worker()
    st.start_beat()
    try:
        player_posts(misago.base, tid, "I attack the goblin with my longsword [roll]1d20+5[/roll]")

        def declared() -> bool:
            return any(d.post_id for d in st.rows(m.Declaration))

        wait_for(declared, 60, "the player's declaration read from Misago's API")
        sent = lambda kind: [r for r in st.rows(m.Reply, kind=kind) if r.state == "sent"]  # noqa: E731
        wait_for(lambda: sent("opening"), 40, "the opening reply")
        reminder = wait_for(lambda: sent("reminder"), 60, "the reminder")[0]
        assert "Tomas" in reminder.body
        deadline = utc_now() + timedelta(seconds=2)
        with st.session() as s:
            s.get(m.Round, st.rows(m.Round)[0].id).deadline = deadline
        resolution = wait_for(lambda: sent("resolution"), 60, "the resolution")[0]
        assert (resolution.sent_at - deadline).total_seconds() <= 30
        time.sleep(4)
        posts = visible_posts(misago.base, tid)
        replies = [r for r in st.rows(m.Reply) if r.state == "sent"]
        assert {r.platform_id for r in replies} <= set(posts)
        assert len(posts) == 1 + 1 + len(replies) == 5, list(posts)  # seed, player, 3 replies
        assert [posts[r.platform_id]["poster_name"] for r in replies] == ["pbpbot"] * 3
        for r in replies:  # each reply's marker is on the thread exactly once
            assert sum(r.marker in p["content"] for p in posts.values()) == 1
        assert "<strong>" in posts[resolution.platform_id]["content"]   # Markdown, rendered
        logs = st.logs()
        assert "polled" in logs and "botpass" not in logs
    except BaseException:
        print(st.logs())
        raise
