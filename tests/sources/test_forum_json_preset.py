"""Issue 14 point 6, without a server: the ``json`` format (a paged JSON API) and the
``[login]`` kind ``json`` as preset keys; the live side is tests/sources/test_forum_misago.py.

The document below has the shape of Misago 0.39.6's ``/api/threads/ID/posts/?page=N``
answer as seen live (keys trimmed to those the preset reads, plus one volatile one).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from pbp.errors import ConfigError
from pbp.sources.base import LayoutError
from pbp.sources.forum_json import parse_json_page
from pbp.sources.forum_preset import load_preset, preset_from_dict

URL = "http://forum.example.org/api/threads/7/posts/?page=2"
GROUPS = {"root": "http://forum.example.org", "slug": "the-ambush", "tid": "7"}


def _page(*posts: dict[str, object], pages: int = 3) -> str:
    return json.dumps({"id": 7, "post_set": {"page": 2, "pages": pages, "results": list(posts)}})


def _post(pid: int, who: str, content: str, **kw: object) -> dict[str, object]:
    return {"id": pid, "poster_name": who, "content": content,
            "posted_on": f"2026-12-01T10:{pid:02d}:00.123456Z", "updated_on": kw.pop(
                "updated_on", f"2026-12-01T10:{pid:02d}:00.123456Z"),
            "poster": {"status": {"last_click": "2026-12-01T12:00:00Z"}}, "is_event": False, **kw}


def test_misago_preset_reads_a_page_of_its_api() -> None:
    """Posts, authors, UTC times (microseconds kept), permalinks from the thread URL's
    groups, the number of pages; a quote block is out of the text; a thread event
    (``is_event``) is no post; an edit time only when it differs from the post's."""
    preset = load_preset("misago")
    quoted = ('<aside class="quote-block"><div class="quote-heading">Aria has written:</div>'
              '<blockquote class="quote-body" data-author="Aria"><p>I attack</p></blockquote>'
              '</aside><p>I <strong>dodge</strong>.</p>')
    text = _page(_post(5, "admin", "<p>The goblin snarls.</p>"),
                 _post(6, "player", quoted, updated_on="2026-12-01T11:00:00Z"),
                 _post(7, "admin", "<p>Thread closed.</p>", is_event=True))
    page = parse_json_page(text, preset, URL, 2, groups=GROUPS)
    assert page.last_page == 3
    assert [(p.platform_id, p.author, p.text) for p in page.posts] == [
        ("5", "admin", "The goblin snarls."), ("6", "player", "I dodge.")]
    assert page.posts[0].posted_at == datetime(2026, 12, 1, 10, 5, 0, 123456, tzinfo=UTC)
    assert page.posts[0].edited_at is None
    assert page.posts[1].edited_at == datetime(2026, 12, 1, 11, 0, tzinfo=UTC)
    [quote] = page.posts[1].extra["quotes"]
    assert quote["author"] == "Aria" and quote["text"].endswith("I attack")
    assert page.posts[0].url == "http://forum.example.org/t/the-ambush/7/post/5/"


def test_a_page_without_the_post_list_is_a_layout_error_naming_the_key() -> None:
    preset = load_preset("misago")
    with pytest.raises(LayoutError, match="'post_set.results' holds no post list"):
        parse_json_page(json.dumps({"detail": "Not found."}), preset, URL)
    with pytest.raises(LayoutError, match="not a JSON document"):
        parse_json_page("<html>maintenance</html>", preset, URL)
    broken = _page({"id": 5, "content": "<p>x</p>", "posted_on": "2026-12-01T10:00:00Z"})
    with pytest.raises(LayoutError, match="'poster_name'"):
        parse_json_page(broken, preset, URL)


def test_misagos_volatile_keys_are_out_of_the_page_hash() -> None:
    """The posters' "last seen" changes by itself: two answers differing only there hash
    alike, so an idle poll is not parsed (measured live in test_forum_misago.py)."""
    preset = load_preset("misago")
    a = _page(_post(5, "admin", "<p>x</p>"))
    b = a.replace("2026-12-01T12:00:00Z", "2026-12-01T12:09:00Z")
    assert a != b
    for pattern in preset.thread.volatile:
        a, b = pattern.sub("", a), pattern.sub("", b)
    assert a == b


def _preset(**tables: object) -> dict[str, object]:
    base: dict[str, object] = {"format": "json", "thread": {"pattern": r"^(?P<root>x)/(?P<tid>\d+)",
                                                            "page_url": "{root}/{tid}?p={page}"},
                               "json": {"posts": "results"}, "dates": {"formats": ["iso"]}}
    return {**base, **tables}


def test_json_login_needs_no_form_and_a_form_login_does() -> None:
    """Issue 14 point 6: ``kind = "json"`` takes a body template and cookie headers; the
    HTML kind still needs its form; an unknown kind or format is named with the choices."""
    ok = preset_from_dict(_preset(login={"kind": "json", "url": "{root}/api/auth/",
                                         "body": {"username": "{username}"},
                                         "cookie_headers": {"X-CSRFToken": "csrftoken"}}))
    assert ok.login is not None and ok.login.body == {"username": "{username}"}
    with pytest.raises(ConfigError, match="login needs 'form'"):
        preset_from_dict(_preset(login={"url": "{root}/login"}))
    with pytest.raises(ConfigError, match="login.kind must be 'form' or 'json', not 'oauth'"):
        preset_from_dict(_preset(login={"kind": "oauth", "url": "{root}/login"}))
    with pytest.raises(ConfigError, match="format must be one of html, json, discourse-json"):
        preset_from_dict(_preset(format="yaml"))
    with pytest.raises(ConfigError, match=r"missing table \[json\]"):
        preset_from_dict({k: v for k, v in _preset().items() if k != "json"})
