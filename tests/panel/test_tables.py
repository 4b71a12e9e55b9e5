"""DICE-6 in the panel: a campaign's own random tables, typed (or uploaded) as TOML on the
campaign page, checked before they are saved (a gap or an overlap named with its numbers,
the text kept), audited, and then rolled on by a post through the round service."""

from __future__ import annotations

import html
import io
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from pbp.rounds import service
from pbp.sources.base import PostRecord
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Campaign, Declaration, Post, RollRecord, Round

OMENS = """[[tables]]
key = "omens"
die = "1d6"
name = { en = "Omens", pt = "Presságios", ru = "Знамения" }
aliases = ["omen", "presságio", "знамение"]
entries = [
  { range = "1-2", text = { en = "A crow calls twice.", pt = "Um corvo grasna duas vezes." } },
  { range = "3-6", text = { en = "The wind turns." } },
]
"""

#: 1-2 and 4-6 leave 3 uncovered; 5 overlaps; the die is not one a table takes
BROKEN = """[[tables]]
key = "omens"
die = "1d6"
name = "Omens"
entries = [{ range = "1-2", text = "a" }, { range = "4-5", text = "b" }, { range = "5-6", text = "c" }]

[[tables]]
key = "weird"
die = "1d20kh1"
name = "Weird"
entries = [{ range = "1-20", text = "x" }]
"""


def test_dice6_campaign_page_lists_the_ruleset_tables(alice: Any, ids: dict[str, Any]) -> None:
    """DICE-6: the campaign page shows the forum-d20 tables shipped in pbp/config/tables."""
    page = html.unescape(alice.get(f"/campaigns/{ids['campaign']}").text)
    assert 'id="h-tables"' in page
    for name in ("Critical hit table", "Fumble table", "Hit location table", "Loot table"):
        assert name in page
    assert "1d100" in page and "crit, critical" in page


def test_dice6_broken_tables_are_refused_naming_the_gap_and_the_overlap(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """DICE-6: every problem said at once, in sentences naming the table and the numbers;
    nothing saved, the text kept in the field."""
    alice.get(f"/campaigns/{ids['campaign']}")
    r = alice.post(f"/campaigns/{ids['campaign']}/tables", {"tables-tables": BROKEN})
    assert r.status_code == 400
    page = html.unescape(r.text)
    assert "table 'omens': no entry covers 3 (1d6 rolls 1-6)" in page
    assert "table 'omens': entries 4-5 and 5-6 overlap on 5" in page
    assert "table 'weird': '1d20kh1' is not a table die" in page
    assert 'key = "weird"' in page                   # the text is still in the field
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Campaign, ids["campaign"]).tables is None


def test_dice6_saved_campaign_table_is_rolled_by_a_post(alice: Any, ids: dict[str, Any],
                                                       db_url: str) -> None:
    """DICE-6: the narrator uploads the tables as a .toml file; they are saved and
    audited; Cato's post `.table omen` in the open round rolls its 1d6 once under the
    round's seed, and his declaration keeps the entry that total lands on (1-2 the crow,
    3-6 the wind: the text above)."""
    alice.get(f"/campaigns/{ids['campaign']}")
    r = alice.post(f"/campaigns/{ids['campaign']}/tables",
                   {"tables-tables": "", "tables-file": (io.BytesIO(OMENS.encode()), "omens.toml")},
                   content_type="multipart/form-data")
    assert r.status_code == 302, r.text
    page = html.unescape(alice.get(r.headers["Location"]).text)
    assert "Random tables saved: 1." in page and "Omens" in page and "this campaign" in page
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            assert s.get(Campaign, ids["campaign"]).tables == OMENS
            audit = s.scalars(select(AuditEntry).where(AuditEntry.action == "campaign.tables")).one()
            assert audit.after == {"value": {"keys": ["omens"]}}
            rnd = s.get(Round, ids["round"])
            body = "Cato reads the sky.\n.table omen"
            rec = PostRecord(platform_id="p-omen", author="cato_p",
                             posted_at=rnd.opens_at + timedelta(minutes=20), body=body, text=body,
                             fmt="bbcode", change="new")  # type: ignore[arg-type]
            service.ingest_posts(s, ids["thread"], [rec], now=rnd.opens_at + timedelta(minutes=21))
            post = s.scalar(select(Post).where(Post.platform_id == "p-omen"))
            roll = s.scalar(select(RollRecord).where(RollRecord.post_id == post.id))
            decl = s.scalar(select(Declaration).where(Declaration.post_id == post.id))
            assert (roll.kind, roll.expression, roll.label) == ("table", "1d6", "table:omens")
            [drawn] = decl.tables
            want = "A crow calls twice." if roll.total <= 2 else "The wind turns."
            assert (drawn["roll_index"], drawn["text"]["en"]) == (roll.roll_index, want)
    finally:
        engine.dispose()
    page = html.unescape(alice.get(f"/encounters/{ids['encounter']}").text)   # the narrator sees it
    assert f"Omens: {want}" in page


def test_dice6_every_table_problem_template_can_be_translated(app: Any) -> None:
    """Each sentence pbp.random_tables writes is listed for the panel's catalogs
    (pbp.panel.table_words.TEMPLATES), so none stays English by being forgotten."""
    import ast
    from pathlib import Path

    from flask_babel import force_locale

    from pbp.panel import table_words
    from pbp.random_tables import __file__ as source

    written = set()
    for node in ast.walk(ast.parse(Path(source).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Problem" and node.args:
            assert isinstance(node.args[0], ast.Constant)
            written.add(node.args[0].value)
    with app.test_request_context(), force_locale("en"):
        listed = {str(t) for t in table_words.TEMPLATES}
    assert written == listed


def test_dice6_table_problems_in_portuguese_for_a_portuguese_narrator(
        alice: Any, ids: dict[str, Any]) -> None:
    """DICE-6: the same gap and overlap, said in Portuguese (the narrator's language)."""
    alice.post("/language", {"language": "pt", "next": "/"})
    alice.get(f"/campaigns/{ids['campaign']}")
    r = alice.post(f"/campaigns/{ids['campaign']}/tables", {"tables-tables": BROKEN})
    page = html.unescape(r.text)
    assert r.status_code == 400
    assert "tabela 'omens': nenhuma entrada cobre 3 (1d6 rola 1-6)" in page
    assert "tabela 'omens': as entradas 4-5 e 5-6 se sobrepõem em 5" in page
    assert "tabela 'weird': '1d20kh1' não é um dado de tabela" in page
