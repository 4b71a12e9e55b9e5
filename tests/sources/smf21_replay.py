"""A forum that replays what a real SMF 2.1.4 served (``fixtures/forums/smf21``), over real
HTTP: its login, its reply form, its four topic pages, and its answer to a reply (a 302 to
``topic=2.new#new`` naming no message). Tests change ``pages`` (query -> saved page) and
``last`` to make the thread look as they need; ``requests`` records what was asked.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from pbp.sources.forum import forget_sessions
from pbp.sources.http import reset_host_intervals
from tests.conftest import shared_path

MARKER = "pbp-reply:1:opening"      # the marker of the bot's post in bot_topic_last.html
CAPTURED = "http://127.0.0.1:8102"  # the capture's own address, inside the saved pages
#: SMF 2.1's answer to a second login within 2 s: spamProtection('login') raises the fatal
#: error $txt['loginWaitTime_broken'] (Errors.english.php) inside the theme's error box
LOGIN_FLOOD = (b'<html><body><div id="fatal_error"><div class="cat_bar"><h3 class="catbg">'
               b'An Error Has Occurred!</h3></div><div class="windowbg"><div class="padding">'
               b'You will have to wait about 2 seconds to login again, sorry.</div></div></div>'
               b'</body></html>')


@dataclass
class Smf21:
    """Saved SMF 2.1.4 answers, served by query string; ``last`` is the thread's last page."""

    base: str = ""
    last: str | bytes = "after reply"
    after_post: str = ""            # what the last page turns into once a reply is posted
    posts: list[dict[str, str]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    cookies: list[tuple[str, str]] = field(default_factory=list)   # (query, Cookie header)
    pages: dict[str, str | bytes] = field(default_factory=lambda: {
        "topic=2.0": "topic_p1_aged.html", "topic=2.5": "topic_p2_aged.html",
        "topic=2.10": "topic_p3_aged.html"})
    #: query -> (status, Location) answered instead of a page
    redirects: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: how many login POSTs answer with SMF's login flood control (HTTP 403) before one passes
    login_floods: int = 0
    #: the login POST answers with the login form again, as SMF does for a wrong password
    login_refused: bool = False

    def page(self, name: str | bytes) -> bytes:
        if isinstance(name, bytes):     # a page a test built
            return name
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


@contextmanager
def serve_smf21() -> Iterator[Smf21]:
    """The replaying forum on a free local port (bot sessions forgotten around it)."""
    forum = Smf21()
    broken = b"<html><body><h1>Database error</h1><p>Please try again.</p></body></html>"

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def do_GET(self) -> None:
            query = urlsplit(self.path).query
            forum.requests.append(query)
            forum.cookies.append((query, self.headers.get("Cookie") or ""))
            if query in forum.redirects:
                status, where = forum.redirects[query]
                return self._send(status, b"", {"Location": f"{forum.base}{where}"})
            if query.startswith("action=login"):
                return self._send(200, forum.page("login.html"))
            if query.startswith("action=post;"):
                return self._send(200, forum.page("reply_form.html"))
            if query in forum.pages:
                return self._send(200, forum.page(forum.pages[query]))
            if query in ("topic=2.15", "topic=2.new"):
                return self._send(200, broken if forum.last == "broken" else forum.page(forum.last))
            return self._send(200, forum.page("forum_list.html"))

        def do_POST(self) -> None:
            query = urlsplit(self.path).query
            size = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(size).decode()
            forum.cookies.append((query, self.headers.get("Cookie") or ""))
            if query.startswith("action=login2") and forum.login_floods > 0:
                forum.login_floods -= 1             # SMF 2.1's fatal error page for spamProtection
                return self._send(403, LOGIN_FLOOD)
            if query.startswith("action=login2") and forum.login_refused:
                return self._send(200, forum.page("login.html"))
            if query.startswith("action=login2"):    # SMF's own cookie, for the bot only
                return self._send(302, b"", {"Location": f"{forum.base}/index.php",
                                             "Set-Cookie": "SMFCookie11=pbpbot-session; Path=/"})
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
