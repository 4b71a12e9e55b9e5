"""Browser test of the roll ledger (DICE-3), Debian's Chromium driven by Playwright: from the
encounter page's flags and link to the ledger, filter by player and round, download the
CSV and the JSON export. Screenshots at 1280 px and 390 px go to /tmp/shots-dice-ledger/."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.panel.conftest import PHONE, browser_login
from tests.panel.test_roll_ledger import play_fishing_and_tamper

pytestmark = [pytest.mark.integration]

DESKTOP = {"width": 1280, "height": 900}
SHOTS = Path("/tmp/shots-dice-ledger")


def test_dice3_ledger_page_filters_and_exports_in_chromium(browser: Any, live_server: str,
                                                           ids: dict[str, Any], db_url: str) -> None:
    fished = play_fishing_and_tamper(db_url, ids)
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US", accept_downloads=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server)
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    flags = page.locator(".ledger-flags")
    assert "several rolls for one action" in flags.inner_text()
    assert "re-posted after roll" in flags.inner_text()
    page.locator("#ledger-link").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "encounter-flags-desktop.png"), full_page=True)
    page.locator("#ledger-link").click()
    page.wait_for_url("**/ledger?round=2")
    assert page.locator("h1").inner_text().startswith("Roll ledger")
    rows = page.locator("table.ledger tbody tr")
    assert rows.count() > 0
    assert page.locator('tr[data-flags~="fishing"]').count() == 2     # p301 and p302
    # every round, then cato_p's only
    page.locator("#f-round").fill("")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_load_state()
    assert page.locator('tr[data-flags~="tampered"]').count() == 1   # round 1's altered roll
    tampered = page.locator('tr[data-flags~="tampered"]').inner_text()
    assert f"stored {fished['tampered'][2] + 7}, the seed gives {fished['tampered'][2]}" in tampered
    page.screenshot(path=str(SHOTS / "ledger-all-desktop.png"), full_page=True)
    page.locator("#f-player").select_option("cato_p")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url("**player=cato_p**")
    shown = page.locator("table.ledger tbody tr")
    assert shown.count() < rows.count() or shown.count() > 0
    assert all("cato_p" in shown.nth(i).inner_text() for i in range(shown.count()))
    page.screenshot(path=str(SHOTS / "ledger-cato-desktop.png"), full_page=True)
    with page.expect_download() as got:
        page.locator("#ledger-csv").click()
    table = list(csv.DictReader(io.StringIO(Path(got.value.path()).read_text(encoding="utf-8"))))
    assert len(table) == shown.count() and {r["player"] for r in table} == {"cato_p"}
    with page.expect_download() as got:
        page.locator("#ledger-json").click()
    data = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    assert len(data["rolls"]) == shown.count() and data["player"] == "cato_p"
    phone = browser.new_context(viewport=PHONE, locale="en-US")
    small = phone.new_page()
    browser_login(small, live_server)
    small.goto(f"{live_server}/encounters/{ids['encounter']}/ledger")
    small.screenshot(path=str(SHOTS / "ledger-phone.png"), full_page=True)
    assert small.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1  # nothing cut
    phone.close()
    ctx.close()
    assert not errors


def test_dice3_ledger_and_flagged_encounter_page_pass_axe(browser: Any, live_server: str, ids: dict[str, Any],
                                                          db_url: str, axe_js: Path) -> None:
    """The ledger page, and the encounter page with its rolls to look at, have no WCAG 2.1 AA
    violation axe-core finds."""
    play_fishing_and_tamper(db_url, ids)
    ctx = browser.new_context(viewport=DESKTOP, bypass_csp=True)   # our CSP refuses axe's script
    page = ctx.new_page()
    browser_login(page, live_server)
    for path in (f"/encounters/{ids['encounter']}/ledger", f"/encounters/{ids['encounter']}"):
        page.goto(live_server + path)
        page.add_script_tag(path=str(axe_js))
        result = page.evaluate("""async () => {
            const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']}});
            return r.violations.map(v => ({id: v.id, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
        }""")
        assert result == [], (path, result)
    ctx.close()
