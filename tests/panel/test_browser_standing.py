"""STALL-1 / STALL-2 in the browser (Debian's Chromium through Playwright): the narrator
marks a player away and sets a character's default and conditional orders on the
encounter page; a default that would cast a spell is refused in words; the table, the
audit log and the flash messages say so. Screenshots go to /tmp/shots-stall-away/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.panel.conftest import PHONE, browser_login, flash_ok

pytestmark = [pytest.mark.integration]

SHOTS = Path("/tmp/shots-stall-away")


def test_stall1_stall2_narrator_sets_absence_and_orders_in_the_browser(
        browser: Any, live_server: str, ids: dict[str, Any]) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="en-US")
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        browser_login(page, live_server)
        page.goto(f"{live_server}/encounters/{ids['encounter']}")
        section = page.locator("#standing")
        assert "Nobody has announced an absence." in section.inner_text()

        # STALL-1: mark Brom's player away until a date, with a note
        section.locator("summary", has_text="Mark a player away").click()
        form = page.locator("#absence-form")
        form.get_by_label("Player").select_option("brom_p")
        form.get_by_label("Until (campaign time)").fill("2099-12-10T00:00")
        form.get_by_label("Note").fill("on holiday")
        assert "Absence recorded." in flash_ok(page, form.get_by_role("button", name="Mark away"),
                                               "Absence recorded.")
        row = page.locator("#absences tbody tr").first
        assert "brom_p" in row.inner_text() and "2099-12-10 00:00" in row.inner_text()
        assert "away now" in row.inner_text() and "on holiday" in row.inner_text()
        assert "away until 2099-12-10 00:00" in page.locator("#orders-brom").inner_text()

        # STALL-2: a default for Aria, then a conditional order
        orders = page.locator("#orders-aria")
        orders.locator("summary").click()
        orders.get_by_label("Order").select_option("default")
        orders.get_by_label("Words, as a player would post them").fill("defend")
        flash_ok(page, orders.get_by_role("button", name="Set"), "Standing order recorded.")
        orders = page.locator("#orders-aria")
        orders.locator("summary").click()
        orders.get_by_label("Order").select_option("if")
        orders.get_by_label("Words, as a player would post them").fill("Goblin 1 attacks me, I attack it")
        flash_ok(page, orders.get_by_role("button", name="Set"), "Standing order recorded.")
        text = page.locator("#orders-aria").inner_text()
        assert "defend" in text and "if Goblin 1 attacks me, I attack it" in text

        # a default that spends a spell is refused, in words
        orders = page.locator("#orders-cato")
        orders.locator("summary").click()
        orders.get_by_label("Words, as a player would post them").fill("cast fireball at Goblin 1")
        orders.get_by_role("button", name="Set").click()
        page.wait_for_selector(".flash.error")
        assert "a default may not spend a limited resource (spell)" in \
            page.locator(".flash.error").first.inner_text()
        assert "none: the ruleset's rule for a missing post" in page.locator("#orders-cato").inner_text()
        audit = page.locator("#audit").inner_text()
        assert "alice marked brom_p away until 2099-12-10 00:00" in audit
        assert "alice noted the default standing order of Aria: defend" in audit
        page.locator("#standing").scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / "standing-desktop.png"), full_page=True)
        page.locator("#standing").screenshot(path=str(SHOTS / "standing-section-desktop.png"))
        page.set_viewport_size(PHONE)
        page.reload()
        page.locator("#standing").screenshot(path=str(SHOTS / "standing-section-phone.png"))
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1
        assert not errors, errors
    finally:
        ctx.close()
