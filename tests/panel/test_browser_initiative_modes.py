"""Browser step of STALL-7 (Debian's Chromium, Playwright): on the encounter page the
narrator picks popcorn with a first actor that is not in the fight (refused in words),
then a real one (saved, the page says so and keeps the choice). Screenshots in
/tmp/shots-initiative/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbp.store.db import make_engine, session_scope
from pbp.store.models import Encounter
from tests.panel.conftest import browser_login

pytestmark = [pytest.mark.integration]

SHOTS = Path("/tmp/shots-initiative")


def test_STALL7_initiative_mode_set_in_the_browser(
        browser: Any, live_server: str, ids: dict[str, Any], db_url: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with session_scope(make_engine(db_url)) as s:
        key = s.get(Encounter, ids["encounter"]).combatants[0].key
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server)
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    page.locator("#im-turns").select_option("popcorn")
    page.locator("#im-first").fill("nobody-here")
    page.locator("#initiative-mode-submit").click()
    page.wait_for_load_state()
    page.evaluate("window.scrollTo(0, 0)")
    assert "First to act (popcorn): 'nobody-here' is not in this fight." in page.content()
    page.locator("#h-initiative-mode").screenshot(path=str(SHOTS / "refused.png"))
    page.screenshot(path=str(SHOTS / "refused-page.png"), full_page=False)  # the flash: top
    page.locator("#im-turns").select_option("popcorn")
    page.locator("#im-first").fill(key)
    page.locator("#initiative-mode-submit").click()
    page.wait_for_load_state()
    body = page.content()
    assert ("Initiative mode of this encounter: popcorn (whoever acts names who acts next), "
            "from the next round on.") in body
    assert page.locator("#im-turns").input_value() == "popcorn"
    assert page.locator("#im-first").input_value() == key
    page.screenshot(path=str(SHOTS / "saved-page.png"), full_page=False)
    page.locator("#h-initiative-mode").screenshot(path=str(SHOTS / "saved.png"))
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Encounter, ids["encounter"]).houserules["initiative"]["first"] == key
    assert errors == []
    ctx.close()
