"""The tests' side of the machina harness, shared by tests/sources and tests/workers.

``load_harness()`` gives server.py as a module, setting the harness up first when it is
missing (skip locally, fail in CI if that fails); ``serve(harness, **kwargs)`` is the body
of a fixture yielding one running server; ``player_posts`` and ``visible_posts`` are a
player's plain browser-like client (not pbp's code) and an anonymous visitor;
``player_posts_in_browser`` a player in Chromium on machina's own pages (the journeys).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import requests
from bs4 import BeautifulSoup

from tests.harness import common

HERE = Path(__file__).resolve().parent
PLAYER = {"username": "player", "password": "playerpass"}


def load_harness() -> Any:
    """server.py loaded as the module ``machina_harness`` (:func:`tests.harness.common.load_harness`)."""
    return common.load_harness("machina", HERE)


def serve(harness: Any, **kwargs: Any) -> Iterator[Any]:
    """``yield from serve(harness, etag=...)`` in a fixture: a started server, stopped after."""
    return common.serve(harness, "machina", **kwargs)


def player_posts(base: str, topic: str, text: str, username: str = PLAYER["username"],
                 password: str = PLAYER["password"]) -> int:
    """The player's browser: log in and reply through machina's own form (as *username*:
    the seeded ``player`` unless told; ``add_user`` makes others)."""
    from pbp.sources.forum import form_fields

    with requests.Session() as s:   # closed: a pooled socket left to the collector warns
        page = BeautifulSoup(s.get(base + "/accounts/login/").text, "lxml")
        data = form_fields(page.select_one("form#login-form"))
        data.update(username=username, password=password)
        s.post(base + "/accounts/login/", data=data)
        topic_page = BeautifulSoup(s.get(topic).text, "lxml")
        reply_url = requests.compat.urljoin(topic, topic_page.select_one("a[href$='/post/create/']")["href"])
        form = BeautifulSoup(s.get(reply_url).text, "lxml").select_one("form[method=post][enctype]")
        data = form_fields(form)
        data["content"] = text
        r = s.post(reply_url, data=data)
        m = re.search(r"[?&]post=(\d+)", r.url)
        assert m, (r.status_code, r.url)
        return int(m.group(1))


def player_posts_in_browser(browser: Any, base: str, topic: str, text: str,
                            username: str = PLAYER["username"], password: str = PLAYER["password"]) -> int:
    """A player replying as a person does, in Chromium: machina's login page, the topic's
    "Post reply", *text* typed into the reply page's Markdown editor, Submit. The new
    post's id (machina lands on ``?post=N``)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    try:
        page = ctx.new_page()
        page.goto(base + "/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        with page.expect_navigation():
            page.locator("form#login-form [type=submit]").click()
        page.goto(topic)
        with page.expect_navigation():
            page.locator("a[href$='/post/create/']").first.click()
        page.locator(".CodeMirror").click()       # the editor over the hidden textarea
        page.keyboard.insert_text(text)           # as pasted: no auto-continued list lines
        with page.expect_navigation():
            page.locator("form[method=post] [type=submit][value=Submit]").click()
        m = re.search(r"[?&]post=(\d+)", page.url)
        assert m, (page.url, page.locator("main, body").first.inner_text()[:1500])
        return int(m.group(1))
    finally:
        ctx.close()


def add_user(server: Any, username: str, password: str) -> None:
    """Another forum account on *server*'s database, through Django's ORM (seed.py is part
    of the harness stamp: editing it would rebuild the shared forum)."""
    code = ("import django; django.setup(); from django.contrib.auth import get_user_model; "
            f"get_user_model().objects.create_user({username!r}, {username + '@example.com'!r}, {password!r})")
    subprocess.run([str(HERE / "venv" / "bin" / "python"), "-c", code], env=server.env(),
                   check=True, capture_output=True, text=True, timeout=120)


def visible_posts(topic: str) -> dict[str, str]:
    """What an anonymous visitor sees on the thread's pages: post id -> text."""
    out: dict[str, str] = {}
    page = 1
    while True:
        r = requests.get(topic, params={"page": page})
        if r.status_code == 404:
            return out
        soup = BeautifulSoup(r.text, "lxml")
        for p in soup.select("div.card.post[id]"):
            out[p["id"]] = p.select_one("div.post-content").get_text(" ", strip=True)
        if not soup.select_one(f".pagination-block a[href='?page={page + 1}']"):
            return out
        page += 1


def edit_post(topic: str, post_id: int | str, text: str | Callable[[str], str], username: str = "admin",
              password: str = "adminpass") -> None:
    """Someone rewrites a post through machina's own edit form (``<topic>/<id>/post/update/``):
    by default the forum's administrator, who may edit anyone's post (the bot's included).
    *text* is the new content, or a function of the content the form shows."""
    from pbp.sources.forum import form_fields

    base = topic.split("/forum/", 1)[0]
    with requests.Session() as s:
        page = BeautifulSoup(s.get(base + "/accounts/login/").text, "lxml")
        data = form_fields(page.select_one("form#login-form"))
        data.update(username=username, password=password)
        s.post(base + "/accounts/login/", data=data)
        url = f"{topic}{post_id}/post/update/"
        got = s.get(url)
        assert got.status_code == 200, (got.status_code, url)
        form = BeautifulSoup(got.text, "lxml").select_one("form[method=post][enctype]")
        data = form_fields(form)
        data["content"] = text(data["content"]) if callable(text) else text
        r = s.post(url, data=data)
        assert r.status_code in (200, 302) and "post=" in r.url, (r.status_code, r.url)
