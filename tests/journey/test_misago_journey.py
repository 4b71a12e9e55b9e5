"""Issue 11, "What it must show", on a live Misago forum (a JSON-API engine): the narrator's
whole journey (tests/journey/journey.py) from an empty data directory, in Debian's
Chromium. The thread is added by its address alone; players reply in Chromium through
Misago's own page (the header's sign-in, the thread's Reply and its composer), one quoting
the bot's opening as the Quote button does (``[quote="@pbpbot"]``); the visitor is an
anonymous client of the posts API, every page, quotes left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup

from tests.harness.misago.helpers import (
    PLAYER,
    load_harness,
    player_posts_in_browser,
    serve,
    visible_posts,
)

from .journey import Side, run

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PASSWORDS = {PLAYER["username"]: PLAYER["password"], "tomas": "tomaspass"}


@pytest.fixture
def misago() -> Any:
    yield from serve(load_harness())


def thread_as_visitor(base: str, tid: str, url: str) -> list[dict[str, str]]:
    """The thread's posts as an anonymous visitor reads them, oldest first: id, author, the
    post's own words (quotes left out), the post's own address (Misago's permalink opens
    the page holding it)."""
    out = []
    for pid, p in sorted(visible_posts(base, tid).items(), key=lambda kv: int(kv[0])):
        if p.get("is_event"):
            continue
        body = BeautifulSoup(p.get("content") or "", "lxml")
        for q in body.select("aside.quote-block"):
            q.decompose()
        out.append({"id": pid, "author": p.get("poster_name") or "",
                    "text": body.get_text("\n", strip=True), "at": f"{url}post/{pid}/"})
    return out


def test_misago_journey_from_an_empty_data_directory(browser: Any, misago: Any, tmp_path: Path,
                                                     journey_dir: Path) -> None:
    """issue 11 items 1, 2, 3, 6, 7, 8, issue 12 item 1 and issue 16 DICE-4 on a live Misago
    thread: the same journey as on django-machina, through a JSON API."""
    line = next(x for x in misago.seed("thread", "Walk fight", "1") if x.startswith("THREAD"))
    path, tid = line.split()[1], line.split()[2]
    url = misago.base + path
    misago.seed("user", "tomas", PASSWORDS["tomas"])
    port = urlsplit(misago.base).port

    def reply(who: str, text: str) -> None:
        player_posts_in_browser(browser, url, text, {"username": who, "password": PASSWORDS[who]})

    def tamper(pid: str, change: Any) -> None:   # a moderator rewrites the bot's post
        got = next(x for x in misago.seed("original", pid) if x.startswith("ORIGINAL"))
        misago.seed("edit", pid, change(json.loads(got.split(" ", 1)[1])))

    side = Side(
        name="misago", url=url, bot="pbpbot", added="Source added: Misago.",
        players={"brienne": PLAYER["username"], "tomas": "tomas"},
        posts=lambda: thread_as_visitor(misago.base, tid, url),
        reply=reply,
        quote=lambda text: f'[quote="@pbpbot"]\n{text}\n[/quote]',
        env={f"PBP_SECRET_127_0_0_1_{port}_USERNAME": "pbpbot",
             f"PBP_SECRET_127_0_0_1_{port}_PASSWORD": "botpass"},
        tamper=tamper)
    got = run(side, browser, tmp_path, journey_dir)
    assert got["seconds"] < 600
