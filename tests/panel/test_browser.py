"""Browser tests: Debian's Chromium driven by Playwright against the panel served in a thread.

Log in, open an encounter with posts, override a roll with a reason, see the preview and
the audit log change, approve the held reply; screenshots of the dashboard and the
encounter page at desktop and phone widths go to test-output/panel/; axe-core checks the
main pages (labels, contrast, keyboard) in the browser.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbp.panel import sample
from tests.panel.conftest import PHONE, browser_login, flash_ok

pytestmark = [pytest.mark.integration]

DESKTOP = {"width": 1440, "height": 1000}




def test_login_override_roll_and_approve(browser: Any, live_server: str, ids: dict[str, Any],
                                         output_dir: Path) -> None:
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: d.accept())
    browser_login(page, live_server)
    assert page.get_by_role("heading", name="Dashboard").is_visible()
    page.screenshot(path=str(output_dir / "dashboard-desktop.png"), full_page=True)

    page.get_by_role("link", name="Gate fight", exact=True).click()   # the approval queue links it too
    page.wait_for_url(f"{live_server}/encounters/{ids['encounter']}")
    page.wait_for_selector("li.inferred")
    assert page.locator("article.post").count() == 2
    # the <script> post is shown as text, and ran nothing
    assert page.locator("article.post", has_text='<script>alert("pwned")</script>').count() == 1
    assert page.locator("li.inferred").count() >= 1
    page.screenshot(path=str(output_dir / "encounter-desktop.png"), full_page=True)

    # round 1 is resolved and its reply is held for approval
    page.get_by_role("link", name="Review it").click()
    page.wait_for_url("**round=1")
    preview_before = page.locator("#preview-text").inner_text()
    roll = page.locator(f"#roll-{ids['rolls1'][0]}")
    roll.locator("summary").click()
    roll.get_by_label("New result").fill("25")
    roll.get_by_label("Reason").fill("forced natural 20 agreed in OOC")
    roll.get_by_label("Public: quote it in the thread").check()   # issue 11 item 7: private otherwise
    flash_ok(page, roll.get_by_role("button", name="Set result"), "Change recorded")
    assert page.locator(f"#roll-{ids['rolls1'][0]}").get_by_text("set to 25 by the narrator").is_visible()
    preview_after = page.locator("#preview-text").inner_text()
    assert preview_after != preview_before and "forced natural 20 agreed in OOC" in preview_after
    audit = page.locator("#audit").inner_text()
    # issue 11 item 10: the entry in words, with its round and reason
    assert "alice set roll #" in audit and "to 25 in round 1." in audit
    assert "Reason: forced natural 20 agreed in OOC" in audit

    # re-resolve so the reply carries the new result, then approve it
    page.get_by_text("Re-resolve the round").click()
    page.locator("#resolve-reason").fill("apply the corrected roll")
    flash_ok(page, page.get_by_role("button", name="Re-resolve"))
    assert "not yet in this reply" not in page.locator("#preview-text").inner_text()
    assert page.locator("#reply-state").inner_text() == "held"
    page.screenshot(path=str(output_dir / "encounter-round1-desktop.png"), full_page=True)
    page.locator("#reply-action").select_option("post")
    page.locator("#reply-reason").fill("checked, good to go")
    flash_ok(page, page.locator("#reply-submit"))
    assert page.locator("#reply-state").inner_text() == "pending"
    assert "alice approved a reply (result): now pending" in page.locator("#audit").inner_text()
    assert not errors, errors
    ctx.close()


def test_phone_screenshots(browser: Any, live_server: str, ids: dict[str, Any], output_dir: Path) -> None:
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    browser_login(page, live_server)
    page.screenshot(path=str(output_dir / "dashboard-phone.png"), full_page=True)
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    # nothing wider than the screen: the page scrolls down, not sideways
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"] + 1, width
    page.screenshot(path=str(output_dir / "encounter-phone.png"), full_page=True)
    page.screenshot(path=str(output_dir / "encounter-phone-first-screen.png"))
    page.locator("#h-posts").scroll_into_view_if_needed()
    page.screenshot(path=str(output_dir / "encounter-phone-posts.png"))
    ctx.close()


@pytest.mark.parametrize("lang,title", [("pt", "Painel do narrador"), ("ru", "Панель ведущего")])
def test_panel_in_other_languages(browser: Any, live_server: str, ids: dict[str, Any], output_dir: Path,
                                  lang: str, title: str) -> None:
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    browser_login(page, live_server)
    page.locator("#lang-select").select_option(lang)
    page.get_by_role("button", name="Change").click()
    page.wait_for_selector(f"html[lang={lang}]")
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    assert title in page.locator("header.top").inner_text()
    page.screenshot(path=str(output_dir / f"encounter-{lang}-desktop.png"), full_page=True)
    ctx.close()


def test_live_refresh_shows_new_posts(browser: Any, live_server: str, ids: dict[str, Any],
                                      db_url: str) -> None:
    """A post stored while the page is open appears without a reload."""
    from datetime import timedelta

    from pbp.rounds import service
    from pbp.sources.base import PostRecord
    from pbp.store.db import make_engine, session_scope
    from pbp.store.models import Round

    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    browser_login(page, live_server)
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    marker = page.evaluate("window.__marker = 42")
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        rnd = s.get(Round, ids["round"])
        body = "Cato charges the <b>gate</b>! I attack Goblin 2 [roll]1d20+6[/roll]"
        service.ingest_posts(s, rnd.encounter.thread_id, [PostRecord(
            platform_id="p-live", author="cato_p", posted_at=rnd.opens_at + timedelta(hours=3), body=body,
            text=body, fmt="bbcode")], now=rnd.opens_at + timedelta(hours=3))
    engine.dispose()
    page.wait_for_selector("text=Cato charges the <b>gate</b>!", timeout=10_000)
    # and the declaration beside it, and cato is no longer missing
    page.wait_for_function("!document.querySelector('[data-live=round]').textContent.includes('Cato')")
    assert page.evaluate("window.__marker") == marker  # same page: no reload happened
    ctx.close()


@pytest.mark.parametrize("path", ["/login", "/", "/campaigns/{campaign}", "/encounters/{encounter}",
                                  "/encounters/{encounter}/combatants/"])
def test_accessibility_axe(browser: Any, live_server: str, ids: dict[str, Any], axe_js: Path,
                           path: str) -> None:
    # our CSP refuses injected scripts (good); the test context lets axe in
    ctx = browser.new_context(viewport=DESKTOP, bypass_csp=True)
    page = ctx.new_page()
    if path != "/login":
        browser_login(page, live_server)
    page.goto(live_server + path.format(**ids))
    page.add_script_tag(path=str(axe_js))
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']}});
        return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    assert result == [], result
    ctx.close()


def test_keyboard_navigation(browser: Any, live_server: str, ids: dict[str, Any]) -> None:
    """Log in and reach an override form with the keyboard alone; focus is visible."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    page.goto(f"{live_server}/login")
    # Autofocus runs at a rendering step after `load` (HTML's "flush autofocus candidates"),
    # so a loaded page may not have focused it yet: wait for it, a bounded while.
    page.wait_for_function("document.activeElement && document.activeElement.id === 'name'", timeout=5000)
    assert page.evaluate("document.activeElement.id") == "name"  # autofocus
    page.keyboard.type("alice")
    page.keyboard.press("Tab")
    page.keyboard.type(sample.PASSWORD)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{live_server}/")
    page.goto(f"{live_server}/encounters/{ids['encounter']}")
    page.keyboard.press("Tab")  # the skip link comes first, and leads to the content
    assert page.evaluate("document.activeElement.className") == "skip"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
    seen = []
    for _ in range(60):
        page.keyboard.press("Tab")
        seen.append(page.evaluate("document.activeElement.tagName + ':' + (document.activeElement.textContent || '').trim().slice(0, 30)"))
        if seen[-1].startswith("SUMMARY:Change"):
            break
    assert seen[-1].startswith("SUMMARY:Change"), seen
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none"
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    # SCALE-5: the form is fetched when opened; Tab leads into it once it is there
    for _ in range(50):
        if page.evaluate("document.activeElement.name") == "hp":
            break
        page.wait_for_timeout(100)
    assert page.evaluate("document.activeElement.name") == "hp"
    ctx.close()
