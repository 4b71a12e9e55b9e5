"""Sources and round settings in Debian's Chromium (issue 11 items 1 and 3): a narrator
adds a django-machina thread and a phpBB thread by their addresses alone, sees the engine
detected (phpBB asks which of its two versions), is shown every engine's address shape
for an address pbp does not know, pauses one source (the dashboard says so), removes the
other after reading what goes, and sets the round settings, nonsense refused in words.
Screenshots at 1280 px and 390 px go to test-output/panel/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.panel.conftest import PHONE, browser_login, flash_ok

pytestmark = [pytest.mark.integration]

DESKTOP = {"width": 1280, "height": 900}
MACHINA = "http://127.0.0.1:8000/forum/adventures-2/topic/the-ambush-7/"
PHPBB = "https://forum.example.org/phpBB3/viewtopic.php?f=2&t=33"




def _fits(page: Any, width: int) -> None:
    """Nothing wider than the viewport (no sideways scrolling on a phone)."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width


def _add(page: Any, url: str) -> None:
    page.get_by_label("Thread address").fill(url)
    page.get_by_role("button", name="Add source").click()
    page.wait_for_load_state()


def test_sources_by_address_and_round_settings(browser: Any, live_server: str, ids: dict[str, Any],
                                               output_dir: Path) -> None:
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server)
    campaign = f"{live_server}/campaigns/{ids['campaign']}"
    page.goto(campaign)

    page.get_by_label("Thread address").fill(MACHINA)         # one engine fits: taken
    assert flash_ok(page, page.get_by_role("button", name="Add source"),
                    "Source added") == "Source added: django-machina 1.3."
    machina = page.locator("ul.sources li", has_text=MACHINA)
    assert machina.locator(".badge").first.inner_text() == "django-machina 1.3"

    _add(page, PHPBB)                                         # phpBB 2 and 3: asked
    chooser = page.locator("fieldset.choose-engine")
    assert "fits several forum engines" in chooser.inner_text()
    assert chooser.get_by_label("phpBB 2.0").is_visible() and chooser.get_by_label("phpBB 3.0").is_visible()
    page.screenshot(path=str(output_dir / "sources-choose-desktop.png"), full_page=True)
    chooser.get_by_label("phpBB 3.0").check()
    assert flash_ok(page, page.get_by_role("button", name="Add source"),
                    "Source added") == "Source added: phpBB 3.0."
    phpbb = page.locator("ul.sources li", has_text=PHPBB)
    assert phpbb.locator(".badge").first.inner_text() == "phpBB 3.0"

    _add(page, "https://forum.example.org/board/thread/the-ambush")   # no engine fits
    error = page.locator("#thread-url-err").inner_text()
    assert "does not recognise this address" in error and not re.search(r"\(\?P|Error\b|\^", error)
    shapes = page.locator(".engine-shapes").inner_text()
    assert "phpBB 3.0: https://forum.example.org/viewtopic.php?f=2&t=123" in shapes
    assert "django-machina 1.3: https://forum.example.org/forum/adventures-2/topic/the-ambush-7/" in shapes
    page.screenshot(path=str(output_dir / "sources-unknown-desktop.png"), full_page=True)

    page.goto(campaign)
    assert "Source paused" in flash_ok(page, page.locator("ul.sources li", has_text=PHPBB)
                                       .get_by_role("button", name="Pause"), "Source paused")
    assert page.locator("ul.sources li", has_text=PHPBB).locator(".badge.warn").inner_text() == "paused"
    page.goto(f"{live_server}/")
    row = page.locator("tr", has_text=PHPBB)
    assert row.locator(".badge.warn").inner_text() == "paused"
    page.screenshot(path=str(output_dir / "sources-dashboard-desktop.png"), full_page=True)

    page.goto(campaign)
    page.locator("ul.sources li", has_text=MACHINA).get_by_role("link", name="Remove").click()
    page.wait_for_selector("#h-remove")
    assert "Nothing is deleted on the forum" in page.locator("main").inner_text()
    assert "The posts pbp stored from it are deleted: 0." in page.locator("main").inner_text()
    page.screenshot(path=str(output_dir / "sources-remove-desktop.png"), full_page=True)
    assert flash_ok(page, page.get_by_role("button", name="Remove this source"),
                    "Source removed") == "Source removed."
    assert page.locator("ul.sources li", has_text=MACHINA).count() == 0

    # the sample's own source: a phpBB address once read as machina, explained in words
    keep = page.locator("ul.sources li", has_text="Into the keep")
    assert "this is not a django-machina 1.3 thread address" in keep.inner_text()
    assert "The address fits phpBB 2.0 / phpBB 3.0: edit the source to choose." in keep.inner_text()

    page.get_by_label("Round length (hours)").fill("-2")
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_load_state()
    assert page.locator("#round_hours-err").inner_text() == "Round length must be more than 0 hours."
    page.get_by_label("Round length (hours)").fill("12")
    page.get_by_label("Reminders (hours before the deadline, comma-separated)").fill("6, 1")
    page.get_by_label("Close a round early when every player has declared").check()
    page.get_by_label("Time zone").fill("America/Sao_Paulo")
    assert flash_ok(page, page.get_by_role("button", name="Save", exact=True),
                    "Settings saved") == "Settings saved."
    assert page.get_by_label("Round length (hours)").input_value() == "12"
    assert page.get_by_label("Reminders (hours before the deadline, comma-separated)").input_value() == "6, 1"
    assert page.get_by_label("Close a round early when every player has declared").is_checked()
    page.screenshot(path=str(output_dir / "campaign-sources-desktop.png"), full_page=True)
    _fits(page, DESKTOP["width"])
    assert not errors
    ctx.close()


def test_sources_on_a_phone(browser: Any, live_server: str, ids: dict[str, Any], output_dir: Path) -> None:
    ctx = browser.new_context(viewport=PHONE, locale="en-US", is_mobile=True, has_touch=True)
    page = ctx.new_page()
    browser_login(page, live_server)
    page.goto(f"{live_server}/campaigns/{ids['campaign']}")
    _add(page, PHPBB)
    assert page.locator("fieldset.choose-engine").is_visible()
    _fits(page, PHONE["width"])
    page.screenshot(path=str(output_dir / "sources-choose-phone.png"), full_page=True)
    _add(page, "https://forum.example.org/board/thread/the-ambush")
    _fits(page, PHONE["width"])
    page.screenshot(path=str(output_dir / "sources-unknown-phone.png"), full_page=True)
    page.goto(f"{live_server}/campaigns/{ids['campaign']}")
    page.get_by_label("Round length (hours)").fill("many")
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_load_state()
    assert "Round length: a number of hours" in page.locator("#round_hours-err").inner_text()
    _fits(page, PHONE["width"])
    page.screenshot(path=str(output_dir / "campaign-sources-phone.png"), full_page=True)
    page.goto(f"{live_server}/sources/{ids['thread']}")
    _fits(page, PHONE["width"])
    page.screenshot(path=str(output_dir / "source-edit-phone.png"), full_page=True)
    page.goto(f"{live_server}/sources/{ids['thread']}/remove")     # played: refused, pause offered
    assert "cannot be removed" in page.locator("main").inner_text()
    _fits(page, PHONE["width"])
    page.screenshot(path=str(output_dir / "source-remove-phone.png"), full_page=True)
    ctx.close()


@pytest.mark.parametrize("step", ["choose", "unknown", "edit", "remove"])
def test_source_pages_pass_axe(browser: Any, live_server: str, ids: dict[str, Any], axe_js: Path,
                               step: str) -> None:
    """The engine question, the list of engines, the edit and remove pages: WCAG 2 A/AA."""
    ctx = browser.new_context(viewport=DESKTOP, bypass_csp=True)   # the CSP refuses axe, rightly
    page = ctx.new_page()
    browser_login(page, live_server)
    if step in ("choose", "unknown"):
        page.goto(f"{live_server}/campaigns/{ids['campaign']}")
        _add(page, PHPBB if step == "choose" else "https://forum.example.org/board/thread/x")
    else:
        page.goto(f"{live_server}/sources/{ids['thread']}" + ("/remove" if step == "remove" else ""))
    page.add_script_tag(path=str(axe_js))
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']}});
        return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    assert result == [], result
    ctx.close()
