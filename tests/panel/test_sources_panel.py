"""Sources in the panel (issue 11 item 1): a thread added by its address alone, the engine
detected from every preset's pattern, asked when several fit, listed when none; edit,
pause and remove; every refusal in a narrator's words (never a regex or an exception)."""

from __future__ import annotations

import html
import re
import tomllib
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import func, select

from pbp.errors import ConfigError
from pbp.jobs.resources import error_note
from pbp.sources.forum_check import detect_presets
from pbp.sources.forum_preset import (
    PRESET_DIR,
    available_presets,
    load_preset,
    preset_from_dict,
)
from pbp.sources.outbound import PrivateAddressError
from pbp.store.db import make_engine, session_scope
from pbp.store.models import AuditEntry, Encounter, Post, Thread

MACHINA = "http://127.0.0.1:8000/forum/adventures-2/topic/the-ambush-7/"
PHPBB = "https://forum.example.org/phpBB3/viewtopic.php?f=2&t=33"
REDDIT = "https://www.reddit.com/r/pbp/comments/abc123/the_fight/"
#: what a narrator must never read: a regex, an exception's name, a traceback
LEAKS = re.compile(r"\(\?P<|\^\(|[A-Z][a-z]+(Error|Exception)\b|Traceback")


def _threads(db_url: str, campaign: int) -> list[tuple[str, str, dict[str, Any], bool]]:
    with session_scope(make_engine(db_url)) as s:
        return [(t.kind, t.url, dict(t.options or {}), t.active) for t in
                s.scalars(select(Thread).where(Thread.campaign_id == campaign).order_by(Thread.id))]


def _add(alice: Any, ids: dict[str, Any], url: str, preset: str = "", title: str = "") -> Any:
    return alice.post(f"/campaigns/{ids['campaign']}/threads",
                      {"thread-url": url, "thread-preset": preset, "thread-title": title})


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


# --- detection (pure) ----------------------------------------------------------------------

def test_detect_presets_by_pattern() -> None:
    assert detect_presets(MACHINA) == ["machina"]
    assert detect_presets(PHPBB) == ["phpbb2", "phpbb3"]     # the same address shape
    assert detect_presets("https://example.org/t12-the-fight") == ["forumotion"]
    assert detect_presets("https://example.org/gopher/hole") == []
    assert detect_presets(REDDIT) == []


@pytest.mark.parametrize("name", available_presets())
def test_every_preset_example_is_an_address_of_its_own_shape(name: str) -> None:
    preset = load_preset(name)
    assert preset.example and not LEAKS.search(preset.example)
    assert name in detect_presets(preset.example)


# --- adding --------------------------------------------------------------------------------

def test_machina_address_alone_is_detected(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    r = _add(alice, ids, MACHINA, title="The ambush")
    assert r.status_code == 302
    assert "Source added: django-machina 1.3." in alice.get(r.headers["Location"]).text
    assert ("forum", MACHINA, {"preset": "machina"}, True) in _threads(db_url, ids["campaign"])


def test_phpbb_address_asks_which_engine_then_takes_the_choice(alice: Any, ids: dict[str, Any],
                                                                db_url: str) -> None:
    before = _threads(db_url, ids["campaign"])
    r = _add(alice, ids, PHPBB)
    assert r.status_code == 200
    assert "fits several forum engines" in r.text
    assert 'value="phpbb2"' in r.text and 'value="phpbb3"' in r.text and 'type="radio"' in r.text
    assert _threads(db_url, ids["campaign"]) == before            # nothing saved yet
    r = _add(alice, ids, PHPBB, preset="phpbb3")
    assert r.status_code == 302
    assert ("forum", PHPBB, {"preset": "phpbb3"}, True) in _threads(db_url, ids["campaign"])


def test_unknown_address_lists_every_engine_with_its_address_shape(alice: Any, ids: dict[str, Any],
                                                                  db_url: str) -> None:
    before = _threads(db_url, ids["campaign"])
    r = _add(alice, ids, "https://forum.example.org/board/thread/the-ambush")
    assert r.status_code == 400
    text = _text(r.text)
    assert "does not recognise this address" in text
    for name in available_presets():
        p = load_preset(name)
        assert p.engine in text and p.example in text
    assert not LEAKS.search(text)
    assert _threads(db_url, ids["campaign"]) == before


def test_wrong_engine_chosen_says_what_the_address_should_look_like(alice: Any, ids: dict[str, Any],
                                                                   db_url: str) -> None:
    before = _threads(db_url, ids["campaign"])
    r = _add(alice, ids, MACHINA, preset="phpbb3")
    assert r.status_code == 400
    text = _text(r.text)
    assert "This is not a phpBB 3.0 thread address." in text
    assert "https://forum.example.org/viewtopic.php?f=2&t=123" in text
    assert not LEAKS.search(text)
    assert _threads(db_url, ids["campaign"]) == before


def test_reddit_submission_is_recognised(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    assert _add(alice, ids, REDDIT).status_code == 302
    local = "http://127.0.0.1:8765/r/pbp/comments/k3y9/a_fight/"       # the local Reddit server
    assert _add(alice, ids, local).status_code == 302
    rows = _threads(db_url, ids["campaign"])
    assert ("reddit", REDDIT, {}, True) in rows and ("reddit", local, {}, True) in rows
    r = _add(alice, ids, "https://www.reddit.com/r/pbp/")
    assert r.status_code == 400 and "a submission&#39;s address contains /comments/" in r.text


@pytest.mark.parametrize("url,preset", [
    ("javascript:alert(1)", ""), ("<script>alert(1)</script>", ""), ("http://", ""),
    ("ftp://forum.example.org/viewtopic.php?t=1", ""), ("http://x.org/viewtopic.php?t=1\x00", ""),
    ("http://x.org/view topic.php?t=1", ""), ("https://x.org/" + "a" * 3000, ""), ("", ""),
    (MACHINA, "../../etc/passwd"), (MACHINA, "<b>machina</b>"), ("   ", "phpbb3"),
])
def test_hostile_addresses_are_refused_in_words(alice: Any, ids: dict[str, Any], db_url: str,
                                                url: str, preset: str) -> None:
    before = _threads(db_url, ids["campaign"])
    r = _add(alice, ids, url, preset=preset)
    assert r.status_code == 400
    assert "<script>alert" not in r.text and "<b>machina</b>" not in r.text
    assert re.search(r'class="error"[^>]*>[^<]{20,}', r.text)      # a sentence under the field
    assert not LEAKS.search(_text(r.text))
    assert _threads(db_url, ids["campaign"]) == before


def test_add_needs_csrf_and_own_campaign(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    before = _threads(db_url, ids["campaign"])
    assert alice.post(f"/campaigns/{ids['campaign']}/threads", {"thread-url": MACHINA}, csrf=False).status_code == 400
    assert _add(alice, {"campaign": ids["other_campaign"]}, MACHINA).status_code == 404
    assert _threads(db_url, ids["campaign"]) == before


def test_a_source_read_with_the_wrong_engine_is_explained(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """The issue's phpBB thread read as machina: the page says so in words, the poll's raw
    ConfigError and its regex are not shown."""
    with session_scope(make_engine(db_url)) as s:
        t = s.get(Thread, ids["thread"])
        t.last_error = ("2026-12-01 09:00:00Z ConfigError: http://127.0.0.1:9/viewtopic.php?t=1: not a "
                        "django-machina 1.3 thread URL (expected ^(?P<topic>(?P<root>https?://[^/?#]+)"
                        "[^?#]*?/topic/[^/?#]+-(?P<tid>\\d+)/))")
    dashboard = _text(alice.get("/").text)
    assert "choose its engine" in dashboard and not LEAKS.search(dashboard)
    assert "not a django-machina 1.3 thread URL" not in dashboard   # said by the badge instead
    for page in (f"/campaigns/{ids['campaign']}", f"/sources/{ids['thread']}"):
        text = _text(alice.get(page).text)
        assert ("No engine was chosen for this source, so pbp assumed django-machina 1.3, and this is not "
                "a django-machina 1.3 thread address.") in text, page
        assert "The address fits phpBB 2.0 / phpBB 3.0: edit the source to choose." in text
        assert not LEAKS.search(text), page


# --- edit ----------------------------------------------------------------------------------

def test_edit_engine_and_address(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/sources/{ids['thread']}"
    with session_scope(make_engine(db_url)) as s:
        s.get(Thread, ids["thread"]).cursor = {"v": 1, "page": 3}
    assert alice.get(url).status_code == 200
    r = alice.post(url, {"thread-url": "http://127.0.0.1:9/viewtopic.php?t=1", "thread-preset": "phpbb3",
                         "thread-title": "Into the keep"})
    assert r.status_code == 302
    with session_scope(make_engine(db_url)) as s:
        t = s.get(Thread, ids["thread"])
        assert (t.options["preset"], t.cursor, t.title) == ("phpbb3", None, "Into the keep")
        actions = list(s.scalars(select(AuditEntry.action).where(AuditEntry.entity == "thread")))
    assert actions == ["thread.edit"]
    assert "This is not a" not in _text(alice.get(f"/campaigns/{ids['campaign']}").text)


@pytest.mark.parametrize("data", [
    {"thread-url": "javascript:alert(1)"}, {"thread-url": MACHINA, "thread-preset": "phpbb3"},
    {"thread-url": REDDIT}, {"thread-url": "http://127.0.0.1:9/viewtopic.php?t=1", "thread-preset": "nope"},
    {"thread-url": "http://127.0.0.1:9/viewtopic.php?t=1", "thread-title": "x" * 301},
])
def test_edit_refuses_nonsense_and_changes_nothing(alice: Any, ids: dict[str, Any], db_url: str,
                                                   data: dict[str, str]) -> None:
    before = _threads(db_url, ids["campaign"])
    r = alice.post(f"/sources/{ids['thread']}", data)
    assert r.status_code == 400
    assert re.search(r'class="error"[^>]*>[^<]{15,}', r.text)
    assert not LEAKS.search(_text(r.text))
    assert _threads(db_url, ids["campaign"]) == before


def test_other_narrators_source_is_not_found(alice: Any, db_url: str, ids: dict[str, Any]) -> None:
    with session_scope(make_engine(db_url)) as s:
        other = s.scalars(select(Thread.id).where(Thread.campaign_id == ids["other_campaign"])).one()
    assert alice.get(f"/sources/{other}").status_code == 404
    assert alice.post(f"/sources/{other}/pause", {"action": "pause"}).status_code == 404
    assert alice.post(f"/sources/{other}/remove").status_code == 404
    assert alice.get("/sources/999999").status_code == 404


# --- pause ---------------------------------------------------------------------------------

def test_pause_and_resume(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/sources/{ids['thread']}/pause"
    assert alice.post(url, {"action": "stop-everything"}).status_code == 400
    assert alice.post(url, {"action": "pause"}, csrf=False).status_code == 400
    assert _threads(db_url, ids["campaign"])[0][3] is True
    r = alice.post(url, {"action": "pause"})
    assert r.status_code == 302
    page = alice.get(f"/campaigns/{ids['campaign']}").text
    assert "Source paused" in page and "still close at their deadlines" in page
    assert _threads(db_url, ids["campaign"])[0][3] is False
    dashboard = alice.get("/").text
    assert re.search(r'badge warn">paused</span>', dashboard)
    assert alice.post(url, {"action": "resume"}).status_code == 302
    with session_scope(make_engine(db_url)) as s:
        t = s.get(Thread, ids["thread"])
        assert t.active is True and t.next_poll is None       # read again at the next dispatch
        actions = list(s.scalars(select(AuditEntry.action).where(AuditEntry.entity == "thread")
                                 .order_by(AuditEntry.id)))
    assert actions == ["thread.pause", "thread.resume"]
    assert "paused</span>" not in alice.get("/").text


def test_read_the_whole_thread_again(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """issue 14 point 7: the narrator asks for every page to be read again (edits on
    earlier pages): the request's time lands in the thread's options (the worker compares
    it with its last full read), the poll is due now, audited; CSRF needed."""
    url = f"/sources/{ids['thread']}/reread"
    assert alice.post(url, {}, csrf=False).status_code == 400
    assert "reread_requested_at" not in _threads(db_url, ids["campaign"])[0][2]
    before = datetime.now(UTC).timestamp()
    r = alice.post(url, {})
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/sources/{ids['thread']}")
    assert "read again at the next poll" in alice.get(r.headers["Location"]).text
    with session_scope(make_engine(db_url)) as s:
        t = s.get(Thread, ids["thread"])
        assert t.options["reread_requested_at"] >= before and t.next_poll is None
        assert t.url.endswith("viewtopic.php?t=1") and t.active   # the rest kept
        actions = list(s.scalars(select(AuditEntry.action).where(AuditEntry.entity == "thread")))
    assert actions == ["thread.reread"]


# --- remove --------------------------------------------------------------------------------

def test_a_played_source_cannot_be_removed(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    url = f"/sources/{ids['thread']}/remove"
    page = alice.get(url)
    assert page.status_code == 200
    assert "cannot be removed" in page.text and "Gate fight" in page.text and "Pause this source" in page.text
    assert alice.post(url).status_code == 409
    assert len(_threads(db_url, ids["campaign"])) == 1


def test_remove_says_what_goes_then_removes(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    assert _add(alice, ids, MACHINA).status_code == 302
    with session_scope(make_engine(db_url)) as s:
        t = s.scalars(select(Thread).where(Thread.url == MACHINA)).one()
        tid = t.id
        now = datetime.now(UTC)
        s.add_all([Post(thread_id=tid, platform_id=f"p{i}", author="ana", posted_at=now, body="hi", text="hi",
                        content_hash=str(i)) for i in range(3)])
        s.add(Encounter(campaign_id=ids["campaign"], thread_id=tid, name="Bridge", ruleset="forum-d20"))
    url = f"/sources/{tid}/remove"
    page = alice.get(url).text
    assert "The posts pbp stored from it are deleted: 3." in page
    assert "Bridge" in page and "Nothing is deleted on the forum" in page
    assert alice.post(url, csrf=False).status_code == 400
    assert alice.post(url).status_code == 302
    with session_scope(make_engine(db_url)) as s:
        assert s.get(Thread, tid) is None
        assert s.scalar(select(func.count(Post.id)).where(Post.thread_id == tid)) == 0
        assert s.scalar(select(func.count(Encounter.id)).where(Encounter.name == "Bridge")) == 0
        entry = s.scalars(select(AuditEntry).where(AuditEntry.action == "thread.remove")).one()
        assert entry.before["value"]["posts"] == 3 and entry.before["value"]["url"] == MACHINA
    assert "Source removed." in alice.get(f"/campaigns/{ids['campaign']}").text


def test_a_refused_source_leaves_the_settings_form_as_stored(alice: Any, ids: dict[str, Any]) -> None:
    """The page shown again after a refused address keeps the campaign's settings in their
    fields (an empty settings form saved next would have been refused or lost settings)."""
    r = _add(alice, ids, "https://forum.example.org/board/thread/the-ambush")
    assert r.status_code == 400
    assert re.search(r'id="name"[^>]*value="The Sunken Keep"', r.text)
    assert re.search(r'id="timezone"[^>]*value="Europe/Lisbon"', r.text)
    assert re.search(r'<input checked id="approval_mode"|id="approval_mode"[^>]*checked', r.text)
    assert re.search(r'id="round_hours"[^>]*value="24"', r.text)


def test_edit_asks_when_the_new_address_fits_several_engines(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    assert _add(alice, ids, MACHINA).status_code == 302
    with session_scope(make_engine(db_url)) as s:
        tid = s.scalars(select(Thread.id).where(Thread.url == MACHINA)).one()
    r = alice.post(f"/sources/{tid}", {"thread-url": PHPBB})
    assert r.status_code == 200 and "fits several forum engines" in r.text
    assert ("forum", MACHINA, {"preset": "machina"}, True) in _threads(db_url, ids["campaign"])
    assert alice.post(f"/sources/{tid}", {"thread-url": PHPBB, "thread-preset": "phpbb2"}).status_code == 302
    assert ("forum", PHPBB, {"preset": "phpbb2"}, True) in _threads(db_url, ids["campaign"])


def test_a_scenario_file_source_keeps_its_path_and_takes_a_name(alice: Any, ids: dict[str, Any],
                                                                db_url: str) -> None:
    """The demo's source is a file: its name can change, its path cannot (no address check)."""
    with session_scope(make_engine(db_url)) as s:
        t = Thread(campaign_id=ids["campaign"], kind="file", url="var/demo/thread.yaml", platform="text")
        s.add(t)
        s.flush()
        tid = t.id
    assert "var/demo/thread.yaml" in alice.get(f"/sources/{tid}").text
    r = alice.post(f"/sources/{tid}", {"thread-url": "javascript:alert(1)", "thread-title": "Demo fight"})
    assert r.status_code == 302
    with session_scope(make_engine(db_url)) as s:
        t = s.get(Thread, tid)
        assert (t.url, t.title, t.kind) == ("var/demo/thread.yaml", "Demo fight", "file")


def test_replies_take_the_markup_of_the_engine(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """A thread added on a Markdown engine gets Markdown replies (machina renders Markdown:
    a BBCode reply showed its [b] tags to every visitor, seen walking a real thread); a
    BBCode engine keeps BBCode; Reddit is Markdown."""
    for url, preset in ((MACHINA, ""), (PHPBB, "phpbb3"), (REDDIT, "")):
        assert _add(alice, ids, url, preset=preset).status_code == 302
    with session_scope(make_engine(db_url)) as s:
        platform = {t.url: t.platform for t in s.scalars(
            select(Thread).where(Thread.campaign_id == ids["campaign"]))}
    assert (platform[MACHINA], platform[PHPBB], platform[REDDIT]) == ("markdown", "bbcode", "markdown")


def test_a_preset_markup_must_be_one_the_replies_know() -> None:
    with pytest.raises(ConfigError, match="markup must be one of bbcode, markdown, text"):
        preset_from_dict({**tomllib.loads((PRESET_DIR / "machina.toml").read_text()), "markup": "wiki"})


# --- addresses inside the network (issue 12 item 5) and secrets (item 6) -------------------

def _closed(app: Any) -> None:
    """The operator allow-lists nothing (the suite's app allows 127.0.0.1 for its forums)."""
    app.config["PBP_SETTINGS"] = app.config["PBP_SETTINGS"].with_overrides(allow_private_hosts="")


@pytest.mark.parametrize("url, said", [
    (MACHINA, "(127.0.0.1); the operator can allow it with the setting allow_private_hosts "
              "(PBP_ALLOW_PRIVATE_HOSTS), for example PBP_ALLOW_PRIVATE_HOSTS=127.0.0.1:8000."),
    ("http://localhost:8000/forum/adventures-2/topic/the-ambush-7/", "(localhost: 127.0.0.1)"),
    ("http://169.254.169.254/forum/a-2/topic/b-7/", "(169.254.169.254)"),
    ("https://10.0.0.1/forum/a-2/topic/b-7/", "PBP_ALLOW_PRIVATE_HOSTS=10.0.0.1:443."),
])
def test_an_address_inside_the_network_is_refused_in_words(app: Any, alice: Any, ids: dict[str, Any],
                                                           db_url: str, url: str, said: str) -> None:
    """issue 12 item 5: the narrator reads why, and what the operator can set; nothing is saved."""
    _closed(app)
    before = _threads(db_url, ids["campaign"])
    r = _add(alice, ids, url)
    assert r.status_code == 400
    text = " ".join(_text(r.text).split())
    assert "pbp does not fetch addresses inside your network" in text and said in text
    assert not LEAKS.search(text)
    assert _threads(db_url, ids["campaign"]) == before


def test_the_allow_list_lets_a_local_forum_be_added(app: Any, alice: Any, ids: dict[str, Any],
                                                    db_url: str) -> None:
    """issue 12 item 5: 127.0.0.1:8000 on the list (that port only) is accepted; port 8001 is not."""
    app.config["PBP_SETTINGS"] = app.config["PBP_SETTINGS"].with_overrides(allow_private_hosts="127.0.0.1:8000")
    assert _add(alice, ids, MACHINA).status_code == 302
    r = _add(alice, ids, MACHINA.replace(":8000", ":8001"))
    assert r.status_code == 400 and "inside your network" in r.text
    assert [u for _k, u, _o, _a in _threads(db_url, ids["campaign"])].count(MACHINA) == 1


def test_editing_to_an_address_inside_the_network_is_refused(app: Any, alice: Any, ids: dict[str, Any],
                                                             db_url: str) -> None:
    """issue 12 item 5: the edit form checks a new address the same way."""
    _closed(app)
    before = _threads(db_url, ids["campaign"])
    r = alice.post(f"/sources/{ids['thread']}", {"thread-url": "http://[::1]:8000/viewtopic.php?t=1",
                                                  "thread-preset": "phpbb3"})
    assert r.status_code == 400
    assert "pbp does not fetch addresses inside your network (::1)" in _text(r.text)
    assert "PBP_ALLOW_PRIVATE_HOSTS=[::1]:8000" in _text(r.text)
    assert _threads(db_url, ids["campaign"]) == before


def test_a_refused_poll_is_shown_on_the_source_pages(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """issue 12 item 5: the worker's refusal, stored as the thread's last error, is shown in
    words on the dashboard and the source's pages, without the exception's name."""
    refusal = PrivateAddressError("10.0.0.1", 80, "10.0.0.1", where="http://10.0.0.1/forum/a-2/topic/b-7/")
    with session_scope(make_engine(db_url)) as s:
        s.get(Thread, ids["thread"]).last_error = error_note(refusal, datetime.now(UTC))
    for page in ("/", f"/campaigns/{ids['campaign']}", f"/sources/{ids['thread']}"):
        text = " ".join(_text(alice.get(page).text).split())
        assert "pbp does not fetch addresses inside your network (10.0.0.1)" in text, page
        assert "PBP_ALLOW_PRIVATE_HOSTS=10.0.0.1:80" in text and "PrivateAddressError" not in text, page


def test_no_bot_secret_is_shown_on_the_source_pages(alice: Any, ids: dict[str, Any],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 12 item 6: the bot's secrets (by host and by host and port) are on no panel page."""
    secret = "S3cr3t-Bot-Pw"
    for name in ("PBP_SECRET_127_0_0_1_PASSWORD", "PBP_SECRET_127_0_0_1_8000_PASSWORD",
                 "PBP_SECRET_FORUM_EXAMPLE_ORG_PASSWORD"):
        monkeypatch.setenv(name, secret)
    r = _add(alice, ids, MACHINA)
    assert r.status_code == 302
    pages = ["/", f"/campaigns/{ids['campaign']}", f"/sources/{ids['thread']}", r.headers["Location"],
             f"/sources/{ids['thread']}/remove"]
    for page in pages:
        body = alice.get(page)
        assert body.status_code == 200 and secret not in body.text, page


# --- polling: each forum's budget and cycle (issue 17, SCALE-2) ------------------------------

def test_scale2_the_campaign_page_shows_each_forums_budget_and_cycle(alice: Any, ids: dict[str, Any],
                                                                     db_url: str) -> None:
    """SCALE-2: the sample's thread and three more on the machina host, two of them on one
    topic list, so a cycle is 3 requests (the list and two threads read alone: the sample's,
    and one whose topic list the narrator turned off with an empty ``listing_url``, since
    machina's list is otherwise found from the preset by default); at the 2 s
    interval the host allows 30 requests a minute and the cycle takes max(60 s poll
    interval, 3 x 2 s) = 60 s. Four
    requests the workers sent in the last minute (the shared budget) are shown as 4 of 30."""
    from pbp.store.budget import DatabaseBudget, budget_database
    from pbp.store.campaigns import Thread as T

    listing = "http://127.0.0.1:8000/forum/adventures-2/"
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        for n, opts in ((7, {"listing_url": ""}), (8, {"listing_url": listing}), (9, {"listing_url": listing})):
            s.add(T(campaign_id=ids["campaign"], kind="forum", platform="bbcode",
                    url=f"http://127.0.0.1:8000/forum/adventures-2/topic/fight-{n}/",
                    options={"preset": "machina", **opts}))
    # where the workers keep it: on SQLite a file beside the database (its own lock)
    budget = DatabaseBudget(make_engine(budget_database(db_url)))
    for _ in range(4):
        budget.reserve("host:127.0.0.1", 0.0)
    engine.dispose()
    page = _text(alice.get(f"/campaigns/{ids['campaign']}").text)
    assert "Forum polling" in page
    row = re.search(r"127\.0\.0\.1\s+(.*?)\s+about (\d+) s", page, re.S)
    assert row, page[:3000]
    assert row.group(1).startswith("4 (topic lists: 1, read alone: 2)")
    assert "4 of 30 requests in the last minute" in row.group(1)
    assert row.group(2) == "60"
