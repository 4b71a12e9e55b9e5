"""Browser step of STALL-4/5 (Debian's Chromium, Playwright): the campaign form refuses
quiet hours "25:00-08:00" in words and saves good clock settings; on the encounter page a
player's extension request over the limit waits, the narrator grants it and the deadline
moves; the fight's own round length is set. Screenshots in /tmp/shots-stall-close/ and
test-output/panel/, at 1280 px and 390 px."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from pbp.rounds import service
from pbp.rounds.clocks import clock_of, place
from pbp.sources.base import PostRecord
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Campaign, Encounter, ExtensionRequest, Round
from tests.panel.conftest import PHONE, browser_login, flash_ok

pytestmark = [pytest.mark.integration]

DESKTOP = {"width": 1280, "height": 900}
SHOTS = Path("/tmp/shots-stall-close")


def _shot(page: Any, output_dir: Path, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    page.screenshot(path=str(output_dir / f"stall-{name}.png"), full_page=True)


def test_STALL5_clock_settings_and_an_extension_granted_in_the_browser(
        browser: Any, live_server: str, ids: dict[str, Any], db_url: str, output_dir: Path) -> None:
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        before = s.get(Round, ids["round"]).deadline
        at = datetime.now(UTC) - timedelta(minutes=2)
        body = "I hold the gate.\n.продлить 2д"
        service.ingest_posts(s, ids["thread"], [PostRecord(platform_id="p901", author="cato_p", posted_at=at,
                                                           body=body, text=body, fmt="bbcode")], now=at)
        req_id = s.query(ExtensionRequest.id).scalar()
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server)

    # 1. the campaign form: a bad time refused in words, then good values saved
    page.goto(f"{live_server}/campaigns/{ids['campaign']}")
    page.locator("#quiet_hours").fill("25:00-08:00")
    page.locator("#close_grace_minutes").fill("5")
    page.get_by_role("button", name="Save", exact=True).click()
    alert = page.locator("#quiet_hours-err").inner_text()
    assert "Quiet hours: two times of day as HH:MM-HH:MM, like 23:00-08:00" in alert
    _shot(page, output_dir, "campaign-quiet-hours-refused-desktop")
    page.locator("#quiet_hours").fill("23:00-08:00")
    page.locator("#skip_weekends").check()
    page.locator("#extension_limit_hours").fill("6")
    flash_ok(page, page.get_by_role("button", name="Save", exact=True), "Settings saved.")
    assert page.locator("#quiet_hours").input_value() == "23:00-08:00"
    _shot(page, output_dir, "campaign-clock-saved-desktop")

    # 2. the encounter page: Cato's 48 h request waits; granted, the deadline moves
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    item = page.locator(f"#extension-{req_id}")
    assert "Cato (cato_p): 48 h more" in item.inner_text() and "waits for you" in item.inner_text()
    _shot(page, output_dir, "encounter-extension-waiting-desktop")
    flash_ok(page, page.locator(f"#extension-grant-{req_id}"), "Extension granted")
    assert "granted by a narrator" in page.locator(f"#extension-{req_id}").inner_text()
    page.locator("#enc-round-hours").fill("12")
    flash_ok(page, page.locator("#round-length-submit"), "now last 12 hours")
    _shot(page, output_dir, "encounter-extension-granted-desktop")
    assert not errors, errors
    ctx.close()

    phone = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = phone.new_page()
    browser_login(page, live_server)
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    page.locator("#h-clock").scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1
    _shot(page, output_dir, "encounter-clock-phone")
    phone.close()

    with session_scope(engine) as s:
        c = s.get(Campaign, ids["campaign"])
        assert (c.quiet_hours, c.skip_weekends, c.extension_limit_hours, c.close_grace_minutes) \
            == ("23:00-08:00", True, 6.0, 5)
        # granted 48 h, then moved out of the quiet night/weekend just saved (Europe/Lisbon)
        assert s.get(Round, ids["round"]).deadline == place(clock_of(c), before + timedelta(hours=48))
        assert s.get(Encounter, ids["encounter"]).round_hours == 12.0
    engine.dispose()
