"""The encounter page, its JSON refresh, and every override: each needs a reason, writes an
audit entry and an Override, and changes the preview."""

from __future__ import annotations

import re
from typing import Any

import pytest
from sqlalchemy import func, select

from pbp.rules.engine import known_conditions
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Combatant, Declaration, Override, Reply


def _page(client: Any, ids: dict[str, Any], number: int | None = None) -> str:
    url = f"/encounters/{ids['encounter']}" + (f"?round={number}" if number else "")
    r = client.get(url)
    assert r.status_code == 200
    return r.text


def _preview(html: str) -> str:
    m = re.search(r'<div class="preview" id="preview-text"[^>]*>(.*?)</div>', html, re.DOTALL)
    assert m
    return m.group(1)


def _audit_count(db_url: str) -> int:
    with session_scope(make_engine(db_url)) as s:
        return s.scalar(select(func.count(AuditEntry.id)).where(AuditEntry.action.like("override.%"))) or 0


def test_encounter_page_shows_everything(alice: Any, ids: dict[str, Any]) -> None:
    html = _page(alice, ids)
    for text in ("Initiative and combatants", "Posts and declarations", "Violations", "Reply preview",
                 "Audit log", "Aria", "Goblin 1", "Round 2"):
        assert text in html
    assert 'class="inferred"' in html                       # inferred actions highlighted
    assert "The reply of round 1 waits for your approval." in html
    assert "edited after roll" in html                      # aria edited after her roll
    assert re.search(r'badge bad">Cato<', html)            # cato has not posted: missing
    # actions left, as the ruleset's own budget counts them (aria declared attack + move)
    row = html.split('id="combatant-aria"')[1].split("</tr>")[0]
    assert re.search(r'<span class="badge" data-slot="[a-z-]+">[\w ]+ 0</span>', row)


def test_post_body_renders_as_text_never_markup(alice: Any, ids: dict[str, Any]) -> None:
    html = _page(alice, ids)
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;" in html
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(2)&gt;" in html
    assert "[url=javascript:alert(1)]" in html              # BBCode shown, not turned into a link
    assert 'href="javascript' not in html
    assert "<b>bold</b>" not in html
    assert "{{ 7*7 }}" in html and ">49<" not in html       # no template evaluation of post text
    live = alice.get(f"/encounters/{ids['encounter']}/live").get_json()
    assert "<script>alert" not in live["fragments"]["posts"]
    assert any("<script>" in p["text"] for p in live["posts"])  # JSON carries the raw text as data


def test_round_selector_and_unknown_round(alice: Any, ids: dict[str, Any]) -> None:
    html = _page(alice, ids, 1)
    assert "Round 1" in html and "held" in html
    assert alice.get(f"/encounters/{ids['encounter']}?round=99").status_code == 404


def test_live_endpoint_versions(alice: Any, ids: dict[str, Any]) -> None:
    url = f"/encounters/{ids['encounter']}/live"
    first = alice.get(url).get_json()
    assert first["changed"] is True and set(first["fragments"]) >= {"posts", "preview", "combatants", "audit"}
    assert first["missing"] == ["cato"]
    same = alice.get(f"{url}?v={first['version']}")
    assert same.status_code == 204 and same.data == b""     # SCALE-5: unchanged, no body
    alice.post(f"/encounters/{ids['encounter']}/override/hp",
               {"combatant_id": ids["combatants"]["goblin-1"], "hp": 3, "reason": "healed by a shaman"})
    after = alice.get(f"{url}?v={first['version']}").get_json()
    assert after["changed"] is True and after["version"] != first["version"]


OVERRIDES = {
    "roll": lambda ids: ("roll", {"roll_id": ids["rolls"][0], "total": 30}),
    "hp": lambda ids: ("hp", {"combatant_id": ids["combatants"]["goblin-2"], "hp": 1}),
    "condition.add": lambda ids: ("condition", {"combatant_id": ids["combatants"]["brom"], "name": "prone",
                                                "rounds": 2}),
    "initiative": lambda ids: ("initiative", {"order": ", ".join(reversed(list(ids["combatants"])))}),
    "action.confirm": lambda ids: ("action", {"declaration_id": ids["declarations"][0], "index": 0,
                                              "verdict": "confirm"}),
    "action.correct": lambda ids: ("action", {"declaration_id": ids["declarations"][0], "index": 0,
                                              "verdict": "correct", "kind": "attack", "target": "goblin-2"}),
    "action.reject": lambda ids: ("action", {"declaration_id": ids["declarations"][0], "index": 0,
                                             "verdict": "reject"}),
    "penalty.waive": lambda ids: ("penalty", {"declaration_id": ids["declarations"][0], "waive": "waive"}),
    "deadline": lambda ids: ("deadline", {"round_id": ids["round"], "deadline": "2099-01-01T12:00"}),
}


@pytest.mark.parametrize("kind", sorted(OVERRIDES))
def test_every_override_needs_a_reason_writes_audit_and_changes_preview(
        alice: Any, ids: dict[str, Any], db_url: str, kind: str) -> None:
    route, data = OVERRIDES[kind](ids)
    url = f"/encounters/{ids['encounter']}/override/{route}"
    before_html = _page(alice, ids)
    before = _audit_count(db_url)
    r = alice.post(url, dict(data, reason=""))                       # no reason: refused
    assert r.status_code == 303
    assert _audit_count(db_url) == before
    assert "A reason is required." in alice.get(r.headers["Location"]).text
    r = alice.post(url, dict(data), csrf=False)                      # no CSRF token: refused
    assert r.status_code == 400
    r = alice.post(url, dict(data, reason=f"because {kind}", public="y"))   # reason made public
    assert r.status_code == 303
    assert _audit_count(db_url) == before + 1
    with session_scope(make_engine(db_url)) as s:
        entry = s.scalars(select(AuditEntry).order_by(AuditEntry.id.desc())).first()
        assert entry.action == f"override.{kind}" and entry.note == f"because {kind}"
        assert entry.actor == "alice" and entry.narrator_id == ids["alice"]
        assert entry.before is not None and entry.after is not None
        o = s.scalars(select(Override).order_by(Override.id.desc())).first()
        assert o.kind == kind and o.reason == f"because {kind}"
    after_html = _page(alice, ids)
    assert _preview(after_html) != _preview(before_html)
    assert f"because {kind}" in _preview(after_html)               # the reply marks it
    assert f"because {kind}" in after_html.split('id="audit"')[1]  # and the audit log shows it


def test_roll_override_on_a_resolved_round_then_reresolve_and_approve(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    base = f"/encounters/{ids['encounter']}/override"
    before = _preview(_page(alice, ids, 1))
    r = alice.post(f"{base}/roll", {"roll_id": ids["rolls1"][0], "total": 25, "reason": "nat 20 by OOC deal",
                                    "round_number": 1, "public": "y"})
    assert r.status_code == 303 and r.headers["Location"].endswith("round=1")
    pending = _preview(_page(alice, ids, 1))
    assert pending != before and "not yet in this reply" in pending and "nat 20 by OOC deal" in pending
    r = alice.post(f"{base}/resolve", {"round_id": ids["round1"], "reason": "apply the roll", "round_number": 1})
    assert r.status_code == 303
    html = _page(alice, ids, 1)
    assert "Change recorded." in html
    resolved = _preview(html)
    assert "not yet in this reply" not in resolved and "nat 20 by OOC deal" in resolved
    r = alice.post(f"{base}/reply", {"reply_id": ids["reply"], "action": "post", "reason": "looks right",
                                     "round_number": 1})
    assert r.status_code == 303
    with session_scope(make_engine(db_url)) as s:
        reply = s.get(Reply, ids["reply"])
        assert reply.state == "pending" and reply.approved_by == ids["alice"]
        actions = list(s.scalars(select(AuditEntry.action).where(AuditEntry.action.like("override.%"))
                                 .order_by(AuditEntry.id)))
    assert actions == ["override.roll", "override.round.reresolve", "override.reply.approve"]
    # approved: hold it back again
    r = alice.post(f"{base}/reply", {"reply_id": ids["reply"], "action": "hold", "reason": "wait", "round_number": 1})
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Reply, ids["reply"]).state == "held"


def test_a_private_reason_stays_out_of_the_reply(alice: Any, ids: dict[str, Any]) -> None:
    """Issue 11 item 7: unless the narrator ticks "quote my reason", the reply says only
    what was adjusted; the reason is in the audit log."""
    before = _preview(_page(alice, ids))
    alice.post(f"/encounters/{ids['encounter']}/override/hp",
               {"combatant_id": ids["combatants"]["goblin-2"], "hp": 1, "reason": "typo fix"})
    html = _page(alice, ids)
    assert _preview(html) != before and "Goblin 2: HP" in _preview(html)
    assert "typo fix" not in _preview(html)
    assert "typo fix" in html.split('id="audit"')[1]


def test_condition_remove_and_unknown_condition(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/encounters/{ids['encounter']}/override/condition"
    cid = ids["combatants"]["brom"]
    alice.post(url, {"combatant_id": cid, "name": "prone", "reason": "tripped"})
    r = alice.post(url, {"combatant_id": cid, "name": "prone", "remove": "y", "reason": "stood up"})
    assert r.status_code == 303
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Combatant, cid).conditions == []
    r = alice.post(url, {"combatant_id": cid, "name": "stunned", "remove": "y", "reason": "x"})
    assert "has no condition" in alice.get(r.headers["Location"]).text


def test_bad_initiative_order_is_refused(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    r = alice.post(f"/encounters/{ids['encounter']}/override/initiative", {"order": "aria, nobody", "reason": "x"})
    assert "unknown combatant" in alice.get(r.headers["Location"]).text
    assert _audit_count(db_url) == 0


def test_deadline_of_a_resolved_round_cannot_move(alice: Any, ids: dict[str, Any]) -> None:
    r = alice.post(f"/encounters/{ids['encounter']}/override/deadline",
                   {"round_id": ids["round1"], "deadline": "2099-01-01T12:00", "reason": "x"})
    assert "past changing" in alice.get(r.headers["Location"]).text


def test_declarations_without_a_post_are_shown(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    with session_scope(make_engine(db_url)) as s:
        s.add(Declaration(round_id=ids["round"], combatant_id=ids["combatants"]["goblin-1"], source="narrator",
                          actions=[{"kind": "attack", "target": "aria", "explicit": True, "text": "stabs Aria"}]))
    html = _page(alice, ids)
    section = html.split("Declarations without a post")[1]
    assert "Goblin 1" in section and "stabs Aria" in section and "narrator" in section


def test_violations_listed_with_rule_ids(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    with session_scope(make_engine(db_url)) as s:
        d = s.get(Declaration, ids["declarations"][0])
        d.late, d.speech_count, d.speech_limit = True, 4, 2
        d.errors = [{"rule": "FD-3", "message": "two standard actions: over the action budget"}]
    html = _page(alice, ids)
    section = html.split('id="h-violations"')[1].split("</section>")[0]
    for text in ("late", "speech limit", "edited after roll", "over budget", "PBP-2", "PBP-3", "PBP-4", "FD-3"):
        assert text in section, text
    assert "Latency penalty" in html  # the waive form appears on a late declaration


def test_conditions_are_stored_normalised_and_only_known_names_are_suggested(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """The campaign plays forum-d20 (FD-18 lists flat-footed, prone, ...): a Portuguese name
    is stored under its canonical key, a name the ruleset never reads is refused, and the
    form suggests exactly the names the rules know."""
    html = _page(alice, ids)
    listed = re.search(r'<datalist id="condition-names">(.*?)</datalist>', html, re.DOTALL)
    assert listed
    names = re.findall(r'<option value="([^"]+)">', listed.group(1))
    assert names == list(known_conditions("forum-d20"))
    assert "flat-footed" in names and "prone" in names
    assert not {"dazed", "helpless", "shaken", "stunned", "unconscious"} & set(names)
    url = f"/encounters/{ids['encounter']}/override/condition"
    cid = ids["combatants"]["brom"]
    alice.post(url, {"combatant_id": cid, "name": "Desprevenido", "reason": "caught napping"})
    r = alice.post(url, {"combatant_id": cid, "name": "stunned", "reason": "not a forum-d20 word"})
    assert "unknown condition" in alice.get(r.headers["Location"]).text
    with session_scope(make_engine(db_url)) as s:
        assert [c["name"] for c in s.get(Combatant, cid).conditions] == ["flat-footed"]
