"""The tests' side of the Misago harness (tests/sources/test_forum_misago.py).

``load_harness()`` gives server.py as a module, setting the harness up first when it is
missing (skip locally, fail in CI if that fails); ``serve(harness)`` is the body of a
fixture yielding one running server; ``player_posts`` is a player's own browser-like
client (plain requests through Misago's API, not pbp's code) and ``visible_posts`` what
an anonymous visitor gets from the API.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import requests

from tests.harness import common

HERE = Path(__file__).resolve().parent
PLAYER = {"username": "player", "password": "playerpass"}


def load_harness() -> Any:
    """server.py loaded as the module ``misago_harness`` (:func:`tests.harness.common.load_harness`)."""
    return common.load_harness("misago", HERE)


def serve(harness: Any) -> Iterator[Any]:
    """``yield from serve(harness)`` in a fixture: a started server, stopped after."""
    return common.serve(harness, "misago")


def player_posts(base: str, tid: int | str, text: str, who: dict[str, str] | None = None) -> int:
    """The player's browser (*who*: username and password, the harness's player when
    None): the forum's page (CSRF cookie), the API login, a reply."""
    with requests.Session() as s:   # closed: a pooled socket left to the collector warns
        s.get(base + "/").raise_for_status()
        r = s.post(base + "/api/auth/", json=who or PLAYER,
                   headers={"X-CSRFToken": s.cookies["csrftoken"]})
        assert r.status_code == 200, r.text
        for _ in range(3):      # Misago's 3 s between a member's posts
            r = s.post(f"{base}/api/threads/{tid}/posts/", json={"post": text},
                       headers={"X-CSRFToken": s.cookies["csrftoken"]})
            if "so quickly" not in r.text:
                break
            time.sleep(3)
        assert r.status_code == 200, r.text
        return int(r.json()["id"])


def visible_posts(base: str, tid: int | str) -> dict[str, dict[str, Any]]:
    """What an anonymous visitor gets from the posts API, every page: id -> the post."""
    out: dict[str, dict[str, Any]] = {}
    page = 1
    with requests.Session() as s:
        while True:
            r = s.get(f"{base}/api/threads/{tid}/posts/", params={"page": page})
            r.raise_for_status()
            data = r.json()["post_set"]
            out.update({str(p["id"]): p for p in data["results"]})
            if page >= data["pages"]:
                return out
            page += 1
