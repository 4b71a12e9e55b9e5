"""The pure part: comment -> PostRecord, the cursor, and the new/edited/deleted diff."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace
from typing import Any

from pbp.sources import reddit_records as rr
from pbp.sources.reddit_records import CursorState, diff, new_cursor


def comment(cid: str, body: str, created: float, edited: Any = False, author: str | None = "brakka",
            parent: str = "t3_abc") -> SimpleNamespace:
    return SimpleNamespace(id=cid, body=body, created_utc=created, edited=edited,
                           author=None if author is None else SimpleNamespace(name=author),
                           parent_id=parent, link_id="t3_abc", permalink=f"/r/dnd/comments/abc/x/{cid}/",
                           body_html=f'<div class="md"><p>{body}</p>\n</div>')


def test_cursor_round_trips_through_json_and_is_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(rr, "MAX_SEEN", 3)
    st = CursorState.load(new_cursor(through=10.0, num_comments=0))
    diff(st, [comment(f"c{i}", f"b{i}", 100.0 + i) for i in range(5)])
    dumped = json.loads(json.dumps(st.dump()))
    assert sorted(dumped["seen"]) == ["c2", "c3", "c4"]           # the newest kept
    again = CursorState.load(dumped)
    assert again.dump() == dumped


def test_diff_does_not_touch_the_callers_cursor() -> None:
    cursor = new_cursor(through=1.0)
    first = CursorState.load(cursor)
    diff(first, [comment("a", "x", 5.0)])
    saved = first.dump()
    frozen = copy.deepcopy(saved)
    st = CursorState.load(saved)
    diff(st, [comment("a", "y", 5.0, edited=9.0)])
    assert saved == frozen


def test_changes_and_vanishing() -> None:
    st = CursorState()
    assert [p.change for p in diff(st, [comment("a", "x", 5.0), comment("b", "y", 6.0)])] == ["new", "new"]
    out = diff(st, [comment("a", "x", 5.0)], complete_after=5.5)   # b (6.0) is in the window
    assert [(p.platform_id, p.change, p.extra["deleted"]) for p in out] == [("b", "deleted", "vanished")]
    assert diff(st, [comment("a", "x", 5.0)], complete_after=5.5) == []   # reported once
    st2 = CursorState()
    diff(st2, [comment("a", "x", 5.0)])
    assert diff(st2, [], complete_after=5.0) == []      # not after the window start: unknown
    out = diff(st, [comment("a", "[removed]", 5.0, author=None)])
    assert [(p.change, p.author, p.extra["deleted"]) for p in out] == [("deleted", "[deleted]", "removed")]
    assert diff(st, [comment("a", "[removed]", 5.0, author=None)]) == []


def test_account_deleted_but_comment_kept_is_not_a_deletion() -> None:
    st = CursorState()
    diff(st, [comment("a", "I attack", 5.0)])
    assert diff(st, [comment("a", "I attack", 5.0, author=None)]) == []


def test_record_fields() -> None:
    (post,) = diff(CursorState(), [comment("a", "I &amp; Mira <b>attack</b>", 1_700_000_000.0,
                                           parent="t1_zz")])
    assert post.fmt == "markdown" and post.text == "I & Mira attack"
    assert post.url == "https://www.reddit.com/r/dnd/comments/abc/x/a/"
    assert post.extra["parent_id"] == "t1_zz" and post.extra["reply_to_submission"] is False
    assert post.posted_at.isoformat() == "2023-11-14T22:13:20+00:00"
