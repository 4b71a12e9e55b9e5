"""Issue 14 point 3: a reply is never reported lost when it was posted.

The forum here replays what a real SMF 2.1.4 served (``fixtures/forums/smf21``): its login,
its reply form, and its answer to a reply, a 302 to ``topic=2.new#new`` that names no
message. pbp must then find its reply by the marker. When that look fails (the thread
page unreadable, or the new post not showing yet), the reply is "sent, not yet
confirmed": retried by looking again, never by posting again. One POST, whatever happens.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pbp.jobs.delivery import record_delivery_failure
from pbp.rounds import service
from pbp.settings import load_settings
from pbp.sources.base import LayoutError, SentUnconfirmed, SourceError
from pbp.sources.forum import ForumSource
from pbp.sources.http import PoliteClient
from pbp.store import db as store
from pbp.store import models as m
from tests.sources.smf21_replay import Smf21, serve_smf21

MARKER = "pbp-reply:1:opening"      # the marker of the bot's post in the reply


@pytest.fixture
def smf21() -> Iterator[Smf21]:
    with serve_smf21() as forum:
        yield forum


def source(forum: Smf21) -> ForumSource:
    client = PoliteClient(user_agent="pbp-tests/1", min_interval=0, allowed_hosts={"127.0.0.1"},
                          private_hosts="127.0.0.1")
    return ForumSource(f"{forum.base}/index.php?topic=2.0", "smf21", client=client,
                       credentials={"username": "pbpbot", "password": "botpass"})


def test_smf21_reply_is_named_by_its_marker_not_by_the_pages_links(smf21: Smf21) -> None:
    """issue 14 point 3: SMF 2.1 answers a reply with ``topic=2.new#new``; the page it
    lands on links ``?msg=17`` and ``?msg=18`` (other posts). The reply's id is the bot's
    own post holding the marker: message 19 in the capture's truth.json."""
    got = source(smf21).reply(f"[b]Round 1[/b] test reply {MARKER}", MARKER)
    assert got == "19"
    assert len(smf21.posts) == 1 and "action=post2" in smf21.posts[0]["query"]


def test_a_failed_confirmation_is_sent_not_yet_confirmed(smf21: Smf21) -> None:
    """issue 14 point 3: the thread page cannot be read after the forum accepted the reply:
    a retryable SentUnconfirmed, not the LayoutError that made a narrator resend."""
    smf21.last = "broken"
    with pytest.raises(SentUnconfirmed) as caught:
        source(smf21).reply(f"[b]Round 1[/b] test reply {MARKER}", MARKER)
    assert not isinstance(caught.value, LayoutError)
    assert caught.value.retryable and caught.value.retry_after
    assert "sent" in str(caught.value) and "post container selector" in str(caught.value)
    assert "topic=2.15" in str(caught.value)           # where it looked
    assert len(smf21.posts) == 1


def test_the_outbox_looks_again_and_never_posts_twice(smf21: Smf21, tmp_path: Path) -> None:
    """issue 14 point 3, through the outbox: attempt 1 posts and cannot confirm (page
    unreadable just after the POST) -> ``sending``; attempt 2 the page reads but the post is not on it yet ->
    still ``sending``, no second POST; attempt 3 finds it -> ``sent`` with its id."""
    url = f"sqlite:///{tmp_path / 'pbp.sqlite'}"
    store.upgrade(url)
    engine = store.make_engine(url)
    with store.session_scope(engine) as s:
        campaign = m.Campaign(name="Caverna", slug="caverna", ruleset="forum-d20")
        thread = m.Thread(campaign=campaign, kind="forum", url=f"{smf21.base}/index.php?topic=2.0",
                          platform="bbcode")
        s.add_all([campaign, thread])
        s.flush()
        reply = m.Reply(thread_id=thread.id, kind="opening", idempotency_key="1:opening",
                        marker=MARKER, platform="bbcode", language="en",
                        body=f"[b]Round 1[/b] test reply {MARKER}")
        s.add(reply)
        s.flush()
        reply_id = reply.id

    def attempt() -> BaseException | None:
        try:
            with store.session_scope(engine) as s:
                service.deliver_reply(s, reply_id, source(smf21))
        except SentUnconfirmed as exc:
            with store.session_scope(engine) as s:
                record_delivery_failure(s, reply_id, exc, exc.retry_after, datetime.now(UTC))
            return exc
        return None

    def row() -> tuple[str, str | None]:
        with store.session_scope(engine) as s:
            r = s.get_one(m.Reply, reply_id)
            return r.state, r.platform_id

    smf21.last, smf21.after_post = "topic_p4_aged.html", "broken"   # breaks as it posts
    assert isinstance(attempt(), SentUnconfirmed)
    assert row() == ("sending", None) and len(smf21.posts) == 1
    with store.session_scope(engine) as s:
        assert reply_id in service.pending_replies(s)     # the sweep keeps looking for it
    smf21.last = "topic_p4_aged.html"                   # readable; the reply not shown yet
    assert isinstance(attempt(), SentUnconfirmed)
    assert row() == ("sending", None) and len(smf21.posts) == 1
    smf21.last = "after reply"
    assert attempt() is None
    assert row() == ("sent", "19") and len(smf21.posts) == 1
    engine.dispose()


def test_the_thread_is_read_as_a_visitor_after_the_bot_replied(smf21: Smf21) -> None:
    """issue 14 point 4: read as a visitor, write as the bot. Once the bot has logged in
    and replied, its cookie goes with the login and the reply only; every read of the
    thread after it goes without (an engine prints times in the reader's profile zone,
    so a logged-in read shifts every post by the bot's offset)."""
    forum = smf21
    source_ = ForumSource(f"{forum.base}/index.php?topic=2.0", "smf21",
                          settings=load_settings(env={"PBP_MIN_HOST_INTERVAL": "0",
                                                      "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"}),
                          credentials={"username": "pbpbot", "password": "botpass"})
    assert source_.reply(f"[b]Round 1[/b] test reply {MARKER}", MARKER) == "19"
    forum.cookies.clear()
    got = source_.fetch(None)
    assert len(got.posts) == 18 and any(p.by_bot for p in got.posts)
    reads = [(q, c) for q, c in forum.cookies if q.startswith("topic=")]
    assert len(reads) == 4 and not [q for q, c in reads if "SMFCookie11" in c]
    with pytest.raises(SentUnconfirmed):   # the replayed thread never shows a second reply
        source_.reply("[b]Round 2[/b] pbp-reply:2:opening", "pbp-reply:2:opening")
    posted = [c for q, c in forum.cookies if q.startswith("action=post")]
    assert posted and all("SMFCookie11=pbpbot-session" in c for c in posted)


def test_a_second_login_too_soon_is_a_wait_not_a_refusal(smf21: Smf21) -> None:
    """issue 14: SMF 2.1 answers a login within 2 s of the last with HTTP 403 and "You will
    have to wait about 2 seconds to login again, sorry." That is flood control: a retryable
    error waiting the 2 s the page names, never "login refused" (which reads as a wrong
    password), and nothing is posted. The next attempt logs in and replies once."""
    smf21.login_floods = 1
    forum_source = source(smf21)
    with pytest.raises(SourceError) as caught:
        forum_source.reply(f"[b]Round 1[/b] test reply {MARKER}", MARKER)
    assert caught.value.retryable and caught.value.retry_after == 2
    assert "login refused" not in str(caught.value) and "flood control" in str(caught.value)
    assert "HTTP 403" in str(caught.value) and smf21.posts == []
    assert forum_source.reply(f"[b]Round 1[/b] test reply {MARKER}", MARKER) == "19"
    assert len(smf21.posts) == 1


def test_a_wrong_password_is_still_login_refused(smf21: Smf21) -> None:
    """issue 14: the flood reading must not swallow a real refusal: SMF's login page shown
    again (the form is back) stays a permanent "login refused"."""
    smf21.login_refused = True
    forum_source = source(smf21)
    with pytest.raises(SourceError) as caught:
        forum_source.login(force=True)
    assert "login refused" in str(caught.value) and not caught.value.retryable
