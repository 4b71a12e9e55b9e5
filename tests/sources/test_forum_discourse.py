"""Discourse through its JSON, over real HTTP: a local server answers /t/ID.json from the
real saved payload (../shared/fixtures/forums/discourse/discourse_api_topic.json),
/t/ID/posts.json for posts the topic JSON left out, and /posts.json for replies."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from pbp.settings import load_settings
from pbp.sources.base import SourceError
from pbp.sources.forum import ForumSource
from pbp.sources.http import PoliteClient
from tests.conftest import shared_path


@pytest.fixture
def discourse() -> Iterator[tuple[dict[str, Any], str]]:
    topic = json.loads(shared_path("fixtures", "forums", "discourse",
                                   "discourse_api_topic.json").read_text())
    everything = {str(p["id"]): p for p in topic["post_stream"]["posts"]}
    state: dict[str, Any] = {"topic": topic, "all": everything, "log": [], "replies": [],
                             "flood": False}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a: Any) -> None:
            pass

        def _json(self, status: int, data: Any) -> None:
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            state["log"].append(self.path)
            if parts.path == "/t/8.json":
                return self._json(200, state["topic"])
            if parts.path == "/t/8/posts.json":
                ids = parse_qs(parts.query).get("post_ids[]", [])
                return self._json(200, {"post_stream": {"posts": [state["all"][i] for i in ids]}})
            self._json(404, {"errors": ["not found"]})

        def do_POST(self) -> None:
            size = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(size))
            if state["flood"]:
                return self._json(429, {"errors": ["You’ve performed this action too many "
                                                   "times. Please wait 12 seconds"]})
            state["replies"].append((dict(self.headers), body))
            self._json(200, {"id": 999, "topic_id": int(body["topic_id"])})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def make(base: str) -> ForumSource:
    client = PoliteClient(user_agent="pbp-tests", min_interval=0, allowed_hosts={"127.0.0.1"},
                          private_hosts="127.0.0.1")
    return ForumSource(base + "/t/welcome-to-try-discourse/8", "discourse", client=client,
                       settings=load_settings(env={}),
                       credentials={"api_key": "k3y", "api_username": "pbpbot"})


def test_topic_json_then_missing_posts_by_id(discourse: Any) -> None:
    state, base = discourse
    posts = state["topic"]["post_stream"]["posts"]
    state["topic"]["post_stream"]["posts"] = posts[:2]          # a long topic: first chunk only
    src = make(base)
    first = src.fetch(None)
    assert [(p.platform_id, p.author) for p in first.posts] == [
        ("83", "samsaffron"), ("84", "samsaffron"), ("86", "stienman"), ("226", "splattne")]
    assert first.requests == 2
    assert parse_qs(urlsplit(state["log"][-1]).query)["post_ids[]"] == ["86", "226"]
    assert first.posts[3].text == "What? So I have to post this every day?"
    assert src.fetch(first.cursor).not_modified


def test_edits_and_deletions_from_the_stream(discourse: Any) -> None:
    state, base = discourse
    src = make(base)
    first = src.fetch(None)
    topic = state["topic"]
    topic["post_stream"]["stream"].remove(84)
    topic["post_stream"]["posts"] = [p for p in topic["post_stream"]["posts"] if p["id"] != 84]
    topic["post_stream"]["posts"][-1] = {**topic["post_stream"]["posts"][-1],
                                         "cooked": "<p>Edited: once a week then.</p>"}
    got = src.fetch(first.cursor)
    assert sorted((p.platform_id, p.change) for p in got.posts) == [("226", "edited"),
                                                                    ("84", "deleted")]


def test_reply_through_the_api(discourse: Any) -> None:
    state, base = discourse
    assert make(base).reply("Round 1 resolved [pbp:d1]", "[pbp:d1]") == "999"
    headers, body = state["replies"][0]
    assert headers["Api-Key"] == "k3y" and headers["Api-Username"] == "pbpbot"
    assert body == {"topic_id": "8", "raw": "Round 1 resolved [pbp:d1]"}
    state["flood"] = True
    with pytest.raises(SourceError) as err:
        make(base).reply("again [pbp:d2]", "[pbp:d2]")
    assert err.value.retry_after == 12 and "/posts.json" in str(err.value)
