"""DICE-6 in the browser: the narrator opens the campaign page, sees the ruleset's random
tables, types a table with a hole in it and is told where the hole is (the text kept),
fixes it and saves; the new table is listed as the campaign's own. Screenshots under
/tmp/shots-dice-tables/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.panel.conftest import browser_login, flash_ok

pytestmark = [pytest.mark.integration]

SHOTS = Path("/tmp/shots-dice-tables")

WITH_A_HOLE = """[[tables]]
key = "weather"
die = "1d6"
name = { en = "Weather", pt = "Clima", ru = "Погода" }
aliases = ["tempo", "погода"]
entries = [
  { range = "1-2", text = "Rain" },
  { range = "4-6", text = "Sun" },
]
"""


def test_dice6_narrator_fixes_and_saves_a_campaign_table(browser: Any, live_server: str,
                                                        ids: dict[str, Any]) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server)
    page.goto(f"{live_server}/campaigns/{ids['campaign']}")
    card = page.locator("section[aria-labelledby=h-tables]")
    assert "Critical hit table" in card.inner_text()
    box = page.get_by_label("Random tables (TOML)")
    box.fill(WITH_A_HOLE)
    page.get_by_role("button", name="Save tables").click()
    alert = page.get_by_role("alert").filter(has_text="weather")
    assert "table 'weather': no entry covers 3 (1d6 rolls 1-6)" in alert.inner_text()
    assert 'key = "weather"' in page.get_by_label("Random tables (TOML)").input_value()
    card.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "tables-refused.png"), full_page=True)

    page.get_by_label("Random tables (TOML)").fill(WITH_A_HOLE.replace('"4-6"', '"3-6"'))
    said = flash_ok(page, page.get_by_role("button", name="Save tables"), "Random tables saved")
    assert "Random tables saved: 1." in said
    row = page.locator("table.tables-list tr", has_text="Weather")
    assert "1d6" in row.inner_text() and "this campaign" in row.inner_text()
    page.locator("section[aria-labelledby=h-tables]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "tables-saved.png"), full_page=True)
    assert errors == []
    context.close()
