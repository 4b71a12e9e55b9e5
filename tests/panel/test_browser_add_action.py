"""Issue 13 item 3 in the browser: the narrator adds an action to a post read as "no
action", through the form on that post, in Chromium; the post, the preview and the audit
log show it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.panel.conftest import browser_login, flash_ok
from tests.panel.test_add_action import _no_action_post

pytestmark = [pytest.mark.integration]


def test_add_an_action_to_a_no_action_post_in_the_browser(browser: Any, live_server: str,
                                                          ids: dict[str, Any], db_url: str) -> None:
    """Issue 13 item 3: open "Add an action" on Cato's post, pick attack and Goblin 1, give
    a reason; the post lists the attack, the preview says the narrator read it so."""
    did = _no_action_post(db_url, ids)
    ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, locale="en-US")
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        browser_login(page, live_server)
        page.goto(f"{live_server}/encounters/{ids['encounter']}")
        post = page.locator("article.post", has_text="Cato thinks it over")
        assert post.locator("li.muted", has_text="no action").count() == 1
        form = post.locator("details.add-action")
        form.locator("summary").click()
        form.get_by_label("Action").select_option("attack")
        form.get_by_label("Target").select_option(label="Goblin 1")
        form.get_by_label("Reason").fill("he looses an arrow at Goblin 1")
        form.get_by_label("Public: quote it in the thread").check()
        flash_ok(page, form.get_by_role("button", name="Add"), "Change recorded")
        post = page.locator("article.post", has_text="Cato thinks it over")
        assert post.locator("ul.actions li", has_text="attack").first.inner_text().startswith("attack → goblin-1")
        assert post.locator("li.muted", has_text="no action").count() == 0
        preview = page.locator("#preview-text").inner_text()
        assert "Cato: the narrator read the post as attack → Goblin 1: he looses an arrow at Goblin 1" in preview
        assert ("alice added an action to the post of Cato: attack → goblin-1 in round 2. "
                "Reason: he looses an arrow at Goblin 1") in page.locator("#audit").inner_text()
        # SCALE-5: the form is fetched when opened; the post still offers it, for this declaration
        add = page.locator("article.post", has_text="Cato thinks it over").locator("details.add-action a")
        assert add.get_attribute("href").endswith(f"/form/add?id={did}")
        assert not errors, errors
    finally:
        ctx.close()
