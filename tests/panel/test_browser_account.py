"""Issue 12 item 3, in the browser: the Account page as a narrator uses it. Two browsers are
logged in as alice; a wrong current password is refused in words under the field; the
password is changed in one browser, and the other browser's session is over (its next page
is the login form); "Log out everywhere" ends the changing browser's own session too. The
old password no longer logs in, the new one does. Screenshots at 1280 and 390 px under
test-output/panel/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbp.panel import sample
from tests.panel.conftest import PHONE, browser_login, flash_ok

pytestmark = [pytest.mark.integration]

LAPTOP = {"width": 1280, "height": 900}
NEW = "a much longer secret 42"


def test_change_password_and_log_out_everywhere(browser: Any, live_server: str,
                                                output_dir: Path) -> None:
    laptop = browser.new_context(viewport=LAPTOP, locale="en-US")
    phone = browser.new_context(viewport=PHONE, locale="en-US")
    errors: list[str] = []
    here, there = laptop.new_page(), phone.new_page()
    for page in (here, there):
        page.on("pageerror", lambda e: errors.append(str(e)))
        browser_login(page, live_server)

    here.get_by_role("link", name="Account").click()
    here.wait_for_url(f"{live_server}/account/")
    assert "Browsers and devices logged in as you: 2" in here.locator("main").inner_text()
    here.get_by_label("Current password").fill("not my password")
    here.get_by_label("New password", exact=True).fill(NEW)
    here.get_by_label("New password again").fill(NEW)
    here.get_by_role("button", name="Change password").click()
    assert here.get_by_text("This is not your current password.").is_visible()
    here.screenshot(path=str(output_dir / "account-refused-laptop.png"), full_page=True)

    here.get_by_label("Current password").fill(sample.PASSWORD)
    here.get_by_label("New password", exact=True).fill(NEW)
    here.get_by_label("New password again").fill(NEW)
    said = flash_ok(here, here.get_by_role("button", name="Change password"), "Password changed")
    assert "Every other session of yours has ended." in said
    assert "Browsers and devices logged in as you: 1" in here.locator("main").inner_text()
    here.screenshot(path=str(output_dir / "account-changed-laptop.png"), full_page=True)
    assert here.evaluate("document.documentElement.scrollWidth <= innerWidth")

    there.goto(f"{live_server}/")                     # the phone's session ended
    assert "/login" in there.url, there.url
    there.screenshot(path=str(output_dir / "account-other-session-ended-phone.png"), full_page=True)
    there.get_by_label("Name").fill("alice")
    there.get_by_label("Password").fill(sample.PASSWORD)   # the old password
    there.get_by_role("button", name="Log in").click()
    assert "/login" in there.url
    browser_login(there, live_server, password=NEW)
    there.goto(f"{live_server}/account/")
    there.screenshot(path=str(output_dir / "account-phone.png"), full_page=True)
    assert there.evaluate("document.documentElement.scrollWidth <= innerWidth")

    here.get_by_role("button", name="Log out everywhere").click()
    here.wait_for_url(f"{live_server}/login*")
    assert "logged out everywhere" in here.locator("main").inner_text()
    there.goto(f"{live_server}/")                     # and so is the phone's new one
    assert "/login" in there.url, there.url
    assert not errors, errors
    laptop.close()
    phone.close()
