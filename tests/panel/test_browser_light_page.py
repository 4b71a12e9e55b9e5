"""SCALE-5 in a real browser (Debian's Chromium through Playwright): the light encounter page
with 50 combatants and 200 posts.

The first paint holds no override form (each is fetched when its <details> opens); an
earlier round opens in place; one override form is opened, filled and applied; then a
change made elsewhere (another roll set by the service layer, as a second narrator's tab
would) reaches the open page through the live refresh as that one post's fragment, the
other 199 posts' elements untouched. Without JavaScript the same form is a page of its own.
Screenshots at 1280 px and 390 px go to test-output/panel/light-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from pbp.panel import create_app, sample
from pbp.panel.overrides import set_roll
from pbp.settings import load_settings
from pbp.store.db import make_engine, session_scope, upgrade
from pbp.store.models import Post, RollRecord
from tests.panel.conftest import PHONE, browser_login, flash_ok
from tests.panel.served import served

pytestmark = [pytest.mark.integration]

DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The sample with 50 combatants and 200 more posts in the open round, served by
    werkzeug in a thread (refresh every 500 ms)."""
    url = f"sqlite:///{tmp_path_factory.mktemp('light') / 'pbp.sqlite'}"
    upgrade(url)
    engine = make_engine(url)
    with session_scope(engine) as s:
        ids = sample.seed(s, combatants=50, posts=200)
        # two posts of the open round, each with one roll: one set from the page, one elsewhere
        rows = s.execute(select(Post.id, RollRecord.id).join(RollRecord, RollRecord.post_id == Post.id)
                         .where(Post.platform_id.in_(["p1000", "p1001"])).order_by(Post.platform_id)).all()
        ids["posts"] = [r[0] for r in rows]
        ids["rolls"] = [r[1] for r in rows]
    engine.dispose()
    app = create_app({"SECRET_KEY": "browser-secret", "DATABASE_URL": url, "REFRESH_INTERVAL_MS": 500},
                     settings=load_settings().with_overrides(allow_private_hosts="127.0.0.1"))
    with served(app) as base:
        yield {"base": base, "url": url, **ids}


def test_scale5_light_page_forms_on_demand_and_one_fragment_refresh(browser: Any, big: dict[str, Any],
                                                                     output_dir: Path) -> None:
    """SCALE-5: the page at 1280 and 390 px; an earlier round and an override form opened in
    place; the override applied; the live refresh sends only the changed post's fragment."""
    base, eid = big["base"], big["encounter"]
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    browser_login(page, base)
    page.goto(f"{base}/encounters/{eid}")
    assert page.locator("#posts-list article.post").count() == 202      # 2 of the sample + 200
    # the first paint holds no per-post or per-combatant override form, only their <details>
    assert page.locator("#posts-list form").count() == 0
    assert page.locator("table.combatants form").count() == 0
    assert page.locator("#posts-list details[data-fetch]").count() >= 400   # per action, per roll, per post
    page.screenshot(path=str(output_dir / "light-encounter-desktop.png"))
    phone = browser.new_context(viewport=PHONE, locale="en-US")
    small = phone.new_page()
    browser_login(small, base)
    small.goto(f"{base}/encounters/{eid}")
    assert small.evaluate("document.documentElement.scrollWidth") <= PHONE["width"] + 1
    small.screenshot(path=str(output_dir / "light-encounter-phone.png"))
    small.locator(f"#roll-{big['rolls'][0]}").scroll_into_view_if_needed()
    small.locator(f"#roll-{big['rolls'][0]} summary").click()
    small.locator(f"#roll-total-{big['rolls'][0]}").wait_for()
    small.screenshot(path=str(output_dir / "light-override-form-phone.png"))
    phone.close()

    # an earlier round, opened in place (its posts fetched, the page not left)
    earlier = page.locator("#earlier-1")
    earlier.scroll_into_view_if_needed()
    earlier.locator("summary").click()
    earlier.locator("article.post").first.wait_for()
    assert earlier.locator("article.post").count() == 3                   # round 1's three posts
    assert page.url == f"{base}/encounters/{eid}"
    earlier.screenshot(path=str(output_dir / "light-earlier-round-desktop.png"))

    # one override form: fetched when opened, filled, applied
    roll = page.locator(f"#roll-{big['rolls'][0]}")
    roll.scroll_into_view_if_needed()
    roll.locator("summary").click()
    roll.get_by_label("New result").fill("27")
    roll.get_by_label("Reason", exact=True).fill("the player's bonus was +10, agreed in OOC")
    page.screenshot(path=str(output_dir / "light-override-form-desktop.png"))
    flash_ok(page, roll.get_by_role("button", name="Set result"), "Change recorded")
    assert page.locator(f"#roll-{big['rolls'][0]}").get_by_text("set to 27 by the narrator").is_visible()
    assert "Reason: the player's bonus was +10, agreed in OOC" in page.locator("#audit").inner_text()

    # a change made elsewhere: the open page receives that one post's fragment, no other post's
    answers: list[dict[str, Any]] = []
    page.on("response", lambda r: answers.append(r.json()) if "/live" in r.url and r.status == 200 else None)
    page.evaluate("document.querySelectorAll('#posts-list article.post').forEach(a => { a._kept = true; })")
    engine = make_engine(big["url"])
    with session_scope(engine) as s:
        set_roll(s, big["rolls"][1], 31, "set from another tab", big["alice"])
    engine.dispose()
    other = page.locator(f"#roll-{big['rolls'][1]}")
    other.get_by_text("set to 31 by the narrator").wait_for(timeout=15000)
    changed = [a for a in answers if a.get("changed")]
    assert changed, answers
    sent = set(changed[-1]["fragments"])
    assert {k for k in sent if k.startswith("post-")} == {f"post-{big['posts'][1]}"}, sent
    assert "combatants" not in sent and "posts" not in sent               # unchanged: not sent
    kept = page.evaluate("[...document.querySelectorAll('#posts-list article.post')].filter(a => a._kept).length")
    assert kept == 201                                                    # only the one post replaced
    assert page.evaluate(f"document.getElementById('post-{big['posts'][1]}')._kept") is None
    other.scroll_into_view_if_needed()
    page.screenshot(path=str(output_dir / "light-live-refresh-desktop.png"))
    assert not errors, errors
    ctx.close()


def test_scale5_override_form_without_javascript(browser: Any, big: dict[str, Any]) -> None:
    """SCALE-5: without script the <details> holds a plain link to the form as a page; the
    form posts (its masked CSRF token accepted) and leads back to the encounter."""
    base, eid = big["base"], big["encounter"]
    ctx = browser.new_context(viewport=DESKTOP, locale="en-US", java_script_enabled=False)
    page = ctx.new_page()
    browser_login(page, base)
    page.goto(f"{base}/encounters/{eid}")
    roll = page.locator(f"#roll-{big['rolls'][0]}")
    roll.locator("summary").click()
    roll.get_by_role("link", name="Open the form").click()
    page.wait_for_url(f"**/form/roll?id={big['rolls'][0]}")
    assert page.locator("#main input[name=csrf_token]").get_attribute("value").startswith("m.")   # masked
    page.get_by_label("New result").fill("19")
    page.get_by_label("Reason", exact=True).fill("no script, same form")
    flash_ok(page, page.get_by_role("button", name="Set result"), "Change recorded")
    assert page.url.startswith(f"{base}/encounters/{eid}")
    assert page.locator(f"#roll-{big['rolls'][0]}").get_by_text("set to 19 by the narrator").is_visible()
    ctx.close()
