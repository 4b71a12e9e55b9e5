"""DICE-2 in Chromium (Debian's, driven by Playwright): the narrator finds a player's secret
roll on the encounter page with its value, rolls one of their own, reveals one with a
reason and then all, and sees the reveal queued for the thread. Screenshots at 1280 px and
390 px go to /tmp/shots-dice-hidden/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from pbp.store.db import make_engine, session_scope
from pbp.store.models import Reply, RollRecord
from tests.panel.conftest import PHONE, browser_login, flash_ok

from .test_secret_rolls import assert_preview, secret_post

pytestmark = [pytest.mark.integration]

DESKTOP = {"width": 1280, "height": 900}
SHOTS = Path("/tmp/shots-dice-hidden")


def test_DICE_2_secret_rolls_walked_in_the_browser(browser: Any, live_server: str, ids: dict[str, Any],
                                                   db_url: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    rec = secret_post(db_url, ids)
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: d.accept())
    browser_login(page, live_server)
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    row = page.locator(f"#secret-{rec.id}")
    assert row.get_attribute("data-sealed") == "yes"
    assert row.locator(".secret-total").inner_text() == str(rec.total)
    assert "1d20+4" in row.inner_text() and "post by aria_p" in row.inner_text()
    assert_preview(page.locator("#preview-text").inner_text(), rec)
    page.locator("#secret-rolls").screenshot(path=str(SHOTS / "secret-sealed-desktop.png"))

    # the narrator's own secret roll
    page.get_by_text("Roll in secret", exact=True).first.click()
    page.locator("#secret-expression").fill("2d6+1")
    page.locator("#secret-label").fill("does the ogre wake?")
    flash_ok(page, page.locator("#secret-submit"), "Rolled in secret")
    assert page.locator("#secret-table li[data-sealed=yes]").count() == 2

    # reveal Aria's with a reason, then all
    row = page.locator(f"#secret-{rec.id}")
    row.locator("input[name=reveal-reason]").fill("she spots the ogre")
    flash_ok(page, row.get_by_role("button", name="Reveal"), "Revealed")
    assert page.locator(f"#secret-{rec.id}").get_attribute("data-sealed") == "no"
    page.locator("#secret-rolls").screenshot(path=str(SHOTS / "secret-one-revealed-desktop.png"))
    flash_ok(page, page.locator("#reveal-all"), "Revealed")    # this page's: the one before says it too
    assert page.locator("#secret-table li[data-sealed=yes]").count() == 0
    assert page.locator("#reveal-all").count() == 0
    page.screenshot(path=str(SHOTS / "secret-all-revealed-desktop.png"), full_page=True)
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        bodies = [r.body for r in s.scalars(select(Reply).where(Reply.kind == "reveal").order_by(Reply.id))]
        mine = s.scalar(select(RollRecord).where(RollRecord.kind == "narrator"))
        assert len(bodies) == 2 and "she spots the ogre" in bodies[0]
        assert f"The narrator's secret roll #{mine.roll_index} of round 2 (does the ogre wake?)" in bodies[1]
    engine.dispose()

    ctx.close()
    # the phone: the table fits
    phone = browser.new_context(viewport=PHONE, locale="en-US")
    p2 = phone.new_page()
    browser_login(p2, live_server)
    p2.goto(f"{live_server}/encounters/{ids['encounter']}#secret-rolls")
    assert "Secret rolls" in p2.locator("#h-secret").inner_text()
    p2.locator("#secret-rolls").screenshot(path=str(SHOTS / "secret-phone.png"))
    assert p2.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1
    assert not errors, errors
    phone.close()
