"""The MyBB 1.8 and SMF 2.1 presets against pages their current versions served live.

The oracle is each capture's ``truth.json`` (read from the engine's database, not from
pbp): every post's id, author and time, and its body as stored (BBCode). Times on the
pages have minute precision, so the expected time is the database time cut to the
minute. The pages' own capture times (``headers.json``) are "now" for the relative dates.

Features covered (issue 14): selector lists (one key, several shapes of the same date),
relative dates ("5 minutes ago", "Today at", "Yesterday, 04:45 AM" with the joined-text
space before the comma), presets for current versions, the reply's post id where the
engine prints one.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from pbp.sources.forum_page import parse_html_page, soup_of
from pbp.sources.forum_preset import ForumPreset, load_preset
from pbp.sources.http import decode_html
from tests.conftest import shared_path

# capture folder -> (preset, the board's zone as its README states it)
ENGINES = {
    "mybb18": ("mybb", "Etc/GMT+3"),          # "GMT -3:00", no DST (POSIX sign inverted)
    "smf21": ("smf21", "Europe/Moscow"),
}
TOPIC_PAGES = {
    "mybb18": [f"topic_p{n}_{age}.html" for age in ("fresh", "aged") for n in range(1, 5)]
    + ["bot_topic_last.html"],
    "smf21": [f"topic_p{n}_{age}.html" for age in ("fresh", "aged") for n in range(1, 5)]
    + ["topic_p2_aged_todaymod2.html", "bot_topic_last.html"],
}
#: every saved page of the two captures, and the test that reads it (the coverage test in
#: test_forum_presets.py checks that no page is left unread)
COVERED = {f"{engine}/{page}" for engine, pages in TOPIC_PAGES.items() for page in pages} | {
    f"{engine}/{page}" for engine in ENGINES
    for page in ("login.html", "reply_form.html", "forum_list.html", "truth.json", "headers.json")
}


def _load(engine: str) -> tuple[ForumPreset, dict[str, Any], dict[str, Any]]:
    folder = shared_path("fixtures", "forums", engine)
    name, zone = ENGINES[engine]
    preset = load_preset(name, {"dates": {"timezone": zone}})
    truth = json.loads((folder / "truth.json").read_text(encoding="utf-8"))
    headers = json.loads((folder / "headers.json").read_text(encoding="utf-8"))
    return preset, truth, headers


def _page(engine: str, name: str) -> str:
    return decode_html(shared_path("fixtures", "forums", engine, name).read_bytes(), None)


def _minute(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).replace(second=0).astimezone(UTC)


def _plain(raw: str) -> str:
    """A stored BBCode body as a reader sees it: quotes left out (pbp keeps them apart),
    tags dropped, white space folded. ``[roll]`` is no tag on either engine: kept."""
    raw = re.sub(r"\[quote[^\]]*\].*?\[/quote\]", " ", raw, flags=re.S | re.I)
    raw = re.sub(r"\[/?(?:b|i|u|s)\]", "", raw, flags=re.I)
    return " ".join(raw.split())


def _page_no(engine: str, name: str, url: str) -> int:
    if engine == "smf21":
        return int(re.search(r"topic=\d+\.(\d+)", url).group(1)) // 5 + 1  # type: ignore[union-attr]
    m = re.search(r"[?&]page=(\d+)", url)
    return int(m.group(1)) if m else 1


@pytest.mark.parametrize("engine,name", [(e, p) for e, pages in TOPIC_PAGES.items() for p in pages])
def test_every_post_reads_as_the_database_holds_it(engine: str, name: str) -> None:
    preset, truth, headers = _load(engine)
    meta = headers[name]
    now = datetime.fromisoformat(meta["captured_at_utc"].replace("Z", "+00:00"))
    page_no = _page_no(engine, name, meta["url"])
    page = parse_html_page(_page(engine, name), preset, meta["url"], page_no, now=now)

    expected = [p for p in truth["posts"] if p["page"] == page_no]
    fresh = name.endswith("_fresh.html")
    assert [r.platform_id for r in page.posts] == [str(p["id"]) for p in expected]
    assert [r.author for r in page.posts] == [p["author"] for p in expected]
    assert [r.posted_at for r in page.posts] == [
        _minute(p["posted_at_utc_fresh"] if fresh else p["posted_at_utc"]) for p in expected]
    assert [" ".join(r.text.split()) for r in page.posts] == [_plain(p["raw"]) for p in expected]
    assert page.last_page == 4


def test_the_aged_pages_hold_every_shape_of_date() -> None:
    """The MyBB pages read above print dates in four shapes (a plain date, "Yesterday, 04:45
    AM", "N hours ago", "N minutes ago"): the selector list is what reads them all."""
    shapes = set()
    for n in range(1, 5):
        for s in soup_of(_page("mybb18", f"topic_p{n}_aged.html")).select("span.post_date"):
            text = " ".join(s.get_text(" ", strip=True).split())
            shapes.add("yesterday" if "Yesterday" in text else "hours" if "hours ago" in text
                       else "minutes" if "minutes ago" in text else "date")
    assert shapes == {"date", "yesterday", "hours", "minutes"}


def test_a_quote_is_kept_apart_from_the_post() -> None:
    """MyBB pid 6 quotes pid 2: the quoted attack is not part of the quoting post's text."""
    preset, _, headers = _load("mybb18")
    page = parse_html_page(_page("mybb18", "topic_p2_aged.html"), preset,
                           headers["topic_p2_aged.html"]["url"], 2)
    post = next(p for p in page.posts if p.platform_id == "6")
    assert "1d20+5" not in post.text
    assert "1d20+5" in post.extra["quotes"][0]["text"]
    assert post.extra["quotes"][0]["author"] == "player"     # quote_author_pattern


# the post quoting another, per capture (truth.json: MyBB pid 6 and SMF msg 7 quote the
# attack of post 2 / msg 3), on the second page of both captures
QUOTING = {"mybb18": "6", "smf21": "7"}


def _two_renderings(engine: str) -> list[tuple[str, str]]:
    """One unchanged page 2, with its quote header printed two ways. MyBB: the fresh and
    the aged capture ("6 minutes ago" / the date). SMF prints the quote's own date, "Today
    at 10:47 AM" in every capture; the day after, the same header reads as the board's
    time format (`%b %d, %Y, %I:%M %p`, README), so that is the second rendering."""
    if engine == "mybb18":
        return [(n, _page(engine, n)) for n in ("topic_p2_fresh.html", "topic_p2_aged.html")]
    today = _page(engine, "topic_p2_aged.html")
    tomorrow = today.replace("Quote from: player on <strong>Today</strong> at 10:47 AM",
                             "Quote from: player on Dec 01, 2026, 10:47 AM")
    assert tomorrow != today
    return [("topic_p2_aged.html", today), ("topic_p2_aged.html", tomorrow)]


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_quote_headers_dates_stay_out_of_the_revision(engine: str) -> None:
    """Issue 14 point 8: a quote's header prints the quoted post's time ("6 minutes ago",
    "Today at 10:47 AM"); its rendering changes with the clock, not with an edit, so it
    gives no "edited". The author is read out of the header (quote_author_pattern); an
    edit of the post's own words still changes the revision."""
    preset, _, headers = _load(engine)
    cites, revisions, authors = set(), set(), set()

    def quoting(name: str, html: str) -> Any:
        return next(p for p in parse_html_page(html, preset, headers[name]["url"], 2).posts
                    if p.platform_id == QUOTING[engine])

    for name, html in _two_renderings(engine):
        cites.add(" ".join(c.get_text(" ", strip=True) for c in soup_of(html).select("cite")))
        post = quoting(name, html)
        revisions.add(post.revision)
        authors.add(post.extra["quotes"][0]["author"])
    assert len(cites) == 2, "the two renderings should print the quote header differently"
    assert len(revisions) == 1
    assert authors == {"player"}
    name, html = _two_renderings(engine)[0]
    edited = quoting(name, html.replace("Repito o que disse", "Repito o que eu disse"))
    assert edited.revision not in revisions


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_the_login_and_reply_forms_are_found(engine: str) -> None:
    preset, _, _ = _load(engine)
    assert preset.login is not None and preset.reply is not None
    login = soup_of(_page(engine, "login.html")).select_one(preset.login.form)
    assert login is not None
    names = {i.get("name") for i in login.select("input")}
    assert {preset.login.username_field, preset.login.password_field} <= names
    form = soup_of(_page(engine, "reply_form.html")).select_one(preset.reply.form)
    assert form is not None
    assert form.select_one(f"textarea[name={preset.reply.text_field}]") is not None
    submit_name, _, submit_value = preset.reply.submit.partition("=")
    assert form.select_one(f"input[type=submit][name={submit_name}][value='{submit_value}']")


def test_mybb_reply_answer_names_the_new_post() -> None:
    """MyBB answers a reply with 200 and the new pid only in a meta refresh."""
    preset, truth, _ = _load("mybb18")
    assert preset.reply is not None and preset.reply.post_id_pattern is not None
    answer = shared_path("fixtures", "forums", "mybb18", "reply_response.txt").read_text(
        encoding="utf-8", errors="replace")
    m = preset.reply.post_id_pattern.search(answer)
    assert m and m.group(1) == str(truth["bot_reply"]["id"])


def test_smf21_reply_answer_names_no_post() -> None:
    """SMF 2.1 redirects to topic=T.new#new: no message id, so pbp must confirm the reply
    by its marker (the pattern must not take the topic's own numbers for one)."""
    preset, _, _ = _load("smf21")
    assert preset.reply is not None and preset.reply.post_id_pattern is not None
    answer = shared_path("fixtures", "forums", "smf21", "reply_response.txt").read_text(
        encoding="utf-8", errors="replace")
    head = answer.split("\r\n\r\n", 1)[0]
    assert preset.reply.post_id_pattern.search(head) is None


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_the_forum_list_links_the_thread(engine: str) -> None:
    """The board's topic list links the seeded thread, as the thread pattern reads it."""
    preset, truth, headers = _load(engine)
    soup = soup_of(_page(engine, "forum_list.html"))
    base = headers["forum_list.html"]["url"].rsplit("/", 1)[0] + "/"
    tids = set()
    for a in soup.select("a[href]"):
        href = str(a["href"])
        m = preset.thread.pattern.match(href if href.startswith("http") else base + href)
        if m:
            tids.add(m.group("tid"))
    assert str(truth["topic_id"]) in tids
