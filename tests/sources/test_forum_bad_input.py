"""Bad days on a forum, through real HTTP: a local server speaking machina's markup that
can fail on demand (HTML 429 half-way through a walk, a broken layout, a 404, a huge
or slow answer, a redirect elsewhere). Each failure is an error that says what and
where, and a cursor never moves past posts that were not read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from pbp.settings import load_settings
from pbp.sources.base import LayoutError, SourceError
from pbp.sources.forum import ForumSource
from pbp.sources.http import PoliteClient, reset_host_intervals
from tests.conftest import shared_path

TOPIC = "/forum/forum/adventures-2/topic/the-goblin-cave-1/"
POST = ('<div class="my-3 card post" id="{id}"><div class="post-content-wrapper">'
        '<p><small class="text-muted">By: <a href="/forum/member/profile/{uid}/">{author}</a> '
        'on Nov. 30, 2026, {hour}:{minute:02d} a.m.</small></p>'
        '<div class="post-content"><p>{text}</p></div></div></div>')
PAGE = ('<!doctype html><html><head><meta charset="utf-8"><title>The Goblin Cave</title></head>'
        '<body>{posts}<div class="col-12 col-md-8 pagination-block"><ul class="pagination">{links}'
        '</ul></div></body></html>')


@dataclass
class FakeForum:
    """A machina-looking thread; ``fail[(path, page)] = (status, body, headers)`` injects."""

    posts: list[tuple[int, str, str]] = field(default_factory=list)
    per_page: int = 5
    fail: dict[tuple[str, int], tuple[int, bytes, dict[str, str]]] = field(default_factory=dict)
    last_modified: str = formatdate(usegmt=True)
    log: list[tuple[float, str, dict[str, str]]] = field(default_factory=list)
    raw: dict[str, tuple[int, bytes, dict[str, str]]] = field(default_factory=dict)

    def add(self, n: int, author: str = "player") -> None:
        start = max((p[0] for p in self.posts), default=0)
        for i in range(start, start + n):
            self.posts.append((i + 1, author, f"I attack the goblin, turn {i + 1}"))
        self.last_modified = formatdate(time.time() + len(self.posts), usegmt=True)

    def render(self, page: int) -> bytes | None:
        last = -(-len(self.posts) // self.per_page)
        if page > last:
            return None
        chunk = self.posts[(page - 1) * self.per_page: page * self.per_page]
        posts = "".join(POST.format(id=pid, uid=7, author=a, hour=1 + pid % 11, minute=pid % 60,
                                    text=t) for pid, a, t in chunk)
        links = "".join(f'<li><a class="page-link" href="?page={n}">{n}</a></li>'
                        for n in range(1, last + 1))
        return PAGE.format(posts=posts, links=links).encode()


@pytest.fixture
def forum() -> Iterator[tuple[FakeForum, str]]:
    state = FakeForum()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            state.log.append((time.monotonic(), self.path, dict(self.headers)))
            if parts.path in state.raw:
                return self._send(*state.raw[parts.path])
            page = int(parse_qs(parts.query).get("page", ["1"])[0])
            if (parts.path, page) in state.fail:
                return self._send(*state.fail[(parts.path, page)])
            if parts.path != TOPIC:
                return self._send(404, b"<h1>Not found</h1>", {})
            body = state.render(page)
            if body is None:
                return self._send(404, b"<h1>Not found</h1>", {})
            if self.headers.get("If-Modified-Since") == state.last_modified:
                return self._send(304, b"", {})
            self._send(200, body, {"Content-Type": "text/html; charset=utf-8",
                                   "Last-Modified": state.last_modified})

        def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            if headers.get("X-Sleep"):
                time.sleep(float(headers["X-Sleep"]))
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    reset_host_intervals()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def make(base: str, **client_kw: Any) -> ForumSource:
    s = load_settings(env={"PBP_MIN_HOST_INTERVAL": "0", "PBP_USER_AGENT": "pbp-tests/1 (+ci)",
                           "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})
    client = PoliteClient(user_agent=s.user_agent, min_interval=client_kw.pop("min_interval", 0),
                          allowed_hosts={"127.0.0.1"}, private_hosts=s.allow_private_hosts, **client_kw)
    return ForumSource(base + TOPIC, "machina", settings=s, client=client,
                       credentials={"username": "pbpbot", "password": "x"})


TOO_MANY = (429, b"<html><body><div class='alert'>Flood control: you are browsing too fast. "
                 b"Please wait 20 seconds.</div></body></html>", {"Content-Type": "text/html"})


def test_html_429_half_way_keeps_the_cursor_before_unread_posts(forum: Any) -> None:
    state, base = forum
    state.add(5)
    src = make(base)
    first = src.fetch(None)
    assert len(first.posts) == 5 and first.cursor["page"] == 1
    state.add(9)                              # 14 posts: pages 2 and 3 are new
    state.fail[(TOPIC, 2)] = TOO_MANY
    with pytest.raises(SourceError) as err:
        src.fetch(first.cursor)               # reads page 1, jumps to 3, page 2 answers 429
    assert err.value.retry_after == 20 and err.value.retryable
    assert "HTTP 429" in str(err.value) and f"{base}{TOPIC}?page=2" in str(err.value)
    del state.fail[(TOPIC, 2)]
    later = src.fetch(first.cursor)           # the caller kept the old cursor
    assert [p.platform_id for p in later.posts] == [str(i) for i in range(6, 15)]


def test_429_retry_after_header_wins(forum: Any) -> None:
    state, base = forum
    state.fail[(TOPIC, 1)] = (429, b"<p>slow down</p>", {"Retry-After": "7"})
    with pytest.raises(SourceError) as err:
        make(base).fetch(None)
    assert err.value.retry_after == 7


def test_broken_layout_is_a_layout_error_not_zero_posts(forum: Any) -> None:
    state, base = forum
    state.add(3)
    src = make(base)
    cursor = src.fetch(None).cursor
    state.add(1)
    state.fail[(TOPIC, 1)] = (200, b"<html><body><p>Our new look!</p><article>Post</article>"
                                   b"</body></html>", {"Content-Type": "text/html"})
    with pytest.raises(LayoutError) as err:
        src.fetch(cursor)
    assert "'div.card.post[id]' matched nothing" in str(err.value)
    assert f"{base}{TOPIC}?page=1" in str(err.value)
    del state.fail[(TOPIC, 1)]
    assert [p.platform_id for p in src.fetch(cursor).posts] == ["4"]


def test_404_thread(forum: Any) -> None:
    _, base = forum
    with pytest.raises(SourceError) as err:
        make(base).fetch(None)
    assert "thread not found (HTTP 404)" in str(err.value) and TOPIC in str(err.value)
    assert not err.value.retryable


def test_server_error_is_retryable(forum: Any) -> None:
    state, base = forum
    state.fail[(TOPIC, 1)] = (500, b"<h1>boom</h1>", {})
    with pytest.raises(SourceError) as err:
        make(base, retries=0).fetch(None)
    assert "HTTP 500" in str(err.value) and err.value.retryable


def test_response_size_is_bounded(forum: Any) -> None:
    state, base = forum
    state.add(5)
    with pytest.raises(SourceError, match="over the 1000-byte limit"):
        make(base, max_bytes=1000).fetch(None)


def test_response_time_is_bounded(forum: Any) -> None:
    state, base = forum
    state.fail[(TOPIC, 1)] = (200, b"<p>late</p>", {"X-Sleep": "1.5"})
    started = time.monotonic()
    with pytest.raises(SourceError) as err:
        make(base, read_timeout=0.3, retries=0).fetch(None)
    assert time.monotonic() - started < 1.4
    assert "no answer within 0.3 s" in str(err.value) and err.value.retryable


def test_redirect_to_another_host_is_refused(forum: Any) -> None:
    state, base = forum
    state.fail[(TOPIC, 1)] = (302, b"", {"Location": "http://169.254.169.254/latest/meta-data/"})
    with pytest.raises(SourceError, match="host '169.254.169.254' is not configured"):
        make(base).fetch(None)


def test_honest_user_agent_and_minimum_interval(forum: Any) -> None:
    state, base = forum
    state.add(12)
    src = make(base, min_interval=0.25)
    assert len(src.fetch(None).posts) == 12
    times = [t for t, _, _ in state.log]
    assert len(times) == 3 and all(b - a >= 0.24 for a, b in zip(times, times[1:], strict=False))
    assert {h["User-Agent"] for _, _, h in state.log} == {"pbp-tests/1 (+ci)"}


def test_last_modified_gives_conditional_gets(forum: Any) -> None:
    state, base = forum
    state.add(3)
    src = make(base)
    first = src.fetch(None)
    assert first.cursor["last_modified"] == state.last_modified and first.cursor["etag"] is None
    idle = src.fetch(first.cursor)
    assert idle.not_modified and idle.requests == 1
    assert state.log[-1][2]["If-Modified-Since"] == state.last_modified
    state.add(1)
    assert [p.platform_id for p in src.fetch(idle.cursor).posts] == ["4"]


def test_charset_only_in_meta_over_http(forum: Any) -> None:
    state, base = forum
    raw = shared_path("fixtures", "forums", "vbulletin3",
                      "ocuk_mobile_overclockersuk_vb373_showthread.html").read_bytes()
    state.raw["/vb/showthread.php"] = (200, raw, {"Content-Type": "text/html"})
    client = PoliteClient(user_agent="pbp-tests", min_interval=0, allowed_hosts={"127.0.0.1"},
                          private_hosts="127.0.0.1")
    src = ForumSource(base + "/vb/showthread.php?t=18269941", "vbulletin", client=client,
                      settings=load_settings(env={}))
    resp = client.get(base + "/vb/showthread.php?t=18269941")
    assert "21 November 1954 – 31 March" in resp.text
    posts = src.fetch(None).posts
    assert len(posts) == 30 and posts[0].author == "ash_scotland88"


def test_thread_url_must_fit_the_preset(forum: Any) -> None:
    from pbp.errors import ConfigError
    _, base = forum
    with pytest.raises(ConfigError, match="not a django-machina 1.3 thread URL"):
        ForumSource(base + "/viewtopic.php?t=3", "machina", settings=load_settings(env={}))


def test_deletions_that_shrink_the_thread_are_not_mistaken(forum: Any) -> None:
    state, base = forum
    state.add(16)                              # pages 1-4, page 4 holds post 16 alone
    src = make(base)
    first = src.fetch(None)
    assert first.cursor["page"] == 4 and first.cursor["page_ids"] == ["16"]
    state.posts = [p for p in state.posts if p[0] not in (2, 3)]   # page 4 is gone now
    got = src.fetch(first.cursor)
    assert sorted((p.platform_id, p.change) for p in got.posts) == [("2", "deleted"),
                                                                    ("3", "deleted")]
    state.posts = [p for p in state.posts if p[0] not in (9, 10, 11, 12, 13, 14)]
    state.add(1)                               # post 17; the old last page's posts moved back
    again = src.fetch(got.cursor)
    assert sorted((p.platform_id, p.change) for p in again.posts) == sorted(
        [(str(i), "deleted") for i in (9, 10, 11, 12, 13, 14)] + [("17", "new")])


OLD_SLUG = "/forum/forum/adventures-2/topic/the-old-cave-1/"


def test_a_renamed_thread_is_followed_to_its_new_address(forum: Any) -> None:
    """issue 14 point 2: the thread was renamed; its old address answers every page with
    a redirect to the new one's page 1. pbp follows the new address for every page and
    reads all 12 posts, instead of reading page 1 three times as pages 1, 2 and 3."""
    state, base = forum
    state.add(12)
    state.raw[OLD_SLUG] = (301, b"", {"Location": TOPIC})
    s = load_settings(env={"PBP_MIN_HOST_INTERVAL": "0", "PBP_USER_AGENT": "pbp-tests/1 (+ci)",
                           "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})
    client = PoliteClient(user_agent=s.user_agent, min_interval=0, allowed_hosts={"127.0.0.1"},
                          private_hosts=s.allow_private_hosts)
    src = ForumSource(base + OLD_SLUG, "machina", settings=s, client=client)
    got = src.fetch(None)
    assert [p.platform_id for p in got.posts] == [str(i) for i in range(1, 13)]
    assert got.cursor["page"] == 3
    assert src.page_url(3) == f"{base}{TOPIC}?page=3"


def test_a_page_sent_back_to_page_one_is_missing_not_read_as_itself(forum: Any) -> None:
    """issue 14 point 2: page 3 redirects to page 1 of the same thread (the forum lost
    it): a retryable error naming page 3, and no cursor that claims page 3 was read."""
    state, base = forum
    state.add(12)
    state.fail[(TOPIC, 3)] = (302, b"", {"Location": TOPIC})
    with pytest.raises(SourceError) as err:
        make(base).fetch(None)
    assert "page 3 vanished" in str(err.value) and err.value.retryable


def test_a_redirect_out_of_the_thread_says_where_it_went(forum: Any) -> None:
    """issue 14 point 2: the thread's address now leads to the forum's index (deleted,
    or access withdrawn): an error that says where, never the index read as a thread."""
    state, base = forum
    state.add(3)
    state.fail[(TOPIC, 1)] = (302, b"", {"Location": "/forum/"})
    state.raw["/forum/"] = (200, b"<html><body><h1>Forums</h1></body></html>",
                            {"Content-Type": "text/html"})
    with pytest.raises(SourceError, match=r"now leads to http://127\.0\.0\.1:\d+/forum/"):
        make(base).fetch(None)


def test_a_refusal_quotes_the_servers_reason(forum: Any) -> None:
    """issue 14 point 6: the server's own reason goes into the error a narrator reads, from
    a JSON API (Misago's words) or from a short page; not only "HTTP 403"."""
    state, base = forum
    state.add(3)
    state.fail[(TOPIC, 1)] = (403, b'{"detail": "This action is not available to guests."}',
                              {"Content-Type": "application/json"})
    with pytest.raises(SourceError) as err:
        make(base).fetch(None)
    assert "access refused (HTTP 403): «This action is not available to guests.»" in str(err.value)
    state.fail[(TOPIC, 1)] = (500, b"<html><body><h1>Database error</h1><p>Too many connections"
                                   b"</p><script>x()</script></body></html>", {})
    with pytest.raises(SourceError) as err:
        make(base).fetch(None)
    assert str(err.value).endswith("HTTP 500: «Database error Too many connections»")
