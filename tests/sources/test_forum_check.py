"""Issue 14 point 10: ``pbp preset check URL`` shows what each preset key read from the
first posts of a live page, and every problem; ``--draft`` proposes volatile patterns.

The oracles: the SMF 2.1.4 capture's truth.json (ids, authors, times from the database)
and its README (the board zone, Europe/Moscow; 5 posts per page); a live django-machina
topic seeded by the test (its author and text are the test's own).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pbp.sources.forum_check import check_page, draft_volatile
from pbp.sources.forum_page import soup_of
from pbp.sources.forum_preset import load_preset
from pbp.sources.http import decode_html
from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
URL = "http://127.0.0.1:8102/index.php?topic=2.0"   # where the page was captured


def _page(name: str) -> str:
    return decode_html(shared_path("fixtures", "forums", "smf21", name).read_bytes(), None)


def test_the_check_lists_the_first_posts_as_the_database_holds_them() -> None:
    """issue 14 point 10: id, author and time (UTC, and the board's zone) of the first
    posts, as truth.json holds them (the page prints minutes)."""
    truth = json.loads(shared_path("fixtures", "forums", "smf21", "truth.json").read_text())
    check = check_page(_page("topic_p1_aged.html"),
                       load_preset("smf21", {"dates": {"timezone": "Europe/Moscow"}}), URL)
    assert check.problems == [] and check.containers == 5 and check.last_page == 4
    lines = check.lines(limit=3)
    for n, post in enumerate(truth["posts"][:3], 1):
        at = datetime.fromisoformat(post["posted_at_utc"].replace("Z", "+00:00")).astimezone(UTC)
        moscow = (at.hour + 3) % 24
        assert lines[1 + n].startswith(f"  {n}. id {post['id']} | {post['author']} | "
                                       f"{at:%Y-%m-%d %H:%M} UTC ({moscow:02d}:{at:%M} Europe/Moscow)")
    assert lines[-2] == "  … and 2 more" and lines[-1] == "problems: none"


def test_every_problem_is_named_not_only_the_first() -> None:
    """issue 14 point 10: a time selector that matches nothing fails each of the five
    posts (five problems, each naming the post and the selector), and a per_page that
    disagrees with the page is named too; reading a thread would stop at the first."""
    preset = load_preset("smf21", {"post": {"time": "span.nope"}, "thread": {"per_page": 15}})
    check = check_page(_page("topic_p1_aged.html"), preset, URL)
    assert check.posts == []
    assert [p for p in check.problems if "'span.nope' matched nothing" in p] == [
        f"post {n}: timestamp selector 'span.nope' matched nothing in a post" for n in range(1, 6)]
    assert "page 1 shows 5 posts and its links step by 5, but thread.per_page is 15" in check.problems


def test_an_address_the_preset_does_not_fit_is_a_problem() -> None:
    check = check_page(_page("topic_p1_aged.html"), load_preset("smf21"),
                       "http://127.0.0.1:8102/viewtopic.php?t=2")
    assert any("thread.pattern" in p and "index.php?topic=123.0" in p for p in check.problems)


def test_draft_proposes_the_session_patterns_and_spares_the_posts() -> None:
    """issue 14 point 10 (--draft): the two captures of page 1 were fetched in two visitor
    sessions (README): the session id and var differ. The draft proposes patterns that
    remove them, and none of its patterns touches a post's body (they would hide edits)."""
    fresh, aged = _page("topic_p1_fresh.html"), _page("topic_p1_aged.html")
    proposals = [re.compile(p) for p in draft_volatile(fresh, aged, [])]
    session = re.search(r'smf_session_id = "[0-9a-f]+"', fresh)
    assert session is not None
    assert any(p.search(session.group(0)) for p in proposals)
    bodies = [b.get_text(" ", strip=True) for b in soup_of(aged).select("div.inner[data-msgid]")]
    assert len(bodies) == 5
    assert not [(p.pattern, b) for p in proposals for b in bodies if p.search(b)]
    # the preset's own hand-written list already covers the session: nothing proposed for it
    known = list(load_preset("smf21").thread.volatile)
    assert not any(re.compile(p).search(session.group(0)) for p in draft_volatile(fresh, aged, known))


@pytest.mark.integration
def test_the_command_against_a_live_forum(machina: Any, new_topic: Any, tmp_path: Path) -> None:
    """issue 14 point 10, end to end: ``pbp preset check URL`` on a live django-machina
    topic, the preset detected from the address; the seeded posts shown; exit status 0;
    ``--draft`` finds that two visitor fetches hash the same with the preset's patterns."""
    topic = new_topic(machina, "Checked preset", 2)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBP_")}
    env.update(XDG_DATA_HOME=str(tmp_path / "data"), PYTHONPATH=str(ROOT),
               PBP_MIN_HOST_INTERVAL="0", PBP_ALLOW_PRIVATE_HOSTS="127.0.0.1")
    run = subprocess.run([sys.executable, "-m", "pbp.cli", "preset", "check", topic, "--draft"],
                         env=env, capture_output=True, text=True, timeout=120, check=False)
    out = run.stdout.splitlines()
    assert run.returncode == 0, run.stdout + run.stderr
    assert out[0] == f"preset machina (django-machina 1.3): {topic}?page=1"
    assert out[1].startswith("posts on the page: 2, read: 2")
    assert re.match(r"  1\. id \d+ \| \w+ \| \d{4}-\d\d-\d\d \d\d:\d\d UTC", out[2])
    assert "problems: none" in out
    assert out[-1] == "volatile: the two fetches hash the same; nothing to add"
    bad = subprocess.run([sys.executable, "-m", "pbp.cli", "preset", "check", topic,
                          "--preset", "smf21"], env=env, capture_output=True, text=True,
                         timeout=120, check=False)
    assert bad.returncode == 2 and "not a Simple Machines Forum 2.1 thread URL" in bad.stderr
    assert "Traceback" not in bad.stderr
