"""Issue 14 point 6, live: a real Misago 0.39.6 (PyPI; Django, PostgreSQL) read through its
JSON API (``format = "json"``), the bot logged in through the API's JSON login (the
``csrftoken`` cookie in the ``X-CSRFToken`` header) and replying through the API.

Posts are 5 a page in the harness (tests/harness/misago/seed.py); Misago's pages overlap
by one post (page 2 starts with post 5). A player posts with a plain client
(tests/harness/misago/helpers.py), not pbp's code. Misago refuses a member's second post
within 3 s ("You can't post message so quickly after previous one."), so every bot reply
here waits its turn first (``_bot_turn``).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from pbp.render import render_reply
from pbp.render.view import ActorSection, EventLine, ReplyView
from pbp.settings import load_settings
from pbp.sources.base import SourceError
from pbp.sources.forum import ForumSource, forget_sessions
from pbp.sources.forum_check import fetch_check
from pbp.sources.http import reset_host_intervals
from tests.harness.misago.helpers import player_posts, visible_posts

pytestmark = pytest.mark.integration

BOT = {"username": "pbpbot", "password": "botpass"}
_last_bot_post = [0.0]


@pytest.fixture(autouse=True)
def _fresh_sessions() -> None:
    forget_sessions()
    reset_host_intervals()


def settings() -> Any:
    return load_settings(env={"PBP_MIN_HOST_INTERVAL": "0", "PBP_USER_AGENT": "pbp-tests/1",
                              "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})


def new_thread(server: Any, subject: str, posts: int) -> tuple[str, str, datetime]:
    """A fresh thread through the ORM: its URL, id and the first post's time."""
    line = next(x for x in server.seed("thread", subject, str(posts)) if x.startswith("THREAD"))
    _, path, tid, _, start = line.split()
    return server.base + path, tid, datetime.fromisoformat(start)


def source(url: str, creds: dict[str, str] | None = None) -> ForumSource:
    return ForumSource(url, "misago", settings=settings(), credentials=creds or BOT)


def _bot_turn() -> None:
    """Wait out Misago's 3 s between a member's posts (the flood test makes it refuse)."""
    wait = _last_bot_post[0] + 3.5 - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    _last_bot_post[0] = time.monotonic()


def test_every_post_read_across_overlapping_pages_with_its_time(misago: Any) -> None:
    """Issue 14 point 6 (read all posts across pages): 12 posts on 3 pages of 5 that
    overlap by one (1-5, 5-9, 9-12) are 12 posts, once each, in order, with the times
    the seed gave them (post 1 at the start, post i at start + i minutes)."""
    url, tid, start = new_thread(misago, "Overlapping pages", 12)
    got = source(url).fetch(None)
    assert [p.platform_id for p in got.posts] == [str(int(got.posts[0].platform_id) + i)
                                                  for i in range(12)]
    assert [p.text for p in got.posts] == [f"Overlapping pages: post {i}" for i in range(1, 13)]
    assert [p.posted_at for p in got.posts] == [start] + [start + timedelta(minutes=i)
                                                          for i in range(2, 13)]
    assert {p.author for p in got.posts} == {"admin"}
    assert got.requests == 3 and got.cursor["page"] == 3
    first = got.posts[0]
    assert first.url == f"{misago.base}/t/overlapping-pages/{tid}/post/{first.platform_id}/"


def test_a_players_new_post_and_an_earlier_page_edit_are_picked_up(misago: Any) -> None:
    """Issue 14 points 6 and 7 on Misago: a player's post through the forum is one new post
    on the next poll; an edit on page 1 is not seen by a poll (the last page) and is seen,
    once, by the full re-read a narrator asks for."""
    url, tid, _ = new_thread(misago, "Siege of the keep", 7)
    src = source(url)
    first = src.fetch(None)
    text = 'I attack the goblin [roll]1d20+5[/roll] "Die, beast!"'
    pid = player_posts(misago.base, tid, text)
    got = src.fetch(first.cursor)
    assert [(p.platform_id, p.author, p.text, p.change) for p in got.posts] == [
        (str(pid), "player", text, "new")]
    page1 = [p.platform_id for p in first.posts][1]
    misago.seed("edit", page1, "I climb the wall instead (edited)")
    assert src.fetch(got.cursor).posts == []            # page 2 did not change
    src.reread_requested_at = time.time()
    full = src.fetch(got.cursor)
    assert [(p.platform_id, p.change, p.text) for p in full.posts] == [
        (page1, "edited", "I climb the wall instead (edited)")]
    assert src.fetch(full.cursor).posts == []


def test_json_login_puts_the_csrf_cookie_in_its_header_and_is_reused(misago: Any) -> None:
    """Issue 14 point 6 (login): the forum's page gives the ``csrftoken`` cookie, the JSON
    login sends it as ``X-CSRFToken`` and gets Misago's session; a second source of the
    same bot does not log in again."""
    url, _, _ = new_thread(misago, "Gatehouse", 1)
    src = source(url)
    src.login()
    jar = src.bot_client.session.cookies
    assert "sessionid" in jar
    assert src.cookie_headers() == {"X-CSRFToken": jar["csrftoken"]}
    before = src.bot_client.requests_made
    source(url).login()
    assert src.bot_client.requests_made == before


def test_login_refused_quotes_misagos_reason(misago: Any) -> None:
    """Issue 14 point 6 (the server's reason in every refusal): a wrong password is
    refused with Misago's own words, and nothing is posted."""
    url, tid, _ = new_thread(misago, "Locked door", 1)
    with pytest.raises(SourceError) as err:
        source(url, {"username": "pbpbot", "password": "wrong"}).reply("hello [pbp:x]", "[pbp:x]")
    assert "login refused for bot account 'pbpbot' (HTTP 400): «Login or password is incorrect.»" \
        in str(err.value)
    assert not err.value.retryable and "/api/auth/" in str(err.value)
    assert len(visible_posts(misago.base, tid)) == 1


def test_a_guests_reply_is_refused_with_the_reason_quoted(misago: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14 point 6: a bot whose login never happens posts as a guest; Misago's 403
    reason ("This action is not available to guests.") is in the error, not only the code."""
    url, tid, _ = new_thread(misago, "Guest at the door", 1)
    src = source(url)
    monkeypatch.setattr(src, "login", lambda **kw: None)
    with pytest.raises(SourceError) as err:
        src.reply("hello [pbp:g]", "[pbp:g]")
    assert "access refused (HTTP 403): «This action is not available to guests.»" in str(err.value)
    assert not err.value.retryable
    assert len(visible_posts(misago.base, tid)) == 1


def _markdown_reply(marker: str) -> str:
    aria = ActorSection(key="aria", name="Aria", player="player", initiative=12, hp=5, max_hp=9,
                        speech=["Die, *fool*!"],
                        events=[EventLine("attack.hit", {"total": 19, "defense": 15}, "FD-3",
                                          ("1d20 (14) + 5 = 19",), actor="aria", target="gob")])
    gob = ActorSection(key="gob", name="Goblin", hp=0, max_hp=7, down=True)
    return render_reply(ReplyView(kind="resolution", platform="markdown", language="en",
                                  timezone="UTC", encounter="Keep", round_number=1,
                                  actors=[aria, gob], seed="s", seed_commitment="c",
                                  marker=marker))


def test_a_markdown_reply_is_rendered_by_misago_and_read_back(misago: Any) -> None:
    """Issue 14 points 5 and 6: the preset says Markdown, pbp's renderer writes Markdown,
    the API reply after the JSON login is rendered by Misago as markup (a quote is a
    blockquote, no literal ``**`` or ``[b]``), read back as the bot's post, with the
    times of the earlier posts unchanged now that the bot has logged in and replied."""
    url, tid, start = new_thread(misago, "Round one", 3)
    src = source(url)
    assert src.preset.markup == "markdown"
    first = src.fetch(None)
    marker = "pbp-reply:1:resolution"
    text = _markdown_reply(marker)
    _bot_turn()
    pid = src.reply(text, marker)
    shown = visible_posts(misago.base, tid)[pid]
    assert shown["poster_name"] == "pbpbot"
    html = shown["content"]
    assert "<blockquote>" in html and "Die, *fool*!" in html
    assert "[b]" not in html and "**" not in html and "<strong>Aria</strong>" in html
    assert "<li>Aria hits Goblin: 19 against 15." in html
    after = src.fetch(first.cursor)
    assert [(p.platform_id, p.by_bot) for p in after.posts] == [(pid, True)]
    assert src.find_reply(marker) == pid
    src.reread_requested_at = time.time()
    again = src.fetch(None)
    assert [p.posted_at for p in again.posts[:3]] == [start, start + timedelta(minutes=2),
                                                      start + timedelta(minutes=3)]
    assert abs(again.posts[3].posted_at - datetime.now(UTC)) < timedelta(minutes=2)


def test_an_expired_session_is_logged_in_again_and_the_reply_posted_once(misago: Any) -> None:
    """Issue 14 point 6: the session cookie gone (expired), the API answers 403 "not
    available to guests"; pbp logs in again and posts once."""
    url, tid, _ = new_thread(misago, "Long night", 1)
    src = source(url)
    src.login()
    src.bot_client.session.cookies.clear(domain="127.0.0.1", path="/", name="sessionid")
    _bot_turn()
    pid = src.reply("Still here [pbp:s]", "[pbp:s]")
    posts = visible_posts(misago.base, tid)
    assert list(posts)[-1] == pid and len(posts) == 2


def test_flood_control_is_retryable_and_posts_nothing(misago: Any) -> None:
    """Issue 14 point 6 (flood control retryable): a second reply within 3 s is refused
    by Misago (HTTP 403, "so quickly"); pbp reports it as retryable with the preset's wait,
    not as "access refused", and only the first reply is on the thread."""
    url, tid, _ = new_thread(misago, "Hasty bard", 1)
    src = source(url)
    _bot_turn()
    src.reply("First [pbp:f1]", "[pbp:f1]")
    assert src.bot_client.requests_made == 3     # the index (csrftoken), the login, the reply
    with pytest.raises(SourceError) as err:
        src.reply("Second [pbp:f2]", "[pbp:f2]")
    _last_bot_post[0] = time.monotonic()
    assert src.bot_client.requests_made == 4     # a flood refusal is no expired session
    assert err.value.retryable and err.value.retry_after == 5
    assert "flood control" in str(err.value) and "HTTP 403" in str(err.value)
    assert [p["poster_name"] for p in visible_posts(misago.base, tid).values()] == ["admin", "pbpbot"]


def test_an_idle_poll_costs_one_request_and_no_parse(misago: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 14 point 6 (an idle poll's requests and bytes): Misago sends no validators, so
    an idle poll is one GET of the last page, hashed (the posters' volatile "last seen"
    left out), not parsed — even after the thread's posters were seen online again."""
    url, tid, _ = new_thread(misago, "Quiet corridor", 6)
    player_posts(misago.base, tid, "I wait by the door.")
    _, elsewhere, _ = new_thread(misago, "Elsewhere", 1)
    src = source(url)
    first = src.fetch(None)
    assert first.requests == 2 and len(first.posts) == 7
    time.sleep(1)
    player_posts(misago.base, elsewhere, "Meanwhile...")  # the player's "last seen" moves
    monkeypatch.setattr(src, "_parse", lambda *a: pytest.fail("an idle thread must not be parsed"))
    idle = src.fetch(first.cursor)
    assert idle.posts == [] and idle.not_modified and idle.requests == 1
    assert 2_000 < idle.bytes < 40_000
    print(f"misago idle poll: {idle.requests} request, {idle.bytes} bytes")


def test_preset_check_reads_misagos_api_page(misago: Any) -> None:
    """Issue 14 points 9 and 10: ``pbp preset check`` on a Misago thread reads the API
    page with the shipped preset (ids, authors, times, no problems, the page count), and
    ``--draft`` proposes no volatile pattern beyond the preset's own (none changed)."""
    url, _, start = new_thread(misago, "Checked thread", 7)
    check, proposals = fetch_check(url, "misago", settings(), draft=True)
    assert check.problems == [] and check.last_page == 2
    assert [(p.author, p.posted_at) for p in check.posts[:2]] == [
        ("admin", start), ("admin", start + timedelta(minutes=2))]
    assert proposals == []
    assert "problems: none" in check.lines()
