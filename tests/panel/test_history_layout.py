"""Issue 11 item 10, in the browser: the encounter page's tables fit at 1280 px and at
390 px (the initiative table's "Actions left" column was cut on a phone and clipped on a
laptop). Debian's Chromium measures the page: no table's right edge past the viewport,
no horizontal page overflow; screenshots under test-output/history/."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import ROOT
from tests.panel.conftest import PHONE, browser_login

pytestmark = [pytest.mark.integration]

OUT = ROOT / "test-output" / "history"
WIDTHS = {"laptop": {"width": 1280, "height": 900}, "phone": PHONE}


@pytest.mark.parametrize("size", sorted(WIDTHS))
def test_initiative_table_fits_at_1280_and_390(browser: Any, live_server: str, ids: dict[str, Any],
                                               size: str) -> None:
    """Issue 11 item 10: every column of the initiative table (the last one is "Actions
    left") lies inside the viewport, and neither the page nor the table's own box scrolls
    sideways; the other tables of the page too."""
    OUT.mkdir(parents=True, exist_ok=True)
    viewport = WIDTHS[size]
    ctx = browser.new_context(viewport=viewport, locale="en-US")
    try:
        page = ctx.new_page()
        browser_login(page, live_server)
        for number in (None, 1):
            url = f"{live_server}/encounters/{ids['encounter']}" + (f"?round={number}" if number else "")
            page.goto(url)
            page.wait_for_selector("table.combatants")
            name = f"encounter-round{number or 'current'}-{size}"
            page.screenshot(path=str(OUT / f"{name}.png"), full_page=True)
            page.locator("section[aria-labelledby=h-combatants]").screenshot(path=str(OUT / f"{name}-table.png"))
            page.locator("#audit").screenshot(path=str(OUT / f"{name}-audit.png"))
            table = page.locator("table.combatants")
            box = table.bounding_box()
            assert box is not None
            print(size, number, "table", box)
            assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], box
            last = page.locator("table.combatants tbody tr:first-child td:last-child")
            cell = last.bounding_box()
            assert cell is not None and cell["x"] + cell["width"] <= viewport["width"], cell
            # nothing clipped by its own scroll box either: the table is no wider than its wrapper
            inner = page.evaluate("""() => [...document.querySelectorAll('table')].map(t => {
                const w = t.parentElement; return [t.className, t.scrollWidth, w.clientWidth,
                t.getBoundingClientRect().right]; })""")
            print(size, number, inner)
            for cls, scroll, wrap, right in inner:
                assert scroll <= wrap + 1, (cls, scroll, wrap)
                assert right <= viewport["width"], (cls, right)
            fits = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
            print(size, number, "page", fits)
            assert fits[0] <= fits[1], fits
        # the encounter's other table: its combatant sheets
        page.goto(f"{live_server}/encounters/{ids['encounter']}/combatants/")
        page.wait_for_selector("table")
        page.screenshot(path=str(OUT / f"sheets-{size}.png"), full_page=True)
        sheets = page.evaluate("""() => [...document.querySelectorAll('table')].map(t =>
            [t.scrollWidth, t.parentElement.clientWidth, t.getBoundingClientRect().right])""")
        print(size, "sheets", sheets)
        for scroll, wrap, right in sheets:
            assert scroll <= wrap + 1 and right <= viewport["width"], (scroll, wrap, right)
        fits = page.evaluate("() => [document.documentElement.scrollWidth, innerWidth]")
        assert fits[0] <= fits[1], fits
    finally:
        ctx.close()
