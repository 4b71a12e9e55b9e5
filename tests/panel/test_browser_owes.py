"""STALL-9 in the browser (Debian's Chromium through Playwright): from the dashboard the
narrator follows "Who owes a post" and reads who owes what, by when, with each player's
average delay and misses. Screenshot: /tmp/shots-owes/owes.png."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pbp.store.db import make_engine, session_scope
from tests.panel.conftest import browser_login, flash_ok
from tests.panel.owes_data import seed_owes

pytestmark = [pytest.mark.integration]

SHOTS = Path("/tmp/shots-owes")


def test_stall9_owes_page_in_the_browser(browser: Any, live_server: str, db_url: str) -> None:
    """STALL-9: the dashboard's link opens the page; the rows say "overdue"/"in 5 h"."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        seed_owes(s, datetime.now(UTC))
    engine.dispose()
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="en-US")
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        browser_login(page, live_server)
        page.get_by_role("link", name="Who owes a post").first.click()
        page.wait_for_url(f"{live_server}/owes")
        owed = page.locator("#owed")
        text = owed.inner_text()
        assert "overdue by 2 h" in text and "in 5 h" in text
        assert "zed_p" not in page.content()
        row = page.locator("tr.owed[data-player='dorn_p']")
        assert "away until" in row.inner_text()
        page.screenshot(path=str(SHOTS / "owes.png"), full_page=True)
        assert not errors
    finally:
        ctx.close()


def test_stall9_weekly_post_set_in_the_campaign_form_in_the_browser(
        browser: Any, live_server: str, ids: dict[str, Any], db_url: str) -> None:
    """STALL-9 / STALL-8: the narrator picks the thread, Friday, 18:00 and the tracker
    option in the campaign form, saves, and the page shows them as saved."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport={"width": 1440, "height": 1400}, locale="en-US")
    try:
        page = ctx.new_page()
        browser_login(page, live_server)
        page.goto(f"{live_server}/campaigns/{ids['campaign']}")
        page.locator("#owes_thread").select_option(label="Into the keep")
        page.locator("#owes_weekday").select_option(label="Friday")
        page.locator("#owes_hour").select_option(label="18:00")
        page.locator("#tracker_post").check()
        flash_ok(page, page.get_by_role("button", name="Save", exact=True), "Settings saved.")
        assert page.locator("#owes_weekday").input_value() == "4"
        assert page.locator("#owes_hour").input_value() == "18"
        page.locator("fieldset.owes-settings").screenshot(path=str(SHOTS / "campaign-weekly.png"))
    finally:
        ctx.close()
    from pbp.store import models as m
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        c = s.get(m.Campaign, ids["campaign"])
        assert c is not None and (c.owes_weekday, c.owes_hour, c.tracker_post) == (4, 18, True)
        assert c.owes_thread_id is not None
    engine.dispose()
