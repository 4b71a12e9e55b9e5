"""Browser test of the fight controls (issue 11 items 2, 4, 5, 6), Debian's Chromium driven
by Playwright: start an encounter from the panel (its opening held, then approved), approve
a held result from the page, move a deadline (the thread is told), and post a correction
after a result is out. Screenshots at 1280 px and 390 px go to test-output/panel/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from pbp.panel import sample
from pbp.rounds import service
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Encounter, Reply, Round, Thread
from tests.panel.conftest import PHONE, browser_login, flash_ok

pytestmark = [pytest.mark.integration]

DESKTOP = {"width": 1280, "height": 900}




def _setup_encounter(db_url: str, ids: dict[str, Any]) -> int:
    """A new thread of alice's campaign with an encounter in setup, as the panel makes one."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        t = Thread(campaign_id=ids["campaign"], kind="forum", url="http://127.0.0.1:9/viewtopic.php?t=2",
                   title="The cellar")
        s.add(t)
        s.flush()
        eid = service.start_encounter(s, t.id, sample.roster(4), name="Cellar fight")
    engine.dispose()
    return eid


def _fits(page: Any, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1


def test_start_approve_move_deadline_and_correct(browser: Any, live_server: str, ids: dict[str, Any],
                                                 db_url: str, output_dir: Path) -> None:
    eid = _setup_encounter(db_url, ids)
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: d.accept())
    browser_login(page, live_server)
    assert page.locator("#approval-queue").is_visible()          # one queue of held replies
    page.screenshot(path=str(output_dir / "fight-dashboard-queue-desktop.png"), full_page=True)

    # 1. start the encounter: round 1 opens, its opening waits for approval, the clock with it
    page.goto(f"{live_server}/encounters/{eid}")
    page.screenshot(path=str(output_dir / "fight-start-before-desktop.png"), full_page=True)
    flash_ok(page, page.locator("#start-submit"), "opening waits for your approval")
    assert page.locator("#clock-held").is_visible()
    page.screenshot(path=str(output_dir / "fight-started-held-desktop.png"), full_page=True)
    page.get_by_text("Read and approve").click()
    page.locator("[id^=approve-reason-]").first.fill("opening reads well")
    assert flash_ok(page, page.locator("button[id^=approve-]").first) == "Change recorded."
    assert page.locator("#clock-held").count() == 0
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        rnd = service.current_round(s, eid)
        assert (rnd.number, rnd.state) == (1, "open")
        assert s.scalar(select(Reply.state).where(Reply.idempotency_key == f"{rnd.id}:opening")) == "pending"

    # 2. approve the held result of the sample's round 1: round 2's clock starts then
    page.goto(f"{live_server}/encounters/{ids['encounter']}?round=1")
    page.locator("#reply-action").select_option("post")
    page.locator("#reply-reason").fill("checked, good to go")
    flash_ok(page, page.locator("#reply-submit"), "Change recorded")
    assert page.locator("#reply-state").inner_text() == "pending"

    # 3. move round 2's deadline: the thread is told (held too: approval mode holds every reply)
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    page.get_by_text("Extend or shorten the deadline").click()
    page.locator("#deadline-new").fill("2099-01-01T12:00")
    page.locator("#deadline-reason").fill("the forum was down")
    flash_ok(page, page.get_by_role("button", name="Move deadline"), "Change recorded")
    assert "2099-01-01 12:00" in page.locator("[data-live=round]").inner_text()
    page.get_by_text("Other replies of this round").click()
    notice = page.locator("#other-replies").inner_text()
    assert "The narrator moved the deadline: post your declarations by 2099-01-01 12:00" in notice
    assert "the forum was down" not in notice
    page.screenshot(path=str(output_dir / "fight-deadline-moved-desktop.png"), full_page=True)

    # 4. round 1's result goes out (as the worker does), then a roll is found wrong
    with session_scope(engine) as s:
        for reply in s.scalars(select(Reply).where(Reply.round_id == ids["round1"])):
            reply.state = "sent"
    engine.dispose()
    page.goto(f"{live_server}/encounters/{ids['encounter']}?round=1")
    roll = page.locator(f"#roll-{ids['rolls1'][0]}")
    roll.locator("summary").click()
    roll.get_by_label("New result").fill("1")
    roll.get_by_label("Reason", exact=True).fill("typo fix")
    flash_ok(page, roll.get_by_role("button", name="Set result"),
             "post a correction to apply it")                # never a silent "recorded"
    assert page.locator("#correction").is_visible()
    page.locator("#correct-reason").fill("typo fix")
    flash_ok(page, page.locator("#correct-submit"), "Correction queued")
    page.get_by_text("Other replies of this round").click()
    text = page.locator("#other-replies").inner_text()
    assert "correction" in text and "The narrator adjusted" in text and "typo fix" not in text
    page.screenshot(path=str(output_dir / "fight-correction-desktop.png"), full_page=True)
    assert not errors, errors
    ctx.close()

    # the same pages on a phone: nothing wider than the screen
    phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = phone.new_page()
    browser_login(page, live_server)
    _fits(page, PHONE["width"])
    page.screenshot(path=str(output_dir / "fight-dashboard-phone.png"), full_page=True)
    page.goto(f"{live_server}/encounters/{ids['encounter']}?round=1")
    page.get_by_text("Other replies of this round").click()
    _fits(page, PHONE["width"])
    page.screenshot(path=str(output_dir / "fight-correction-phone.png"), full_page=True)
    page.goto(f"{live_server}/encounters/{eid}")
    _fits(page, PHONE["width"])
    page.screenshot(path=str(output_dir / "fight-started-phone.png"), full_page=True)
    phone.close()
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Encounter, eid).status == "active"
        assert s.get(Round, ids["round"]).deadline.year == 2099
