"""Outbound confinement (issue 12 item 5): the worker never fetches an address inside the
network -- checked after DNS resolution, on every connection, redirects included -- unless
the operator's ``allow_private_hosts`` names the host. Real listeners on loopback count
the requests that reach them, so "refused" means nothing was sent."""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import trustme

from pbp.errors import ConfigError
from pbp.settings import load_settings
from pbp.sources.base import SourceError
from pbp.sources.forum import ForumSource
from pbp.sources.http import PoliteClient, reset_host_intervals
from pbp.sources.outbound import PrivateAddressError, PrivateHosts
from pbp.sources.reddit_client import RedditConfig, make_reddit
from pbp.sources.reddit_errors import translate


@dataclass
class Listener:
    """A real HTTP server on loopback that counts what reached it; ``redirect`` makes it
    answer 302 to that address."""

    host: str
    port: int = 0
    hits: list[str] = field(default_factory=list)
    redirect: str | None = None


class _V6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6


@pytest.fixture
def listen() -> Iterator[Any]:
    servers: list[ThreadingHTTPServer] = []

    def start(host: str = "127.0.0.1", redirect: str | None = None) -> Listener:
        state = Listener(host, redirect=redirect)

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                state.hits.append(self.path)
                if state.redirect:
                    self.send_response(302)
                    self.send_header("Location", state.redirect)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                body = b"<html><body>inside</body></html>"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        cls = _V6Server if ":" in host else ThreadingHTTPServer
        server = cls((host, 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        state.port = server.server_address[1]
        return state

    reset_host_intervals()
    try:
        yield start
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def client(allow: str = "") -> PoliteClient:
    return PoliteClient(user_agent="pbp-tests", min_interval=0, retries=0, private_hosts=allow)


def refused(c: PoliteClient, url: str) -> PrivateAddressError:
    try:
        with pytest.raises(PrivateAddressError) as err:
            c.get(url)
    finally:
        c.session.close()
    assert not err.value.retryable          # a permanent configuration problem
    return err.value


def test_loopback_v4_is_refused_before_anything_is_sent(listen: Any) -> None:
    """issue 12 item 5: 127.0.0.1 refused; the listener there saw no request."""
    inside = listen()
    err = refused(client(), f"http://127.0.0.1:{inside.port}/forum/topic/1/")
    assert inside.hits == []
    assert "pbp does not fetch addresses inside your network (127.0.0.1)" in str(err)
    assert f"PBP_ALLOW_PRIVATE_HOSTS=127.0.0.1:{inside.port}" in str(err)
    assert err.where == f"http://127.0.0.1:{inside.port}/forum/topic/1/"


def test_loopback_v6_is_refused(listen: Any) -> None:
    """issue 12 item 5: ::1 refused, its listener untouched."""
    inside = listen("::1")
    err = refused(client(), f"http://[::1]:{inside.port}/")
    assert inside.hits == [] and "(::1)" in str(err)
    assert f"PBP_ALLOW_PRIVATE_HOSTS=[::1]:{inside.port}" in str(err)


@pytest.mark.parametrize("url, address", [
    ("http://10.0.0.1/forum/", "10.0.0.1"),                        # RFC 1918
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),  # cloud metadata
    ("http://[fd00:ec2::254]/latest/meta-data/", "fd00:ec2::254"),    # AWS metadata, IPv6
    ("http://0.0.0.0:8080/", "0.0.0.0"),                            # unspecified
    ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1"),            # loopback inside IPv6
])
def test_private_and_metadata_addresses_are_refused_at_once(url: str, address: str) -> None:
    """issue 12 item 5: refused by the check, not by a connect timeout (nothing listens
    there: a connection attempt would take the 5 s connect timeout or fail differently)."""
    started = time.monotonic()
    err = refused(client(), url)
    assert f"({address})" in str(err) and time.monotonic() - started < 1.0


def test_a_name_that_resolves_to_loopback_is_refused(listen: Any) -> None:
    """issue 12 item 5: ``localhost`` is checked by what it resolves to (127.0.0.1)."""
    inside = listen()
    err = refused(client(), f"http://localhost:{inside.port}/")
    assert inside.hits == [] and "(127.0.0.1 for localhost)" in str(err)
    assert f"PBP_ALLOW_PRIVATE_HOSTS=localhost:{inside.port}" in str(err)


def test_an_allowed_address_does_not_let_other_names_for_it_through(listen: Any) -> None:
    """issue 12 item 5: the allow-list matches the host as written: 127.0.0.1 on the list
    lets 127.0.0.1 through, not ``localhost``, which resolves to it."""
    inside = listen()
    c = client("127.0.0.1")
    assert c.get(f"http://127.0.0.1:{inside.port}/a").status == 200
    refused(c, f"http://localhost:{inside.port}/b")
    assert inside.hits == ["/a"]


def test_a_redirect_to_loopback_is_refused(listen: Any) -> None:
    """issue 12 item 5: the first server is allow-listed as localhost:<its port> only; it
    answers 302 to http://127.0.0.1:<other port>/, which is not on the list: refused, and the
    target never sees a request."""
    target = listen()
    first = listen(redirect=f"http://127.0.0.1:{target.port}/admin")
    err = refused(client(f"localhost:{first.port}"), f"http://localhost:{first.port}/topic/1/")
    assert first.hits == ["/topic/1/"] and target.hits == []
    assert f"PBP_ALLOW_PRIVATE_HOSTS=127.0.0.1:{target.port}" in str(err)
    assert err.where == f"http://127.0.0.1:{target.port}/admin"


def test_the_port_on_the_list_is_the_only_port_allowed(listen: Any) -> None:
    """issue 12 item 5: ``host:port`` allows that port; the same host on another port is refused."""
    a, b = listen(), listen()
    c = client(f"127.0.0.1:{a.port}")
    assert c.get(f"http://127.0.0.1:{a.port}/").status == 200
    refused(c, f"http://127.0.0.1:{b.port}/")
    assert (a.hits, b.hits) == (["/"], [])


def test_bad_allow_list_entries_say_which() -> None:
    with pytest.raises(ConfigError, match="'forum.lan:http' has no valid port"):
        PrivateHosts.parse("127.0.0.1, forum.lan:http")
    assert PrivateHosts.parse(" ; ").entries == frozenset()


def test_the_local_forum_needs_the_allow_list(machina: Any, new_topic: Any) -> None:
    """issue 12 item 5: a real forum on loopback is refused without the setting and read
    with it (PBP_ALLOW_PRIVATE_HOSTS=127.0.0.1, as the test harnesses set it)."""
    topic = new_topic(machina, "Behind the firewall", 1)
    closed = load_settings(env={"PBP_MIN_HOST_INTERVAL": "0"})
    with pytest.raises(PrivateAddressError, match="inside your network"):
        ForumSource(topic, "machina", settings=closed, credentials={}).fetch(None)
    opened = closed.with_overrides(allow_private_hosts="127.0.0.1")
    posts = ForumSource(topic, "machina", settings=opened, credentials={}).fetch(None).posts
    assert [p.author for p in posts] == ["admin"]


def test_reddit_endpoints_are_confined_too(listen: Any) -> None:
    """issue 12 item 5: praw's session goes through the same check: an ``oauth_url`` on
    loopback (a thread's options can set it) is refused unless allow-listed."""
    inside = listen()
    url = f"http://127.0.0.1:{inside.port}"
    config = RedditConfig(client_id="x", client_secret="y", username="bot", password="pw",
                          oauth_url=url, reddit_url=url)
    reddit = make_reddit(config, shared=False)
    with pytest.raises(Exception) as raw:
        reddit.submission("abc123").title   # noqa: B018 (praw fetches lazily)
    error = translate(raw.value, "GET /comments/abc123/")
    assert isinstance(error, PrivateAddressError) and not error.retryable
    assert inside.hits == []


def test_the_connection_goes_to_the_checked_address(listen: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 12 item 5 (DNS rebinding): the name is resolved once per connection, for the
    check, and the socket connects to that checked address (a second lookup would let a
    rebinding DNS server answer differently). The real resolver answers; it is only
    counted."""
    inside = listen()
    real, names = socket.getaddrinfo, []

    def counting(host: Any, *args: Any, **kwargs: Any) -> Any:
        names.append(host)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", counting)
    c = client(f"localhost:{inside.port}")
    try:
        assert c.get(f"http://localhost:{inside.port}/one").status == 200
        c.session.close()                     # a new connection: resolved and checked again
        assert c.get(f"http://localhost:{inside.port}/two").status == 200
    finally:
        c.session.close()
    assert names.count("localhost") == 2 and set(names) <= {"localhost", "127.0.0.1"}
    assert inside.hits == ["/one", "/two"]


def test_https_verifies_the_name_while_connecting_to_the_checked_address(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 12 item 5: connecting to the checked address keeps TLS honest: the certificate
    is verified against the URL's name (SNI too), so https://localhost works with a
    certificate for localhost, and https://127.0.0.1 is refused by TLS (not in the cert)."""
    ca = trustme.CA()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("localhost").configure_cert(ctx)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    port = server.server_address[1]
    with ca.cert_pem.tempfile() as bundle:
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", bundle)   # requests prefers it to session.verify
        c = client(f"localhost:{port},127.0.0.1:{port}")
        try:
            assert c.get(f"https://localhost:{port}/").content == b"ok"
            c.session.close()
            with pytest.raises(SourceError, match="SSLError"):
                c.get(f"https://127.0.0.1:{port}/")
        finally:
            c.session.close()
            server.shutdown()
            server.server_close()
