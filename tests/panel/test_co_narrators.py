"""STALL-3 / PBP-1: each co-narrator's accounts on the thread's platforms, set on the
campaign's page. A post under a narrator's account declares for the characters no player
runs; before this form only the owner's account (Settings) could be named from the panel,
so a co-narrator's NPC posts were read as nobody's. An account that is a player's is
refused: it would take that player's posts for the narrator's (its own setting, the
owner's account in Settings, is refused the same way)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from pbp.rounds.declare import narrator_names
from pbp.store import models as m
from pbp.store.db import make_engine, session_scope


def _links(db_url: str, campaign: int) -> dict[str, list[str]]:
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        rows = s.execute(select(m.Narrator.username, m.CampaignNarrator.platform_names)
                         .join(m.CampaignNarrator, m.CampaignNarrator.narrator_id == m.Narrator.id)
                         .where(m.CampaignNarrator.campaign_id == campaign)).all()
    engine.dispose()
    return {u: list(p) for u, p in rows}


def _bob_link(db_url: str, campaign: int) -> int:
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        link = s.scalar(select(m.CampaignNarrator.id).join(m.Narrator, m.Narrator.id == m.CampaignNarrator.narrator_id)
                        .where(m.CampaignNarrator.campaign_id == campaign, m.Narrator.username == "bob"))
    engine.dispose()
    assert link is not None
    return link


def test_stall3_a_co_narrator_is_added_with_accounts_that_name_them_in_the_thread(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    cid = ids["campaign"]
    alice.get(f"/campaigns/{cid}")
    r = alice.post(f"/campaigns/{cid}/narrators", {"co-name": "bob", "co-account": " bob_gm, u/Bob-Alt, BOB_GM "})
    assert r.status_code == 302, r.text
    assert _links(db_url, cid)["bob"] == ["bob_gm", "Bob-Alt"]   # u/ dropped, each once
    engine = make_engine(db_url)
    with session_scope(engine) as s:   # the reads of the rounds now take bob's posts as a narrator's
        thread = s.scalars(select(m.Thread).where(m.Thread.campaign_id == cid)).first()
        assert {"bob_gm", "bob-alt"} <= narrator_names(s, thread.campaign, thread)
    engine.dispose()
    page = alice.get(f"/campaigns/{cid}").text
    assert 'value="bob_gm, Bob-Alt"' in page


def test_stall3_accounts_are_changed_and_audited(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    cid = ids["campaign"]
    alice.get(f"/campaigns/{cid}")
    alice.post(f"/campaigns/{cid}/narrators", {"co-name": "bob"})
    assert _links(db_url, cid)["bob"] == []
    link = _bob_link(db_url, cid)
    alice.get(f"/campaigns/{cid}")
    r = alice.post(f"/campaigns/{cid}/narrators/{link}/accounts", {"accounts": "mestre_bob"})
    assert r.status_code == 302 and r.headers["Location"].endswith("#h-narrators")
    assert _links(db_url, cid)["bob"] == ["mestre_bob"]
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        entry = s.scalars(select(m.AuditEntry).where(m.AuditEntry.action == "narrator.accounts")).one()
        assert entry.before == {"value": {"username": "bob", "accounts": []}}
        assert entry.after == {"value": {"username": "bob", "accounts": ["mestre_bob"]}}
    engine.dispose()
    alice.get(f"/campaigns/{cid}")
    alice.post(f"/campaigns/{cid}/narrators/{link}/accounts", {"accounts": ""})   # empty: none
    assert _links(db_url, cid)["bob"] == []


def test_stall3_a_players_account_is_refused_and_nothing_is_lost(alice: Any, ids: dict[str, Any],
                                                                  db_url: str) -> None:
    """aria_p plays Aria in the sample fight: as bob's account it would turn her posts into
    NPC declarations. The page says so, keeps what was typed, and saves nothing."""
    cid = ids["campaign"]
    alice.get(f"/campaigns/{cid}")
    alice.post(f"/campaigns/{cid}/narrators", {"co-name": "bob", "co-account": "bob_gm"})
    link = _bob_link(db_url, cid)
    alice.get(f"/campaigns/{cid}")
    r = alice.post(f"/campaigns/{cid}/narrators/{link}/accounts", {"accounts": "bob_gm, ARIA_P"})
    assert r.status_code == 400
    assert "ARIA_P plays Aria in this campaign" in r.text
    assert 'value="bob_gm, ARIA_P"' in r.text and 'aria-invalid="true"' in r.text
    assert _links(db_url, cid)["bob"] == ["bob_gm"]
    # the same check when adding
    alice.get(f"/campaigns/{cid}")
    r = alice.post(f"/campaigns/{cid}/narrators", {"co-name": "alice", "co-account": "aria_p"})
    assert r.status_code == 400


def test_stall3_bad_accounts_get_words_not_a_500(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    cid = ids["campaign"]
    alice.get(f"/campaigns/{cid}")
    alice.post(f"/campaigns/{cid}/narrators", {"co-name": "bob"})
    link = _bob_link(db_url, cid)
    for value, words in [("<script>alert(1)</script>", "is not a user name"),
                         (",".join(f"gm{i}" for i in range(6)), "At most 5 accounts."),
                         ("x" * 5000, "is not a user name")]:
        alice.get(f"/campaigns/{cid}")
        r = alice.post(f"/campaigns/{cid}/narrators/{link}/accounts", {"accounts": value})
        assert r.status_code == 400 and words in r.text, value[:40]
        assert "<script>alert" not in r.text
    assert _links(db_url, cid)["bob"] == []
    # no such place, or bob's own campaign's owner link (2): not this campaign's
    for bad in (str(link + 100), "2"):
        alice.get(f"/campaigns/{cid}")
        r = alice.post(f"/campaigns/{cid}/narrators/{bad}/accounts", {"accounts": "x"}, follow_redirects=True)
        assert r.status_code == 200 and "not in this campaign any more" in r.text
    for bad in ("0", str(10**30)):   # not an id at all: the panel's id converter answers 404
        assert alice.post(f"/campaigns/{cid}/narrators/{bad}/accounts", {"accounts": "x"}).status_code == 404


def test_stall3_owner_row_shows_the_settings_account(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """The owner's account is the one in Settings: the row says it, or says where to set it."""
    cid = ids["campaign"]

    def owner_row() -> str:
        page = alice.get(f"/campaigns/{cid}").text
        narrators = page[page.index('id="h-narrators"'):]
        return narrators[narrators.index("<li>"):narrators.index("</li>")]

    assert "No account on the thread's platform yet: set it in Settings." in owner_row()
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        s.get(m.Campaign, cid).narrator_account = "mestre_alice"
    engine.dispose()
    assert "Posts as mestre_alice (the account in Settings)." in owner_row()


def test_campaign_history_shows_the_campaigns_own_changes_in_words(alice: Any, ids: dict[str, Any],
                                                                   db_url: str) -> None:
    """The campaign's own changes (here a co-narrator and their accounts) were written to
    the audit trail and shown on no page; the campaign page lists them, newest first, and
    never an encounter's entries (those are on the encounter's page)."""
    cid = ids["campaign"]
    alice.get(f"/campaigns/{cid}")
    alice.post(f"/campaigns/{cid}/narrators", {"co-name": "bob", "co-account": "bob_gm"})
    page = alice.get(f"/campaigns/{cid}").text
    history = page[page.index('id="h-campaign-audit"'):]
    history = history[:history.index("</ol>")]
    assert "alice added the narrator bob." in history
    alice.post(f"/campaigns/{cid}/narrators/{_bob_link(db_url, cid)}/accounts", {"accounts": "gm_bob"})
    page = alice.get(f"/campaigns/{cid}").text
    history = page[page.index('id="h-campaign-audit"'):]
    history = history[:history.index("</ol>")]
    changed = history.index("alice set the accounts of bob: bob_gm → gm_bob.")
    assert changed < history.index("alice added the narrator bob.")   # newest first
    assert 'data-action="override.' not in history and 'data-action="round.' not in history
