"""Browser test of the co-narrators' accounts (STALL-3), Debian's Chromium driven by
Playwright: a co-narrator added with the accounts they post under, their accounts changed
in place, a player's account refused with the reason next to the field and the typed
value kept, in English and in Portuguese; axe finds no WCAG 2.1 AA violation. Screenshots
at 1280 px and 390 px go to test-output/panel/co-narrators/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbp.panel import sample
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry
from tests.panel.conftest import OUTPUT, PHONE, browser_login, flash_ok

pytestmark = [pytest.mark.integration]

SHOTS = OUTPUT / "co-narrators"
DESKTOP = {"width": 1280, "height": 900}
LONG_URL = "https://forum.example.org/forum/adventures-and-long-campaign-names-2/topic/co-narrator-fight-" + "x" * 40


def test_stall3_co_narrator_accounts_in_chromium(browser: Any, live_server: str, ids: dict[str, Any],
                                                db_url: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server)
    page.goto(f"{live_server}/campaigns/{ids['campaign']}")
    card = page.locator("section[aria-labelledby=h-narrators]")
    card.get_by_label("Narrator name").fill("bob")
    card.get_by_label("Their accounts on the thread's platforms").fill("bob_gm, u/bob_reddit")
    assert "Co-narrator added." in flash_ok(page, card.get_by_role("button", name="Add co-narrator"))
    field = card.get_by_label("Accounts of Bob on the thread's platforms")
    assert field.input_value() == "bob_gm, bob_reddit"
    card.scroll_into_view_if_needed()
    card.screenshot(path=str(SHOTS / "added-desktop.png"))
    # a player's account: refused next to the field, what was typed kept, nothing saved
    field.fill("bob_gm, aria_p")
    with page.expect_navigation():
        card.get_by_role("button", name="Save accounts Bob").click()
    alert = card.get_by_role("alert")
    assert "aria_p plays Aria in this campaign" in alert.inner_text()
    assert field.input_value() == "bob_gm, aria_p"
    assert field.get_attribute("aria-invalid") == "true"
    card.scroll_into_view_if_needed()
    card.screenshot(path=str(SHOTS / "refused-desktop.png"))
    # by keyboard: the field, then its button
    field.fill("mestre_bob")
    field.focus()
    page.keyboard.press("Tab")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "Accounts of Bob saved." in page.locator(".flash.ok").inner_text()
    assert card.get_by_label("Accounts of Bob on the thread's platforms").input_value() == "mestre_bob"
    # a thread's long address in the campaign's history wraps inside its card at 390 px
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        s.add(AuditEntry(actor="alice", campaign_id=ids["campaign"], action="thread.add", entity="thread",
                         entity_id="1", after={"value": {"url": LONG_URL}}))
    engine.dispose()
    page.reload()
    page.set_viewport_size(PHONE)
    history = page.locator("section[aria-labelledby=h-campaign-audit]")
    assert LONG_URL in history.inner_text()
    assert history.evaluate("e => e.scrollWidth <= e.clientWidth"), "the history overflows its card"
    card.scroll_into_view_if_needed()
    card.screenshot(path=str(SHOTS / "saved-phone.png"))
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    # the campaign's history says it in words
    assert "alice set the accounts of bob: bob_gm, bob_reddit → mestre_bob." in history.inner_text()
    history.screenshot(path=str(SHOTS / "history-phone.png"))
    assert not errors
    ctx.close()


def test_stall3_co_narrator_accounts_in_portuguese_pass_axe(browser: Any, live_server: str, ids: dict[str, Any],
                                                            axe_js: Path) -> None:
    ctx = browser.new_context(viewport=DESKTOP, locale="pt-BR", bypass_csp=True)   # our CSP refuses axe's script
    page = ctx.new_page()
    page.goto(f"{live_server}/login")   # the browser's language: the login form is in Portuguese
    page.get_by_label("Nome", exact=True).fill("alice")
    page.get_by_label("Senha").fill(sample.PASSWORD)
    page.get_by_role("button", name="Entrar").click()
    page.wait_for_url(f"{live_server}/")   # alice reads the panel in English (saved)...
    page.goto(f"{live_server}/campaigns/{ids['campaign']}")
    page.locator("#lang-select").select_option("pt")   # ...and switches it to Portuguese
    with page.expect_navigation():
        page.get_by_role("button", name="Change").click()
    card = page.locator("section[aria-labelledby=h-narrators]")
    card.get_by_label("Nome do narrador").fill("bob")
    card.get_by_label("Contas dele(a) nas plataformas do tópico").fill("aria_p")
    with page.expect_navigation():
        card.get_by_role("button", name="Adicionar co-narrador").click()
    assert "aria_p joga com Aria nesta campanha" in card.get_by_role("alert").inner_text()
    card.scroll_into_view_if_needed()
    card.screenshot(path=str(SHOTS / "refused-pt-desktop.png"))
    page.add_script_tag(path=str(axe_js))
    result = page.evaluate("""async () => {
        const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa']}});
        return r.violations.map(v => ({id: v.id, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
    }""")
    assert result == []
    ctx.close()
