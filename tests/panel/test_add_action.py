"""Issue 13 item 3: the narrator fixes a reading in the panel: adds an action to a post
read as "no action", audited, shown in the preview and said in the reply."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import select

from pbp.rounds import service
from pbp.sources.base import PostRecord
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Declaration, Override, Post, Round

from .test_encounter import _page, _preview


def _no_action_post(db_url: str, ids: dict[str, Any]) -> int:
    """Cato posts words the parser reads as no action, with a roll: his declaration id."""
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            rnd = s.get(Round, ids["round"])
            body = "Hmm. Cato thinks it over, then lets fly at the brute [roll]1d20+6[/roll]"
            rec = PostRecord(platform_id="p-cato", author="cato_p", posted_at=rnd.opens_at + timedelta(minutes=20),
                             body=body, text=body, fmt="bbcode", change="new")  # type: ignore[arg-type]
            service.ingest_posts(s, ids["thread"], [rec], now=rnd.opens_at + timedelta(minutes=21))
            post = s.scalar(select(Post).where(Post.platform_id == "p-cato"))
            d = s.scalar(select(Declaration).where(Declaration.post_id == post.id))
            assert d is not None and d.actions == []          # the parser read no action
            return d.id
    finally:
        engine.dispose()


def test_add_an_action_to_a_no_action_post(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """Issue 13 item 3: the form on the post adds the action (with the post's own roll),
    writes one override and one audit entry, and the preview (the reply) says the narrator
    read the post as an attack on Goblin 1; without a reason nothing changes."""
    did = _no_action_post(db_url, ids)
    html = _page(alice, ids)
    # SCALE-5: the page links the form (fetched when opened); the form carries the declaration
    link = f"/encounters/{ids['encounter']}/form/add?id={did}"
    assert f'href="{link}"' in html and "Add an action" in html
    form = alice.get(link, headers={"X-Fragment": "1"}).text
    assert f'name="declaration_id" value="{did}"' in form and "<html" not in form
    url = f"/encounters/{ids['encounter']}/override/action/add"
    data = {"declaration_id": did, "kind": "attack", "target": "goblin-1", "weapon": ""}
    r = alice.post(url, dict(data, reason=""))
    assert r.status_code == 303
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            assert s.get(Declaration, did).actions == []
        r = alice.post(url, dict(data, reason="he shoots the goblin", public="y"))
        assert r.status_code == 303
        with session_scope(engine) as s:
            d = s.get(Declaration, did)
            assert [(a["kind"], a["target"], a["explicit"]) for a in d.actions] == [("attack", "goblin-1", True)]
            assert d.actions[0]["rolled"]["expression"].startswith("1d20")   # the post's own tag
            assert d.actions[0]["options"]["roll_index"] == 0
            entry = s.scalars(select(AuditEntry).order_by(AuditEntry.id.desc())).first()
            assert entry.action == "override.action.add" and entry.actor == "alice"
            assert entry.after["value"]["kind"] == "attack"
            o = s.scalars(select(Override).order_by(Override.id.desc())).first()
            assert o.kind == "action.add" and o.reason == "he shoots the goblin"
    finally:
        engine.dispose()
    preview = _preview(_page(alice, ids))
    assert "Cato: the narrator read the post as attack → Goblin 1: he shoots the goblin" in preview


def test_adding_to_an_unknown_kind_or_target_is_refused(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """Issue 13 item 3: an unknown target is refused with the reason shown, nothing recorded."""
    did = _no_action_post(db_url, ids)
    url = f"/encounters/{ids['encounter']}/override/action/add"
    r = alice.post(url, {"declaration_id": did, "kind": "attack", "target": "nobody", "reason": "x"})
    assert "unknown target" in alice.get(r.headers["Location"]).text
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            assert s.get(Declaration, did).actions == []
            assert s.scalar(select(Override).where(Override.kind == "action.add")) is None
    finally:
        engine.dispose()


def test_post_view_shows_the_language_read_and_quoted_rolls(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """Issue 13 items 2 and 4 in the panel: a Portuguese post in the English campaign is
    marked "read in Portuguese"; a roll it quotes is listed as quoted, not rolled."""
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            rnd = s.get(Round, ids["round"])
            body = ("[quote=aria_p]I attack Goblin 1 [roll]1d20+9[/roll][/quote]\n"
                    "Eu ataco o Goblin 2 com a minha espada longa [roll]1d20+6[/roll]")
            rec = PostRecord(platform_id="p-cato-pt", author="cato_p", posted_at=rnd.opens_at + timedelta(minutes=25),
                             body=body, text=body, fmt="bbcode", change="new")  # type: ignore[arg-type]
            service.ingest_posts(s, ids["thread"], [rec], now=rnd.opens_at + timedelta(minutes=26))
    finally:
        engine.dispose()
    html = _page(alice, ids)
    assert 'data-lang="pt"' in html and "read in Portuguese" in html
    assert "Rolls inside a quote, not rolled for this post:" in html and "<code>1d20+9</code>" in html
