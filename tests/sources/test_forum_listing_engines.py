"""SCALE-2 (issue 17 item 2): topic lists for MyBB 1.8 and SMF 2.1, whose topic URLs do
not name their forum, against the pages those engines served live (../shared/fixtures/forums).

The oracle is each capture's README, ``headers.json`` and ``truth.json``, not pbp: MyBB's
thread is in "My Forum" (fid 2) and its list was captured at ``forumdisplay.php?fid=2``;
SMF's topic is in board 1, listed at ``index.php?board=1.0``. The list of each was saved
before aging, with the topic's 17 posts: MyBB's row says 16 replies, SMF's row links the
last message, id 18 (the last of truth.json's posts). SMF's board also lists its welcome
topic (topic 1, msg 1). The captured pages are served over real HTTP (a stdlib server on
127.0.0.1, at the paths and queries they were captured at), so the watcher and the thread
source read them as they read a forum. phpBB: no forum list page was saved (only a
viewtopic page), so its preset gets no list (no format invented).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

from pbp.jobs.listings import listing_of
from pbp.settings import load_settings
from pbp.sources.forum import ForumSource
from pbp.sources.forum_page import parse_html_page
from pbp.sources.forum_preset import load_preset
from pbp.sources.forum_watch import ForumWatcher
from pbp.sources.http import decode_html, reset_host_intervals
from tests.conftest import shared_path

#: capture folder -> (preset, the forum id its README names, the list's marker of the topic)
ENGINES = {"mybb18": ("mybb", "2", "16"), "smf21": ("smf21", "1", "18")}
TOPIC_PAGES = [f"topic_p{n}_{age}.html" for age in ("fresh", "aged") for n in range(1, 5)]


def _headers(engine: str) -> dict[str, Any]:
    folder = shared_path("fixtures", "forums", engine)
    return dict(json.loads((folder / "headers.json").read_text(encoding="utf-8")))


def _truth(engine: str) -> dict[str, Any]:
    folder = shared_path("fixtures", "forums", engine)
    return dict(json.loads((folder / "truth.json").read_text(encoding="utf-8")))


def _settings() -> Any:
    return load_settings(env={"PBP_MIN_HOST_INTERVAL": "0", "PBP_USER_AGENT": "pbp-tests/1",
                              "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})


@pytest.fixture
def served(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    """(engine, base URL): the capture's fresh topic pages and forum list served at the
    paths and queries headers.json gives them (the thread's first page also at the URL
    without ``&page=1``, as MyBB links it)."""
    engine = request.param
    folder = shared_path("fixtures", "forums", engine)
    pages: dict[str, bytes] = {}
    for name, meta in _headers(engine).items():
        if name in ("forum_list.html", *(p for p in TOPIC_PAGES if "fresh" in p)):
            parts = urlsplit(meta["url"])
            pages[parts.path + "?" + parts.query] = (folder / name).read_bytes()
    pages.setdefault("/showthread.php?tid=1", pages.get("/showthread.php?tid=1&page=1", b""))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            body = pages.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=UTF-8")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    reset_host_intervals()
    try:
        yield engine, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_scale2_breadcrumb_names_the_forum_on_every_topic_page(engine: str) -> None:
    """SCALE-2: each saved topic page, fresh or aged, names the forum its README gives
    (the breadcrumb's last forum link)."""
    preset_name, forum, _ = ENGINES[engine]
    preset = load_preset(preset_name)
    headers = _headers(engine)
    for name in TOPIC_PAGES:
        text = decode_html(shared_path("fixtures", "forums", engine, name).read_bytes(), None)
        assert parse_html_page(text, preset, headers[name]["url"]).forum == forum, name


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_scale2_the_learned_forum_gives_the_captured_list_url(engine: str) -> None:
    """SCALE-2: a thread URL alone cannot name its list (polled alone, "not-learned");
    with the forum learned, the list is the URL the capture read the forum list at."""
    preset_name, forum, _ = ENGINES[engine]
    topic = _truth(engine)["topic_url"]
    alone = listing_of("forum", topic, {"preset": preset_name})
    assert (alone.url, alone.reason, alone.detail) == (None, "not-learned", preset_name)
    learned = listing_of("forum", topic, {"preset": preset_name}, forum)
    assert (learned.url, learned.reason) == (_headers(engine)["forum_list.html"]["url"], "learned")


@pytest.mark.parametrize("served", sorted(ENGINES), indirect=True)
def test_scale2_the_forum_list_gives_each_topics_marker(served: tuple[str, str]) -> None:
    """SCALE-2: the saved forum list read by the watcher: the seeded topic's marker is
    the one the README and truth.json give; a second read with that state sees no change."""
    engine, base = served
    preset_name, forum, marker = ENGINES[engine]
    truth = _truth(engine)
    url = listing_of("forum", truth["topic_url"].replace("http://127.0.0.1:8101/", base)
                     .replace("http://127.0.0.1:8102/", base), {"preset": preset_name}, forum).url
    assert url is not None
    watcher = ForumWatcher(url, preset_name, settings=_settings())
    first = watcher.changed(None)
    topic = str(truth["topic_id"])
    assert first.last_posts[topic] == marker
    if engine == "smf21":
        assert dict(first.last_posts) == {"2": "18", "1": "1"}   # and the welcome topic
    assert topic in first.changed
    again = watcher.changed(first.state)
    assert again.changed == frozenset() and again.requests == 1


@pytest.mark.parametrize("served", sorted(ENGINES), indirect=True)
def test_scale2_a_read_of_the_thread_keeps_its_forum_in_the_cursor(served: tuple[str, str]) -> None:
    """SCALE-2: the thread's first read learns its forum from the pages it parses and
    keeps it in the cursor; a later read that parses nothing keeps it too."""
    engine, base = served
    preset_name, forum, _ = ENGINES[engine]
    topic = {"mybb18": base + "showthread.php?tid=1", "smf21": base + "index.php?topic=2.0"}[engine]
    first = ForumSource(topic, preset_name, settings=_settings(), credentials={}).fetch(None)
    assert len(first.posts) == 17 and first.cursor["forum"] == forum
    again = ForumSource(topic, preset_name, settings=_settings(), credentials={}).fetch(first.cursor)
    assert again.posts == [] and again.cursor["forum"] == forum
