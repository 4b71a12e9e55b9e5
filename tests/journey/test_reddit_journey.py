"""Issue 11, "What it must show", the same journey (tests/journey/journey.py) on a Reddit
submission against the local Reddit server (tests/harness/reddit_server.py): pbp's praw
reaches it through the ``reddit_oauth_url``/``reddit_url`` settings, the narrator pastes the
submission's reddit.com address; players comment through praw with their own accounts, one
quoting the bot's opening with Markdown ``>``; the visitor reads the submission's public
comment tree, anonymously."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import pytest
import requests

from tests.sources.reddit_fixtures import client

from .journey import Side, run

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def comments_as_visitor(server: Any, sid: str, page: Path) -> list[dict[str, str]]:
    """The submission's comments as anyone reads them (no token): id, author, body, oldest
    first; ``at`` is *page*, those comments written out as HTML for the screenshots (the
    local Reddit serves JSON only: its raw JSON in a browser is unreadable)."""
    url = f"{server.url}/comments/{sid}/?limit=500"
    with requests.get(url, timeout=10) as r:
        r.raise_for_status()
        tree = r.json()
    out: list[tuple[float, dict[str, str]]] = []

    def walk(listing: Any) -> None:
        for child in (listing or {}).get("data", {}).get("children", []):
            if child.get("kind") != "t1":
                continue
            d = child["data"]
            out.append((d["created_utc"], {"id": d["id"], "author": d["author"], "text": d["body"],
                                           "at": page.as_uri()}))
            walk(d.get("replies") or None)
    walk(tree[1])
    comments = [c for _, c in sorted(out, key=lambda x: (x[0], x[1]["id"]))]
    page.write_text("<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>"
                    f"<title>r/journey {sid}</title><h1>{html.escape(tree[0]['data']['children'][0]['data']['title'])}"
                    f"</h1><p>public comments of {html.escape(url)}</p>" + "".join(
                        f"<article><h2>u/{html.escape(c['author'])}</h2><pre style='white-space:pre-wrap;overflow-wrap:anywhere'>"
                        f"{html.escape(c['text'])}</pre></article>" for c in comments))
    return comments


def test_reddit_journey_from_an_empty_data_directory(browser: Any, reddit: Any, tmp_path: Path,
                                                     journey_dir: Path) -> None:
    """issue 11 items 1, 2, 3, 6, 7, 8, issue 12 item 1 and issue 16 DICE-4 (pbp verify URL
    from an empty data directory, then an edit of the bot's result comment named) on a Reddit
    submission."""
    sid = reddit.add_submission("journey", title="Walk fight", author="gm_nara")
    players = {"brakka": client(reddit, username="brakka"), "lyra": client(reddit, username="lyra")}
    bot = client(reddit, username="pbp_bot")
    side = Side(
        name="reddit", url=f"https://www.reddit.com/r/journey/comments/{sid}/walk_fight/", bot="pbp_bot",
        added="Source added: Reddit submission.", players={"brienne": "brakka", "tomas": "lyra"},
        posts=lambda: comments_as_visitor(reddit, sid, tmp_path / "thread.html"),
        reply=lambda who, text: (players[who].submission(id=sid).reply(body=text), None)[1],
        quote=lambda text: "\n".join(">" + (" " + line if line else "") for line in text.splitlines()),
        env={"PBP_REDDIT_OAUTH_URL": reddit.url, "PBP_REDDIT_URL": reddit.url,
             "PBP_SECRET_REDDIT__COM_CLIENTID": "test-client", "PBP_SECRET_REDDIT__COM_CLIENTSECRET": "test-secret",
             "PBP_SECRET_REDDIT__COM_USERNAME": "pbp_bot", "PBP_SECRET_REDDIT__COM_PASSWORD": "pw"},
        # DICE-4: a player's pbp verify has an application's read-only id, no user; the bot's
        # own account (whoever holds its password) rewrites its comment through the API
        visitor_env={"PBP_REDDIT_OAUTH_URL": reddit.url, "PBP_REDDIT_URL": reddit.url,
                     "PBP_SECRET_REDDIT__COM_CLIENTID": "visitor-app",
                     "PBP_SECRET_REDDIT__COM_CLIENTSECRET": "visitor-secret"},
        tamper=lambda cid, change: bot.comment(id=cid).edit(body=change(reddit.comments[cid].body)))
    got = run(side, browser, tmp_path, journey_dir)
    assert got["seconds"] < 600
    assert not reddit.errors, reddit.errors          # the local Reddit answered every call
    assert {c.author for c in reddit.comments.values()} == {"brakka", "lyra", "pbp_bot"}
