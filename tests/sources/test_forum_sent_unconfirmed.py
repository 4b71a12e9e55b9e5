"""Issue 14 point 3: a reply is never reported lost when it was posted.

The forum here replays what a real SMF 2.1.4 served (``fixtures/forums/smf21``): its login,
its reply form, and its answer to a reply, a 302 to ``topic=2.new#new`` that names no
message. pbp must then find its reply by the marker. When that look fails (the thread
page unreadable, or the new post not showing yet), the reply is "sent, not yet
confirmed": retried by looking again, never by posting again. One POST, whatever happens.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from pbp.jobs.delivery import record_delivery_failure
from pbp.rounds import service
from pbp.sources.base import LayoutError, SentUnconfirmed
from pbp.sources.forum import ForumSource, forget_sessions
from pbp.sources.http import PoliteClient, reset_host_intervals
from pbp.store import db as store
from pbp.store import models as m
from tests.conftest import shared_path

MARKER = "pbp-reply:1:opening"      # the marker of the bot's post in bot_topic_last.html
CAPTURED = "http://127.0.0.1:8102"  # the capture's own address, inside the saved pages


@dataclass
class Smf21:
    """Saved SMF 2.1.4 answers, served by query string; ``last`` is the thread's last page."""

    base: str = ""
    last: str = "after reply"
    after_post: str = ""            # what the last page turns into once a reply is posted
    posts: list[dict[str, str]] = field(default_factory=list)

    def page(self, name: str) -> bytes:
        if name == "after reply":
            return self.after_reply()
        raw = shared_path("fixtures", "forums", "smf21", name).read_bytes()
        return raw.replace(CAPTURED.encode(), self.base.encode())

    def after_reply(self) -> bytes:
        """The last page once the bot's reply is in: the capture's page 4 with its last
        message repeated as the reply truth.json records (msg 19, by pbpbot, u=3). The
        capture holds no page showing it: the session stopped after posting."""
        page = self.page("bot_topic_last.html").decode()
        start = page.index('<div class="windowbg" id="msg18">')
        wrapper = page.index("<!-- .post_wrapper -->", start)
        end = page.index("</div>", wrapper) + len("</div>")
        block = page[start:end]
        for old, new in (("msg18", "msg19"), ("msg=18", "msg=19"), ("_18", "_19"),
                         ('data-msgid="18"', 'data-msgid="19"'), ("u=2", "u=3"),
                         (">player<", ">pbpbot<"), ("of player", "of pbpbot"),
                         ("Avanço pelo corredor com a tocha.", f"<b>Round 1</b> test reply {MARKER}")):
            block = block.replace(old, new)
        return (page[:end] + "\n" + block + page[end:]).encode()


@pytest.fixture
def smf21() -> Iterator[Smf21]:
    forum = Smf21()
    broken = b"<html><body><h1>Database error</h1><p>Please try again.</p></body></html>"

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_GET(self) -> None:
            query = urlsplit(self.path).query
            if query.startswith("action=login"):
                return self._send(200, forum.page("login.html"))
            if query.startswith("action=post;"):
                return self._send(200, forum.page("reply_form.html"))
            pages = {"topic=2.0": "topic_p1_aged.html", "topic=2.5": "topic_p2_aged.html",
                     "topic=2.10": "topic_p3_aged.html"}
            if query in pages:
                return self._send(200, forum.page(pages[query]))
            if query in ("topic=2.15", "topic=2.new"):
                return self._send(200, broken if forum.last == "broken" else forum.page(forum.last))
            return self._send(200, forum.page("forum_list.html"))

        def do_POST(self) -> None:
            query = urlsplit(self.path).query
            size = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(size).decode()
            if query.startswith("action=login2"):
                return self._send(302, b"", {"Location": f"{forum.base}/index.php"})
            forum.posts.append({"query": query, "body": body})
            forum.last = forum.after_post or forum.last
            self._send(302, b"", {"Location": f"{forum.base}/index.php?topic=2.new#new"})

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Type", "text/html; charset=UTF-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    forum.base = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    forget_sessions()
    reset_host_intervals()
    try:
        yield forum
    finally:
        server.shutdown()
        server.server_close()
        forget_sessions()


def source(forum: Smf21) -> ForumSource:
    client = PoliteClient(user_agent="pbp-tests/1", min_interval=0, allowed_hosts={"127.0.0.1"})
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
