"""SCALE-2 (issue 17 item 2): Discourse watched through its feed of latest posts
(``/posts.json``), found from the preset for any thread, as the other engines' topic lists.

The oracle is the saved response (../shared/fixtures/forums/discourse/
discourse_api_posts_latest.json, from discourse_api's spec fixtures), not pbp: four posts,
newest first — ids 15 and 14 of topic 11, 10 of topic 7, 2 of topic 2. So the feed says
topic 11's newest post is 15 (not 14: a topic is named by its newest row), topic 7's is
10 and topic 2's is 2. The file is served over real HTTP at ``/posts.json``; a later feed
with one new post (16, in topic 7) marks topic 7 alone as changed."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from pbp.jobs.listings import listing_of
from pbp.settings import load_settings
from pbp.sources.forum_watch import ForumWatcher
from pbp.sources.http import reset_host_intervals
from tests.conftest import shared_path


def _feed() -> dict[str, Any]:
    path = shared_path("fixtures", "forums", "discourse", "discourse_api_posts_latest.json")
    return dict(json.loads(path.read_text(encoding="utf-8")))


@pytest.fixture
def forum() -> Iterator[dict[str, Any]]:
    """A stdlib server answering ``/posts.json`` with ``feed["body"]`` (the saved one first)."""
    feed: dict[str, Any] = {"body": json.dumps(_feed()).encode(), "hits": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            ok = self.path == "/posts.json"
            feed["hits"] += ok
            body = feed["body"] if ok else b""
            self.send_response(200 if ok else 404)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    reset_host_intervals()
    try:
        yield {"base": f"http://127.0.0.1:{server.server_address[1]}", "feed": feed}
    finally:
        server.shutdown()
        server.server_close()


def _settings() -> Any:
    return load_settings(env={"PBP_MIN_HOST_INTERVAL": "0", "PBP_USER_AGENT": "pbp-tests/1",
                              "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})


def test_scale2_any_discourse_thread_is_watched_through_the_sites_feed() -> None:
    for url in ("https://meta.discourse.org/t/the-ambush/12483", "https://forum.example.org/t/123"):
        got = listing_of("forum", url, {"preset": "discourse"})
        assert got.url == url.split("/t/")[0] + "/posts.json", got


def test_scale2_the_feed_names_each_topics_newest_post(forum: dict[str, Any]) -> None:
    watcher = ForumWatcher(forum["base"] + "/posts.json", "discourse", settings=_settings())
    first = watcher.changed(None)
    assert dict(first.last_posts) == {"11": "15", "7": "10", "2": "2"}
    assert first.changed == frozenset({"11", "7", "2"}) and first.requests == 1
    again = watcher.changed(first.state)
    assert again.changed == frozenset()   # topic 11's older post 14 does not count as a change


def test_scale2_a_new_post_marks_its_topic_alone(forum: dict[str, Any]) -> None:
    watcher = ForumWatcher(forum["base"] + "/posts.json", "discourse", settings=_settings())
    first = watcher.changed(None)
    newer = _feed()
    post = dict(newer["latest_posts"][2], id=16, post_number=3)   # a reply in topic 7
    newer["latest_posts"].insert(0, post)
    forum["feed"]["body"] = json.dumps(newer).encode()
    later = watcher.changed(first.state)
    assert later.changed == frozenset({"7"}) and later.last_posts["7"] == "16"
    assert later.requests == 1
