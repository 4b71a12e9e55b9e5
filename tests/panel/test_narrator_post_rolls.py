"""The encounter page shows a narrator's post's rolls each under the NPC it was rolled
for (walked: the 25 rolls of a narrator's post sat together after the last NPC, and a
roll line does not name whose it is)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from pbp.rounds import service
from pbp.sources.base import PostRecord
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Round, Thread


def test_pbp1_a_narrators_post_shows_each_roll_under_its_own_npc(alice: Any, ids: dict[str, Any],
                                                                   db_url: str) -> None:
    """PBP-1 (a narrator's post declares for the NPCs, one per line) and PBP-4 (each tag
    rolled once): the page lists Goblin 1's declaration, then its roll, then Goblin 2's
    declaration, then its roll; a player's post keeps its roll under its declaration."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        thread = s.get_one(Thread, ids["thread"])
        thread.options = {**(thread.options or {}), "narrators": ["GM"]}
        opens = s.get_one(Round, ids["round"]).opens_at
    body = ("Goblin 1: attacks Aria [roll]1d20+3[/roll]\n"
            "Goblin 2: attacks Bram [roll]1d20+4[/roll]")
    with session_scope(engine) as s:
        (post_id,) = service.ingest_posts(s, ids["thread"], [PostRecord(
            platform_id="gm1", author="GM", posted_at=opens + timedelta(minutes=20), body=body,
            text=body, fmt="bbcode")], now=opens + timedelta(minutes=21))
    engine.dispose()
    page = alice.get(f"/encounters/{ids['encounter']}")
    assert page.status_code == 200
    article = re.search(rf'<article class="post" id="post-{post_id}".*?</article>', page.text, re.S)
    assert article is not None
    html = article.group(0)
    marks = [m.group(0) for m in re.finditer(r"<h3>Goblin \d|1d20\+\d: ", html)]
    assert marks == ["<h3>Goblin 1", "1d20+3: ", "<h3>Goblin 2", "1d20+4: "], marks
