"""DICE-4: the public dice check of an encounter, ``/verify/<token>``: no login, opt-in per
campaign (a checkbox of the campaign's settings, off by default), an unguessable token,
the same checker as ``pbp verify THREAD_URL`` over the replies as the outbox sent them."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select

from pbp.panel import sample
from pbp.rounds import service
from pbp.rounds.outbox import deliver_reply, pending_replies
from pbp.sources.base import PostRecord
from pbp.sources.scenario_file import FileSource
from pbp.store import queries
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Campaign, Encounter, Reply, Round

from .test_campaigns import SETTINGS


def _token(db_url: str, eid: int) -> str:
    with session_scope(make_engine(db_url)) as s:
        token = s.get(Encounter, eid).verify_token
    assert token and re.fullmatch(r"[A-Za-z0-9_-]{32}", token)
    return token


def _opt_in(alice: Any, ids: dict[str, Any], on: bool = True) -> Any:
    """The narrator ticks (or unticks) the box on the campaign's settings form."""
    data = {**SETTINGS, "approval_mode": "y"}
    if on:
        data["public_verification"] = "y"
    r = alice.post(f"/campaigns/{ids['campaign']}", data)
    assert r.status_code == 302, r.text
    return r


def test_dice_4_no_public_page_until_the_campaign_opts_in(client: Any, alice: Any, app: Any,
                                                          ids: dict[str, Any], db_url: str) -> None:
    """Off by default: the token's page is a 404 like any made-up token and like the
    encounter's id; the encounter page has no link. Ticked on the campaign form (audited
    in words): the page answers a logged-out visitor, the narrator's page links it;
    unticked: 404 again."""
    eid = ids["encounter"]
    token = _token(db_url, eid)
    visitor = app.test_client()
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Campaign, ids["campaign"]).public_verification is False
    assert 'name="public_verification"' in alice.get(f"/campaigns/{ids['campaign']}").text
    for path in (f"/verify/{token}", f"/verify/{eid}", "/verify/" + "x" * 32, "/verify/" + "y" * 500):
        assert visitor.get(path).status_code == 404, path
    assert 'id="public-check"' not in alice.get(f"/encounters/{eid}").text

    _opt_in(alice, ids)
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Campaign, ids["campaign"]).public_verification is True
        entry = s.scalars(select(AuditEntry).where(AuditEntry.action == "campaign.settings")
                          .order_by(AuditEntry.id.desc())).first()
        assert entry.after["value"]["public_verification"] is True
        assert entry.before["value"]["public_verification"] is False
    page = alice.get(f"/encounters/{eid}").text
    assert f'id="public-check" href="/verify/{token}"' in page
    r = visitor.get(f"/verify/{token}")
    assert r.status_code == 200 and "Dice check: Gate fight" in r.text
    assert r.headers["X-Robots-Tag"] == "noindex" and r.headers["Referrer-Policy"] == "no-referrer"
    assert "Log out" not in r.text                           # nobody is logged in
    assert "pbp verify http://127.0.0.1:9/viewtopic.php?t=1" in r.text
    assert visitor.get(f"/verify/{eid}").status_code == 404          # still not by id
    other = _token(db_url, ids["other_encounter"])                   # bob's campaign did not opt in
    assert visitor.get(f"/verify/{other}").status_code == 404

    _opt_in(alice, ids, on=False)
    assert visitor.get(f"/verify/{token}").status_code == 404


def _deliver_all(db_url: str, thread_file: Path, approve: bool = True) -> None:
    """The worker's part: approve what is held (as the narrator would) and post every
    pending reply through a real source (a scenario file), so the outbox marks them sent."""
    with session_scope(make_engine(db_url)) as s:
        if approve:
            for reply in s.scalars(select(Reply).where(Reply.state == "held")):
                service.approve_reply(s, reply.id, None, reply.created_at)
        source = FileSource(thread_file)
        for rid in pending_replies(s):
            deliver_reply(s, rid, source)


def chained_fight(db_url: str, ids: dict[str, Any], thread_file: Path) -> dict[str, Any]:
    """A fight of alice's campaign played through the round service with the encounter's
    own dice chain (the sample's fight rolls with a fixed test seed, outside any chain):
    started, round 1 declared by two posts and resolved, every reply approved and posted
    through the outbox. The sample's fight is finished first (one fight per thread)."""
    t0 = datetime.now(UTC) - timedelta(hours=30)
    with session_scope(make_engine(db_url)) as s:
        s.get(Encounter, ids["encounter"]).status = "finished"
        eid = service.start_encounter(s, ids["thread"], sample.roster(4), name="Chained fight", now=t0)
        r1 = service.open_round(s, eid, t0, deadline=t0 + timedelta(hours=24))
        posts = [PostRecord(platform_id=f"c{k}", author=who, posted_at=t0 + timedelta(minutes=5 + k),
                            body=f"{name} swings. I attack Goblin 1 with my longsword [roll]1d20+6[/roll]",
                            text=f"{name} swings. I attack Goblin 1 with my longsword [roll]1d20+6[/roll]",
                            fmt="bbcode")
                 for k, (who, name) in enumerate((("aria_p", "Aria"), ("brom_p", "Brom")))]
        service.ingest_posts(s, ids["thread"], posts, now=t0 + timedelta(hours=1))
        for reply in s.scalars(select(Reply).where(Reply.state == "held")):
            service.approve_reply(s, reply.id, None, t0 + timedelta(hours=1))
        service.resolve_round(s, r1, t0 + timedelta(hours=24))
    _deliver_all(db_url, thread_file)
    return {"encounter": eid, "round1": r1}


def test_dice_4_the_page_checks_the_replies_as_sent_and_names_a_change(
        client: Any, alice: Any, app: Any, ids: dict[str, Any], db_url: str, tmp_path: Path) -> None:
    """A fight's replies posted through the outbox: round 1 (resolved) checks out with its
    seed shown, and its commitment, the encounter's chain on top; round 2 is open, its
    seed secret. Then the outbox's copy of round 1's result is altered (a roll's total):
    the page says it does not check out and names the roll, what the reply shows and
    what the seed gives."""
    thread_file = tmp_path / "thread.yaml"
    thread_file.write_text("")
    fight = chained_fight(db_url, ids, thread_file)
    _opt_in(alice, ids)
    token = _token(db_url, fight["encounter"])
    visitor = app.test_client()
    with session_scope(make_engine(db_url)) as s:
        r1 = s.get(Round, fight["round1"])
        seed, commitment = r1.seed, r1.commitment
        result = queries.reply_by_key(s, f"{r1.id}:resolution")
        assert result.state == "sent" and "pbp-dice v1 round=1 seed=" + seed in result.body, result.body
        rolls = queries.round_rolls(s, r1.id)
        chain = s.get(Encounter, fight["encounter"]).dice_chain
        assert chain and chain == commitment                         # round 1 commits to the chain
    html = visitor.get(f"/verify/{token}").text
    assert 'id="verdict" data-ok="yes"' in html, html
    assert f'<code class="digest" id="chain">{chain}</code>' in html
    row1 = re.search(r'<tr id="round-1" data-ok="yes">(.*?)</tr>', html, re.S).group(1)
    assert seed in row1 and commitment in row1
    assert f"Rolls recomputed from its seed: {len(rolls)}." in row1
    row2 = re.search(r'<tr id="round-2" data-ok="yes">(.*?)</tr>', html, re.S).group(1)
    assert "Not resolved yet" in row2 and seed in row2          # round 2 is committed to s_1

    first = rolls[0]
    line = f"#{first.roll_index} {first.expression} = {first.total} ["
    forged = f"#{first.roll_index} {first.expression} = {first.total + 3} ["
    with session_scope(make_engine(db_url)) as s:
        reply = queries.reply_by_key(s, f"{fight['round1']}:resolution")
        assert line in reply.body, reply.body
        reply.body = reply.body.replace(line, forged)
    html = visitor.get(f"/verify/{token}").text
    assert 'id="verdict" data-ok="no"' in html
    row1 = re.search(r'<tr id="round-1" data-ok="no">(.*?)</tr>', html, re.S).group(1)
    assert (f"round 1: roll #{first.roll_index} &#39;{first.expression}&#39;: the reply shows "
            f"{first.total + 3} {list(first.faces)}, the seed gives {first.total}") in row1


def test_dice_4_the_checkers_problems_are_said_in_the_readers_language(
        client: Any, alice: Any, app: Any, ids: dict[str, Any], db_url: str, tmp_path: Path) -> None:
    """The checker's sentences on the public page (issue 17 i18n leftover): a reader asking
    for Portuguese or Russian reads the changed roll's problem in that language, with the
    same values (the roll, what the reply shows, what the seed gives); English stays as
    ``pbp verify`` prints it."""
    thread_file = tmp_path / "thread.yaml"
    thread_file.write_text("")
    fight = chained_fight(db_url, ids, thread_file)
    _opt_in(alice, ids)
    token = _token(db_url, fight["encounter"])
    with session_scope(make_engine(db_url)) as s:
        first = queries.round_rolls(s, fight["round1"])[0]
        reply = queries.reply_by_key(s, f"{fight['round1']}:resolution")
        line = f"#{first.roll_index} {first.expression} = {first.total} ["
        reply.body = reply.body.replace(line, f"#{first.roll_index} {first.expression} = {first.total + 3} [")
    shown, given = f"{first.total + 3} {list(first.faces)}", f"{first.total} {list(first.faces)}"
    expected = {
        "en": f"round 1: roll #{first.roll_index} &#39;{first.expression}&#39;: the reply shows {shown}, "
              f"the seed gives {given}",
        "pt": f"rodada 1: rolagem #{first.roll_index} &#39;{first.expression}&#39;: a resposta mostra "
              f"{shown}, a semente dá {given}",
        "ru": f"раунд 1: бросок №{first.roll_index} &#39;{first.expression}&#39;: в ответе {shown}, "
              f"зерно даёт {given}",
    }
    visitor = app.test_client()
    for lang, sentence in expected.items():
        html = visitor.get(f"/verify/{token}", headers={"Accept-Language": lang}).text
        assert f'lang="{lang}"' in html
        row1 = re.search(r'<tr id="round-1" data-ok="no">(.*?)</tr>', html, re.S).group(1)
        assert sentence in row1, (lang, row1)
        if lang != "en":
            assert "the reply shows" not in html
