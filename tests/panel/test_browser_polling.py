"""SCALE-2 in a real browser: the narrator reads each forum's budget and cycle time on the
campaign page (and a screenshot of it is kept for a person to look at)."""

from __future__ import annotations

from typing import Any

from pbp.store.budget import DatabaseBudget, budget_database
from pbp.store.campaigns import Thread
from pbp.store.db import make_engine, session_scope
from tests.panel.conftest import browser_login


def test_scale2_browser_shows_forum_polling(browser: Any, live_server: str, db_url: str,
                                            ids: dict[str, Any], output_dir: Any) -> None:
    """SCALE-2: the sample's machina thread plus one on a topic list: 2 threads, a cycle of
    2 requests at 2 s = max(60 s, 4 s) = 60 s; 3 requests this minute of the 30 allowed."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        s.add(Thread(campaign_id=ids["campaign"], kind="forum", platform="bbcode",
                     url="http://127.0.0.1:8000/forum/adventures-2/topic/fight-9/",
                     options={"preset": "machina", "listing_url": "http://127.0.0.1:8000/forum/adventures-2/"}))
    # where the workers keep it: on SQLite a file beside the database (its own lock)
    budget = DatabaseBudget(make_engine(budget_database(db_url)))
    for _ in range(3):
        budget.reserve("host:127.0.0.1", 0.0)
    engine.dispose()
    page = browser.new_page()
    try:
        browser_login(page, live_server)
        page.goto(f"{live_server}/campaigns/{ids['campaign']}#h-polling")
        table = page.locator("table.polling")
        text = table.inner_text()
        assert "127.0.0.1" in text and "3 of 30 requests in the last minute" in text
        assert "about 60 s" in text and "topic lists: 1, read alone: 1" in text
        table.scroll_into_view_if_needed()
        page.screenshot(path=str(output_dir / "scale2_forum_polling.png"), full_page=False)
        page.screenshot(path="/tmp/shots-poll/scale2_forum_polling.png", full_page=False)
    finally:
        page.close()
