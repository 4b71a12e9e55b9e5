"""SCALE-5 (issue 17 item 5): the light encounter page, through the test client on the sample.

Override forms come on demand (a fragment for the page's script, a page without it), long
posts and earlier rounds too; the live refresh answers only the fragments whose hash the tab
does not hold; the CSRF token of a kept rendering is the session's own, masked per answer.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from pbp.panel import csrf_mask, fragments
from pbp.rounds import service
from pbp.sources.base import PostRecord
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Post, RollRecord

FRAG = {"X-Fragment": "1"}


def _page(alice: Any, ids: dict[str, Any], query: str = "") -> str:
    r = alice.get(f"/encounters/{ids['encounter']}{query}")
    assert r.status_code == 200
    return r.text


def _held(html: str) -> tuple[str, dict[str, str]]:
    version = re.search(r'data-live-version="([^"]+)"', html).group(1)
    m = re.search(r'<script type="application/json" id="live-hashes">(.*?)</script>', html, re.S)
    return version, json.loads(m.group(1))["hashes"]


def _have(hashes: dict[str, str]) -> dict[str, str]:
    return {"X-Live-Have": ",".join(f"{k}:{v}" for k, v in hashes.items())}


def _ingest(db_url: str, ids: dict[str, Any], text: str, platform_id: str) -> None:
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            author = s.scalars(select(Post.author).where(Post.thread_id == ids["thread"], Post.platform_id == "p101")).one()
            now = datetime.now(UTC)
            service.ingest_posts(s, ids["thread"], [PostRecord(
                platform_id=platform_id, author=author, posted_at=now, body=text, text=text, fmt="bbcode",
                revision=platform_id)], now=now)
    finally:
        engine.dispose()


def test_scale5_first_paint_holds_no_override_form_and_each_form_comes_on_demand(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """SCALE-5: no form in a post or a combatant's row; the roll's form as a fragment (no
    page around it, the token masked) and as a page with a way back; a roll of another
    encounter, an unknown kind or an action index out of range are 404."""
    html = _page(alice, ids)
    posts = html.split('id="posts-list"')[1].split('data-live="orphans"')[0]
    assert "<form" not in posts and "data-fetch" in posts
    assert 'name="combatant_id"' not in html.split('id="h-combatants"')[1].split("</table>")[0]
    roll = ids["rolls"][0]
    link = f"/encounters/{ids['encounter']}/form/roll?id={roll}"
    assert f'href="{link}"' in posts
    frag = alice.get(link, headers=FRAG).text
    assert f'name="roll_id" value="{roll}"' in frag and "<html" not in frag
    token = re.search(r'name="csrf_token" value="([^"]+)"', frag).group(1)
    assert token.startswith(csrf_mask.PREFIX)
    page = alice.get(link).text
    assert "<html" in page and f'name="roll_id" value="{roll}"' in page and "Back to the encounter" in page
    # the page says whose roll it sets, and the HP form whose HP (it said only "Change")
    with session_scope(make_engine(db_url)) as s:
        r = s.get(RollRecord, roll)
        whose = f"<h1>Set result · {r.actor} · #{r.roll_index} · {r.written or r.expression}</h1>"
    assert whose in page, page
    cid = ids["combatants"]["goblin-1"]
    assert "<h1>Change · Goblin 1</h1>" in alice.get(
        f"/encounters/{ids['encounter']}/form/combatant?id={cid}").text
    assert alice.get(f"/encounters/{ids['encounter']}/form/nonsense?id={roll}").status_code == 404
    assert alice.get(f"/encounters/{ids['other_encounter']}/form/roll?id={roll}").status_code == 404
    did = ids["declarations"][0]
    assert alice.get(f"/encounters/{ids['encounter']}/form/action?id={did}&index=99").status_code == 404
    action = alice.get(f"/encounters/{ids['encounter']}/form/action?id={did}&index=0", headers=FRAG).text
    assert f'name="declaration_id" value="{did}"' in action and 'name="index" value="0"' in action


def test_scale5_the_form_on_demand_posts_and_the_change_shows(alice: Any, ids: dict[str, Any]) -> None:
    """SCALE-5: the fetched HP form, posted with its own (masked) token, sets the HP."""
    cid = ids["combatants"]["goblin-1"]
    frag = alice.get(f"/encounters/{ids['encounter']}/form/combatant?id={cid}", headers=FRAG).text
    token = re.search(r'name="csrf_token" value="([^"]+)"', frag).group(1)
    r = alice.post(f"/encounters/{ids['encounter']}/override/hp",
                   {"csrf_token": token, "combatant_id": cid, "hp": 2, "reason": "an arrow"}, csrf=False)
    assert r.status_code == 303
    row = _page(alice, ids).split('id="combatant-goblin-1"')[1].split("</tr>")[0]
    assert "2/6" in row


def test_scale5_long_post_and_earlier_round_on_demand(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """SCALE-5: a post over 2,000 characters shows its start and a link to the whole text
    (escaped, as a fragment or a page); round 1's posts come as fragments in place."""
    tail = "<b>the end</b>"
    _ingest(db_url, ids, "I attack Goblin 1 [roll]1d20+6[/roll] " + "and I keep talking " * 120 + tail, "long-1")
    html = _page(alice, ids)
    assert "&lt;b&gt;the end&lt;/b&gt;" not in html and "Show the whole post" in html
    href = re.search(r'<a class="more" data-expand href="([^"]+)"', html).group(1)
    body = alice.get(href, headers=FRAG).text
    assert "&lt;b&gt;the end&lt;/b&gt;" in body and "<b>" not in body
    assert "&lt;b&gt;the end&lt;/b&gt;" in alice.get(href).text
    earlier = alice.get(f"/encounters/{ids['encounter']}/rounds/1/posts", headers=FRAG).text
    assert earlier.count('<article class="post"') == 3              # the sample's round 1
    r = alice.get(f"/encounters/{ids['encounter']}/rounds/1/posts")   # no script: the round's page
    assert r.status_code == 302 and r.headers["Location"].endswith("?round=1")


def test_scale5_live_refresh_sends_only_the_changed_fragments(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """SCALE-5: unchanged → 204 No Content; a new post → that post, the count and the
    summaries it changes, not the posts the tab holds; no placeholder leaks, and every
    token sent is masked afresh."""
    live = f"/encounters/{ids['encounter']}/live"
    version, hashes = _held(_page(alice, ids))
    assert alice.get(f"{live}?v={version}", headers=_have(hashes)).status_code == 204   # no body
    _ingest(db_url, ids, "I attack Goblin 2 [roll]1d20+6[/roll]", "new-1")
    answer = alice.get(f"{live}?v={version}", headers=_have(hashes)).get_json()
    assert answer["changed"] is True and answer["version"] != version
    sent = set(answer["fragments"])
    new = [k for k in sent if k.startswith("post-") and k not in hashes]
    assert len(new) == 1 and "posts" in sent                     # the new post and the count
    assert not [k for k in sent if k.startswith("post-") and k in hashes]   # no post the tab holds
    assert "combatants" not in sent or hashes["combatants"] != answer["hashes"]["combatants"]
    assert set(answer["hashes"]) == sent and len(answer["order"]) == len([k for k in hashes if
                                                                        k.startswith("post-")]) + 1
    assert [p["id"] for p in answer["posts"]] == [int(new[0][5:])]
    everything = alice.get(live).get_json()                     # a tab holding nothing: all of it
    assert set(everything["fragments"]) >= {"round", "combatants", "posts", "preview", "orphans"}
    text = json.dumps(everything)
    assert fragments.PLACEHOLDER not in text and fragments.PLACEHOLDER not in _page(alice, ids)
    tokens = re.findall(r'name=\\"csrf_token\\" value=\\"([^"\\]+)', text)
    assert tokens and all(t.startswith(csrf_mask.PREFIX) for t in tokens) and len(set(tokens)) == len(tokens)
    assert {csrf_mask.unmask(t) for t in tokens} == {csrf_mask.unmask(tokens[0])}   # the session's one token


def test_scale5_kept_rendering_follows_a_change_of_setting(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """SCALE-5: the page is kept per version, so a setting the page shows (the encounter's
    round length) changes the version: the next page shows it, not the kept one."""
    _page(alice, ids)
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            from pbp.store.models import Encounter
            s.get(Encounter, ids["encounter"]).round_hours = 7.5
    finally:
        engine.dispose()
    assert 'id="enc-round-hours" name="round_hours" type="text" inputmode="decimal" value="7.5"' in _page(alice, ids)


def test_scale5_roll_ids_fixture_is_the_open_round(ids: dict[str, Any], db_url: str) -> None:
    """The rolls the tests above open forms for are the open round's (a check of the fixture)."""
    engine = make_engine(db_url)
    try:
        with session_scope(engine) as s:
            assert s.get(RollRecord, ids["rolls"][0]).round_id == ids["round"]
    finally:
        engine.dispose()
