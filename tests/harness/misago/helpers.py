"""The tests' side of the Misago harness (tests/sources/test_forum_misago.py).

``load_harness()`` gives server.py as a module, setting the harness up first when it is
missing (skip locally, fail in CI if that fails); ``serve(harness)`` is the body of a
fixture yielding one running server; ``player_posts`` is a player's own browser-like
client (plain requests through Misago's API, not pbp's code) and ``visible_posts`` what
an anonymous visitor gets from the API; ``player_posts_in_browser`` a player in Chromium,
through Misago's own page: the header's sign-in, the thread's Reply, the composer.
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


def player_posts_in_browser(browser: Any, url: str, text: str, who: dict[str, str]) -> None:
    """A player posting as a person does, in Chromium on Misago's own page (*url*, the
    thread): "Sign in" in the header, the modal's fields, the thread's "Reply", *text* typed
    into the composer, "Post reply". Returns once the composer closed on the saved post;
    Misago's 3 s between a member's posts are waited out as a person would."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = ctx.new_page()
        page.goto(url)
        page.get_by_role("button", name="Sign in").first.click()
        page.locator("#id_username").fill(who["username"])
        page.locator("#id_password").fill(who["password"])
        page.locator(".modal").get_by_role("button", name="Sign in").click()
        page.wait_for_url("**ref=login")   # the page comes back signed in
        page.get_by_role("button", name="Reply").first.click()
        page.locator("textarea").fill(text)
        for _ in range(3):
            page.get_by_role("button", name="Post reply").click()
            try:
                page.locator("textarea").wait_for(state="detached", timeout=10_000)
                return
            except Exception:   # Playwright's TimeoutError: still open, say why
                if "quickly" not in page.content():
                    raise
                page.wait_for_timeout(3_500)
        raise AssertionError(f"Misago kept refusing {who['username']}'s post: {page.content()[-1500:]}")
    finally:
        ctx.close()


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
