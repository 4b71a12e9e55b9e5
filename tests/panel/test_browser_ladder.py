"""Browser step of STALL-3 (Debian's Chromium, Playwright): the campaign form refuses a
notification time "soon" in words and saves the ladder's settings; after the ladder's steps
ran, the encounter page's ladder table shows the player's reminder, the @mention waiting to
go out (machina has no private messages), one missed round and narrator-run. Screenshots in
/tmp/shots-ladder/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbp.store.db import make_engine, session_scope
from pbp.store.models import Campaign
from tests.panel.conftest import browser_login, flash_ok
from tests.panel.test_ladder import run_ladder_steps

pytestmark = [pytest.mark.integration]

SHOTS = Path("/tmp/shots-ladder")


def test_STALL3_ladder_settings_and_state_in_the_browser(
        browser: Any, live_server: str, ids: dict[str, Any], db_url: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server)
    page.goto(f"{live_server}/campaigns/{ids['campaign']}")
    page.locator("#notify_hours").fill("soon")
    page.locator("#missed_limit").fill("2")
    page.get_by_role("button", name="Save", exact=True).click()
    assert "Direct notification: a number of hours before the deadline" in \
        page.locator("#notify_hours-err").inner_text()
    page.locator("#notify_hours").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "campaign-notify-refused.png"), full_page=False)
    page.locator("#notify_hours").fill("4")
    page.locator("#auto_narrator_run").check()
    page.locator("#narrator_account").fill("the_gm")
    flash_ok(page, page.get_by_role("button", name="Save", exact=True), "Settings saved.")
    with session_scope(make_engine(db_url)) as s:
        c = s.get_one(Campaign, ids["campaign"])
        assert (c.notify_hours, c.missed_limit, c.auto_narrator_run, c.narrator_account) == (4.0, 2, True, "the_gm")
    players = run_ladder_steps(db_url, ids)
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    page.locator("#ladder-link").click()
    table = page.locator("#ladder")
    text = table.inner_text()
    for p in players:
        assert p in text
    assert "@mention in the thread · waiting to be sent" in text and "narrator told" in text
    page.locator("#ladder-state").scroll_into_view_if_needed()
    page.locator("#ladder-state").screenshot(path=str(SHOTS / "encounter-ladder.png"))
    assert not errors, errors
    ctx.close()
