"""DICE-4 in the browser: the narrator ticks "anyone may check the dice" on the campaign's
settings, follows the encounter page's "Public dice check" link, and a visitor with no
login opens that address at 1280 and 390 px: the verdict in words, each round's result,
the chain's seeds (wrapped, no sideways scrolling). Then a roll of the stored copy of the
result is changed, and a Portuguese visitor's page says it does not check out, naming it. Screenshots in /tmp/shots-dice-url/
and test-output/panel/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pbp.store import queries
from pbp.store.db import make_engine, session_scope
from tests.panel.conftest import PHONE, browser_login, flash_ok
from tests.panel.test_verification import chained_fight

pytestmark = [pytest.mark.integration]

SHOTS = Path("/tmp/shots-dice-url")
LAPTOP = {"width": 1280, "height": 900}


def test_dice_4_opt_in_and_the_public_page_as_a_visitor(browser: Any, live_server: str, db_url: str,
                                                       ids: dict[str, Any], output_dir: Path,
                                                       tmp_path: Path) -> None:
    thread_file = tmp_path / "thread.yaml"
    thread_file.write_text("")
    fight = chained_fight(db_url, ids, thread_file)     # played, and its replies posted
    SHOTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    narrator = browser.new_context(viewport=LAPTOP, locale="en-US")
    page = narrator.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, live_server)
    page.goto(f"{live_server}/encounters/{fight['encounter']}")
    assert page.locator("#public-check").count() == 0               # off by default
    page.goto(f"{live_server}/campaigns/{ids['campaign']}")
    box = page.get_by_label("Anyone with an encounter's link may check its dice, logged out")
    assert not box.is_checked()
    box.check()
    flash_ok(page, page.get_by_role("button", name="Save", exact=True), "Settings saved.")
    assert page.get_by_label("Anyone with an encounter's link may check its dice, logged out").is_checked()
    page.screenshot(path=str(SHOTS / "campaign-opted-in.png"), full_page=True)
    page.goto(f"{live_server}/encounters/{fight['encounter']}")
    link = page.locator("#public-check")
    assert link.inner_text() == "Public dice check"
    address = live_server + str(link.get_attribute("href"))
    narrator.close()

    for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        visitor = browser.new_context(viewport=viewport, locale="en-US")   # no login, no cookies
        v = visitor.new_page()
        v.on("pageerror", lambda e: errors.append(str(e)))
        v.goto(address)
        assert v.url == address                                          # not sent to the login form
        assert v.locator("h1").inner_text().startswith("Dice check: Chained fight")
        verdict = v.locator("#verdict").inner_text()
        assert verdict.startswith("Checks out"), verdict
        assert "Checks out" in v.locator("#round-1").inner_text()
        assert "Not resolved yet" in v.locator("#round-2").inner_text()
        assert v.evaluate("document.documentElement.scrollWidth <= innerWidth")
        for folder in (SHOTS, output_dir):
            v.screenshot(path=str(folder / f"verify-public-{name}.png"), full_page=True)
        visitor.close()

    # the outbox's copy of round 1's result altered behind the page's back: named in words
    with session_scope(make_engine(db_url)) as s:
        reply = queries.reply_by_key(s, f"{fight['round1']}:resolution")
        first = queries.round_rolls(s, fight["round1"])[0]
        line = f"#{first.roll_index} {first.expression} = {first.total} ["
        assert line in reply.body
        reply.body = reply.body.replace(line, f"#{first.roll_index} {first.expression} = {first.total + 5} [")
    visitor = browser.new_context(viewport=PHONE, locale="pt-BR")
    v = visitor.new_page()
    v.goto(address)
    assert v.locator("#verdict").inner_text().startswith("Não confere")      # the visitor's language
    problem = v.locator("#round-1 li.error").first.inner_text()
    # the checker's problem in the visitor's language too (issue 17's i18n leftover)
    assert problem.startswith(f"rodada 1: rolagem #{first.roll_index} '{first.expression}': a resposta "
                              f"mostra {first.total + 5}"), problem
    assert v.evaluate("document.documentElement.scrollWidth <= innerWidth")
    for folder in (SHOTS, output_dir):
        v.screenshot(path=str(folder / "verify-public-tampered-phone-pt.png"), full_page=True)
    visitor.close()
    assert not errors, errors
