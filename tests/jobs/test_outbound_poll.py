"""Issue 12 item 5: a poll the outbound check refuses is the source's error, shown to the
narrator in words, and waits the long pause of a permanent error (never a tight retry
loop); nothing reaches the address inside the network."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from pbp.jobs import threads
from pbp.jobs.resources import utcnow
from pbp.sources.outbound import PrivateAddressError
from pbp.store.db import session_scope
from pbp.store.models import Thread
from tests.jobs.conftest import Res
from tests.rounds.world import World


@pytest.fixture
def inside() -> Iterator[tuple[int, list[str]]]:
    """A listener on loopback that records every request reaching it."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield server.server_address[1], hits
    finally:
        server.shutdown()
        server.server_close()


def test_a_refused_poll_is_shown_and_waits_long(res: Res, world: World,
                                                inside: tuple[int, list[str]]) -> None:
    """issue 12 item 5: a forum thread on 127.0.0.1 with no allow-list: the poll records the
    refusal as the thread's error, asks for no retry, and is not due again for at least
    backoff(retry_max) = 8 s (retry_base 2, retry_max 3: 2 * 2**3 / 2)."""
    port, hits = inside
    closed = Res(res.settings.with_overrides(allow_private_hosts=""), res.engine, res.leases)
    with session_scope(res.engine) as s:
        t = s.get_one(Thread, world.thread_id)
        t.kind, t.options = "forum", {"preset": "machina"}
        t.url = f"http://127.0.0.1:{port}/forum/forum/table-1/topic/goblins-7/"
    before = utcnow()
    out = threads.poll_thread(closed, world.thread_id, retries=0)
    assert isinstance(out.error, PrivateAddressError) and out.retry_in is None
    with session_scope(res.engine) as s:
        t = s.get_one(Thread, world.thread_id)
        assert "pbp does not fetch addresses inside your network (127.0.0.1)" in (t.last_error or "")
        assert f"PBP_ALLOW_PRIVATE_HOSTS=127.0.0.1:{port}" in (t.last_error or "")
        assert t.error_count == 1 and (t.next_poll - before).total_seconds() >= 8
    assert hits == []
