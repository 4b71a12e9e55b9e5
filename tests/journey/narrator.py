"""The narrator's side of a journey, in the panel through Chromium: each step is what a
narrator clicks and types (labels, buttons), shared by the forum and the Reddit journeys;
:class:`Shots` saves the same page at desktop and phone widths."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.panel.conftest import PHONE

DESKTOP = {"width": 1280, "height": 900}


@dataclass
class Shots:
    """Screenshots of a page at 1280 px and 390 px: the narrator's own session (*state*,
    Playwright's storage state) or a visitor's (``state=None``). Every page is also checked
    for what breaks a phone: nothing wider than the screen."""

    browser: Any
    out: Path
    taken: list[str]

    def take(self, url: str, name: str, state: dict[str, Any] | None = None, wide_ok: bool = False) -> None:
        for label, viewport, mobile in (("desktop", DESKTOP, False), ("phone", PHONE, True)):
            ctx = self.browser.new_context(viewport=viewport, is_mobile=mobile, has_touch=mobile,
                                           locale="en-US", storage_state=state)
            try:
                page = ctx.new_page()
                page.goto(url)
                page.wait_for_load_state("networkidle")
                path = self.out / f"{name}-{label}.png"
                page.screenshot(path=str(path), full_page=True)
                self.taken.append(path.name)
                if not wide_ok:
                    width = page.evaluate("document.documentElement.scrollWidth")
                    assert width <= viewport["width"] + 1, f"{name} at {label}: {width} px wide"
                    # issue 11 item 10: the initiative table and the dashboard's rounds fit, no sideways scrolling
                    clipped = page.evaluate("[...document.querySelectorAll('.table-wrap:has(table.compact)')]"
                                            ".filter(e => e.scrollWidth > e.clientWidth + 1).length")
                    assert clipped == 0, f"{name} at {label}: a table scrolls sideways"
            finally:
                ctx.close()


def ok(page: Any) -> str:
    """The page's confirmation after a form (a refusal fails the step, quoting it)."""
    page.wait_for_selector(".flash.ok, .flash.error, .error, [id$=-err]")
    if page.locator(".flash.ok").count() == 0:
        raise AssertionError("the panel refused the step: " + page.locator("main").inner_text()[:2000])
    return str(page.locator(".flash.ok").first.inner_text())


def login(page: Any, base: str, name: str, password: str) -> None:
    page.goto(f"{base}/login")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base}/")


def create_campaign(page: Any, base: str, name: str, *, round_hours: str, reminders: str,
                    timezone: str = "Europe/Lisbon") -> int:
    """From the dashboard's "New campaign": forum-d20, a short round; the campaign's id."""
    page.goto(f"{base}/")
    page.get_by_role("link", name="New campaign").click()
    page.get_by_label("Name").fill(name)
    page.get_by_label("Ruleset").select_option("forum-d20")
    page.get_by_label("Time zone").fill(timezone)
    page.get_by_label("Round length (hours)").fill(round_hours)
    page.get_by_label("Reminders (hours before the deadline, comma-separated)").fill(reminders)
    page.get_by_role("button", name="Create").click()
    assert ok(page) == "Campaign created."
    m = re.search(r"/campaigns/(\d+)", page.url)
    assert m, page.url
    return int(m.group(1))


def add_source(page: Any, url: str) -> str:
    """The thread's address alone; the engine is detected. The confirmation."""
    page.get_by_label("Thread address").fill(url)
    page.get_by_role("button", name="Add source").click()
    return ok(page)


def new_encounter(page: Any, name: str, csv: Path) -> int:
    """An encounter on the campaign's source, its combatants imported from *csv*."""
    page.get_by_label("Encounter name").fill(name)
    page.get_by_role("button", name="New encounter").click()
    page.wait_for_url(re.compile(r"/encounters/\d+/combatants"))
    encounter = int(re.search(r"/encounters/(\d+)", page.url).group(1))  # type: ignore[union-attr]
    page.get_by_label("CSV or YAML file").set_input_files(str(csv))
    page.get_by_role("button", name="Import").click()
    assert re.fullmatch(r"\d+ combatants imported\.", ok(page))
    return encounter


def start_encounter(page: Any, base: str, encounter: int) -> str:
    page.goto(f"{base}/encounters/{encounter}")
    page.locator("#start-submit").click()
    return ok(page)


def override_roll(page: Any, base: str, encounter: int, round_number: int, actor_post: str,
                  total: int, reason: str) -> str:
    """Set the result of the roll in the post that contains *actor_post* (the round's
    result is out, so the panel offers a correction); the confirmation."""
    page.goto(f"{base}/encounters/{encounter}?round={round_number}")
    post = page.locator("article.post", has_text=actor_post)
    roll = post.locator("div.roll").first
    roll.locator("summary").click()
    roll.get_by_label("New result").fill(str(total))
    roll.get_by_label("Reason", exact=True).fill(reason)
    roll.get_by_role("button", name="Set result").click()
    return ok(page)


def post_correction(page: Any, reason: str) -> str:
    correction = page.locator("#correction")
    assert correction.is_visible(), page.locator("main").inner_text()[:2000]
    page.locator("#correct-reason").fill(reason)
    page.locator("#correct-submit").click()
    return ok(page)
