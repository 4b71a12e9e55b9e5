"""Issue 11, "What it must show", first item, on a live django-machina forum: the
narrator's whole journey (tests/journey/journey.py) from an empty data directory, in
Debian's Chromium; players reply in Chromium through machina's own reply page and its
Markdown editor, one quoting the bot's
opening as the editor's Quote button does (machina posts are Markdown: ``> `` lines); the
visitor is an anonymous browser-like client reading the topic's pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import requests
from bs4 import BeautifulSoup

from tests.harness.machina.helpers import PLAYER, add_user, edit_post, player_posts_in_browser

from .journey import Side, run

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PASSWORDS = {PLAYER["username"]: PLAYER["password"], "tomas": "tomaspass"}


def thread_as_visitor(topic: str) -> list[dict[str, str]]:
    """The topic's posts as an anonymous visitor reads them, every page: id, author, the
    post's own words (quotes left out), the page showing it."""
    out: list[dict[str, str]] = []
    page = 1
    while True:
        with requests.get(topic, params={"page": page}, timeout=10) as r:
            if r.status_code == 404:
                return out
            soup = BeautifulSoup(r.text, "lxml")
        for p in soup.select("div.card.post[id]"):
            author = p.select_one(".post-content-wrapper small.text-muted a[href*='/member/profile/']")
            body = p.select_one("div.post-content")
            for q in body.select("blockquote"):
                q.decompose()
            out.append({"id": p["id"], "author": author.get_text(strip=True) if author else "",
                        "text": body.get_text("\n", strip=True), "at": f"{topic}?page={page}"})
        if not soup.select_one(f".pagination-block a[href='?page={page + 1}']"):
            return out
        page += 1


def test_forum_journey_from_an_empty_data_directory(browser: Any, machina: Any, tmp_path: Path,
                                                    journey_dir: Path) -> None:
    """issue 11 items 1, 2, 3, 6, 7, 8, issue 12 item 1 and issue 16 DICE-4 (pbp verify URL
    from an empty data directory, then an admin's edit of the bot's result named) on a live
    django-machina thread."""
    line = next(x for x in machina.seed("topic", "Walk fight", "1") if x.startswith("TOPIC"))
    topic = machina.base + line.split()[1]
    add_user(machina, "tomas", PASSWORDS["tomas"])
    side = Side(
        name="forum", url=topic, bot="pbpbot", added="Source added: django-machina 1.3.",
        players={"brienne": PLAYER["username"], "tomas": "tomas"},
        posts=lambda: thread_as_visitor(topic),
        reply=lambda who, text: (player_posts_in_browser(browser, machina.base, topic, text, who,
                                                         PASSWORDS[who]), None)[1],
        quote=lambda text: "\n".join("> " + line for line in text.splitlines()),
        env={"PBP_SECRET_127_0_0_1_USERNAME": "pbpbot", "PBP_SECRET_127_0_0_1_PASSWORD": "botpass"},
        # DICE-4: a player's pbp verify reads as a visitor; the forum's admin edits the bot's post
        tamper=lambda pid, change: edit_post(topic, pid, change))
    got = run(side, browser, tmp_path, journey_dir)
    assert got["seconds"] < 600
