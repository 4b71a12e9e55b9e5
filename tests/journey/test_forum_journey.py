"""Issue 11, "What it must show", first item: a narrator's whole journey on a live
django-machina forum, from an empty data directory, in Debian's Chromium.

``pbp narrator add`` and ``pbp serve`` (the embedded default: SQLite and the embedded
broker) run as subprocesses on a fresh user's data directory; the narrator logs in, creates
a forum-d20 campaign with a short round, adds the thread by its address alone (item 1),
creates an encounter and imports its combatants from CSV, starts it (item 2). Two players
reply through the forum's own form, one quoting the bot's opening reply (issue 12: a quoted
reply is still the player's declaration); the deadline passes; the result is read as a
visitor reads the thread: both declarations were taken (PBP-1, PBP-2: nobody missing or
late). Then the narrator changes a roll of that posted round and posts the correction
(item 6): a correction reply appears in the thread, saying what changed, the narrator's
reason kept private (item 7). Screenshots at 1280 and 390 px in test-output/journey/.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from bs4 import BeautifulSoup

from tests.harness.machina.helpers import add_user, player_posts

from . import narrator as n
from .stack import STEP, Pbp, csv_file, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PASSWORD = "narapass-2026"
#: forum-d20 sheets (RULES.md FD-3, FD-4): Luta attacks, Fortitude defends; the Orc's HP
#: outlast round 1, so round 2 opens and the correction has a live fight to correct
ROSTER = [
    {"key": "brienne", "name": "Brienne", "side": "players", "player": "player", "hp": 28, "max_hp": 28,
     "weapons": "longsword:1d8", "luta": 5, "fortitude": 4},
    {"key": "tomas", "name": "Tomas", "side": "players", "player": "tomas", "hp": 20, "max_hp": 20,
     "weapons": "axe:1d8", "luta": 3, "fortitude": 2},
    {"key": "orc", "name": "Orc", "side": "monsters", "player": "", "hp": 60, "max_hp": 60,
     "weapons": "club:1d6", "luta": 2, "fortitude": 1},
]
MARKER = re.compile(r"pbp-reply:(\d+):(\w+)")


def thread_as_visitor(topic: str) -> list[dict[str, str]]:
    """The topic's posts as an anonymous visitor reads them: id, author, text, every page."""
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
            quotes = " ".join(q.get_text(" ", strip=True) for q in body.select("blockquote"))
            for q in body.select("blockquote"):
                q.decompose()
            out.append({"id": p["id"], "author": author.get_text(strip=True) if author else "",
                        "text": body.get_text("\n", strip=True), "quoted": quotes})
        if not soup.select_one(f".pagination-block a[href='?page={page + 1}']"):
            return out
        page += 1


def bot_posts(topic: str, kind: str) -> list[dict[str, str]]:
    """The bot's replies of *kind* (opening, resolution, correction...) on the thread,
    known by author and marker in its own words, as pbp knows them."""
    return [p for p in thread_as_visitor(topic) if p["author"] == "pbpbot"
            and any(k == kind for _, k in MARKER.findall(p["text"]))]


def test_forum_journey_from_an_empty_data_directory(browser: Any, machina: Any, tmp_path: Path,
                                                    journey_dir: Path) -> None:
    """issue 11 items 1, 2, 6, 7, 8 and issue 12 item 1 on a live django-machina thread."""
    started = time.monotonic()
    pbp = Pbp(tmp_path, {"PBP_SECRET_127_0_0_1_USERNAME": "pbpbot", "PBP_SECRET_127_0_0_1_PASSWORD": "botpass",
                         "PBP_POLL_INTERVAL": "5", "PBP_DEADLINE_SWEEP_INTERVAL": "5",
                         "PBP_MIN_HOST_INTERVAL": "0.5", "PBP_USER_AGENT": "pbp-journey/1"})
    line = next(x for x in machina.seed("topic", "Walk fight", "1") if x.startswith("TOPIC"))
    topic = machina.base + line.split()[1]
    add_user(machina, "tomas", "tomaspass")
    shots = n.Shots(browser, journey_dir, [])

    def report() -> str:
        posts = "\n".join(f"[{p['id']} {p['author']}] {p['text'][:400]}" for p in thread_as_visitor(topic))
        return f"--- the thread as a visitor reads it\n{posts}\n{pbp.report()}"

    # item 8: nothing but the user's data directory, found from any working directory
    assert not pbp.data_dir.exists()
    added = pbp.cli("narrator", "add", "nara", "--password-stdin", stdin=PASSWORD + "\n")
    assert added.returncode == 0 and "narrator nara added" in added.stdout, added.stderr
    assert (pbp.data_dir / "pbp.sqlite").is_file()
    pbp.serve()
    try:
        ctx = browser.new_context(viewport=n.DESKTOP, locale="en-US")
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        n.login(page, pbp.base, "nara", PASSWORD)
        state = ctx.storage_state()
        shots.take(pbp.base + "/", "forum-01-dashboard-empty", state)

        # a campaign with a 72 s round and a reminder 36 s before its deadline
        campaign = n.create_campaign(page, pbp.base, "Walk campaign", round_hours="0.02", reminders="0.01")
        assert n.add_source(page, topic) == "Source added: django-machina 1.3."
        assert page.locator("ul.sources li", has_text=topic).locator(".badge").first.inner_text() \
            == "django-machina 1.3"
        shots.take(f"{pbp.base}/campaigns/{campaign}", "forum-02-campaign", state)
        encounter = n.new_encounter(page, "Walk fight", csv_file(tmp_path / "walk.csv", ROSTER))
        assert page.locator("table tbody tr").count() == 3
        shots.take(f"{pbp.base}/encounters/{encounter}/combatants", "forum-03-combatants", state)
        assert n.start_encounter(page, pbp.base, encounter) == "Encounter started: round 1 is open."

        # the opening, as a visitor sees it on the forum
        opening = wait_until(lambda: bot_posts(topic, "opening"), STEP, "the opening reply on the forum",
                             report)[0]
        assert "Walk fight — Round 1" in opening["text"] and "Initiative order" in opening["text"]
        # two players reply with the forum's own form; Brienne's player quotes the opening as
        # the editor's Quote button does (machina posts are Markdown: "> " lines)
        quoted = "\n".join("> " + line for line in opening["text"].splitlines())
        player_posts(machina.base, topic, f"{quoted}\n\nBrienne charges. I attack the Orc with my longsword "
                                          "[roll]1d20+5[/roll]")
        player_posts(machina.base, topic, "I attack the Orc with my axe [roll]1d20+3[/roll]",
                     username="tomas", password="tomaspass")
        shots.take(f"{pbp.base}/encounters/{encounter}", "forum-04-round-open", state)

        # the deadline passes: the result, read as a visitor reads the thread
        result = wait_until(lambda: bot_posts(topic, "resolution"), STEP + 72, "the round's result on the forum",
                            report)[0]
        text = result["text"]
        assert "Walk fight — Round 1" in text
        for who in ("Brienne", "Tomas"):   # both declarations taken: nobody missing or late (PBP-2)
            assert re.search(rf"^\*?\s*{who} (?:rolls a natural \d+ and )?(?:hits|misses) Orc", text, re.M), text
            assert f"{who} posted late or not at all" not in text
        assert "no post this round" not in text and "late post" not in text, text
        assert "Round 2" in text        # the next round opened
        shots.take(topic, "forum-05-thread-result", None, wide_ok=True)
        shots.take(f"{pbp.base}/encounters/{encounter}?round=1", "forum-06-round-1-resolved", state)

        # item 6: the narrator finds Brienne's roll wrong after the result was posted
        page.goto(f"{pbp.base}/encounters/{encounter}?round=1")
        assert page.locator("#reply-state").get_attribute("data-state") == "sent"
        rolled = page.locator("article.post", has_text="Brienne charges").locator("div.roll").first.inner_text()
        natural = int(re.search(r"1d20 \((\d+)\)", rolled).group(1))  # type: ignore[union-attr]
        new_total = 1 if natural + 5 > 10 else 30       # a miss becomes a hit, a hit a miss
        said = n.override_roll(page, pbp.base, encounter, 1, "Brienne charges", new_total, "typed +5 for +50")
        assert "post a correction to apply it" in said, said
        shots.take(f"{pbp.base}/encounters/{encounter}?round=1", "forum-07-correction-offered", state)
        assert "Correction queued" in n.post_correction(page, "the roll tag was mistyped")
        fixed = wait_until(lambda: bot_posts(topic, "correction"), STEP, "the correction on the forum", report)[0]
        assert "Round 1: correction" in fixed["text"] and "What changed" in fixed["text"]
        assert f"set to {new_total}" in fixed["text"], fixed["text"]
        assert "typed +5 for +50" not in fixed["text"] and "mistyped" not in fixed["text"]   # item 7: private
        shots.take(topic, "forum-08-thread-correction", None, wide_ok=True)
        shots.take(f"{pbp.base}/encounters/{encounter}?round=1", "forum-09-round-1-corrected", state)
        assert not errors, errors
        ctx.close()
    except BaseException:
        print(report())
        raise
    finally:
        pbp.stop()
    status = pbp.status()
    print(f"forum journey: {time.monotonic() - started:.0f} s; screenshots: {', '.join(shots.taken)}\n{status}")
