"""STALL-9 in the browser (Debian's Chromium through Playwright): from the dashboard the
narrator follows "Who owes a post" and reads who owes what, by when, with each player's
average delay and misses. Screenshot: /tmp/shots-owes/owes.png."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from pbp.store.db import make_engine, session_scope
from tests.panel.conftest import browser_login
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
