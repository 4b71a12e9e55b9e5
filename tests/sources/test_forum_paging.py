"""Issue 14 point 2: paging that cannot skip silently, on pages a real SMF 2.1.4 served.

SMF pages by offset (``topic=2.0``, ``2.5``, ``2.10``, ``2.15``), so the URL of page N is
built from posts per page. The capture's board shows 5 (README: ``defaultMaxMessages``);
17 posts on 4 pages (truth.json). A preset that says 15 used to read pages 1 and 2 only
(``topic=2.15`` was "page 2"), 7 posts of 17, with no error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from pbp.sources.base import LayoutError
from pbp.sources.forum import ForumSource
from pbp.sources.http import PoliteClient
from tests.conftest import shared_path
from tests.sources.smf21_replay import Smf21, serve_smf21


@pytest.fixture
def smf21() -> Iterator[Smf21]:
    with serve_smf21() as forum:
        forum.last = "topic_p4_aged.html"
        yield forum


def truth_ids() -> list[str]:
    truth = json.loads(shared_path("fixtures", "forums", "smf21", "truth.json").read_text())
    return [str(p["id"]) for p in truth["posts"]]


def source(forum: Smf21, per_page: int) -> ForumSource:
    client = PoliteClient(user_agent="pbp-tests/1", min_interval=0, allowed_hosts={"127.0.0.1"},
                          private_hosts="127.0.0.1")
    return ForumSource(f"{forum.base}/index.php?topic=2.0", "smf21", client=client,
                       overrides={"thread": {"per_page": per_page}})


def test_a_wrong_per_page_is_learned_from_the_board_not_skipped(smf21: Smf21) -> None:
    """issue 14 point 2: with per_page = 15 against a board of 5, every one of the 17
    posts is read, in order; the 5 is kept in the cursor, so the next poll asks for the
    last page at its real offset (``topic=2.15``) first."""
    src = source(smf21, per_page=15)
    first = src.fetch(None)
    assert [p.platform_id for p in first.posts] == truth_ids()
    assert len(first.posts) == 17
    assert first.cursor["per_page"] == 5 and first.cursor["page"] == 4
    smf21.requests.clear()
    again = source(smf21, per_page=15).fetch(first.cursor)
    assert again.posts == [] and smf21.requests[0] == "topic=2.15"


def _without_first_post(page: bytes) -> bytes:
    html = page.decode()
    start = html.index('<div class="windowbg" id="msg2">')
    end = html.index('<div class="windowbg" id="msg3">')
    return (html[:start] + html[end:]).encode()


def test_a_page_that_disagrees_with_its_links_names_the_setting(smf21: Smf21) -> None:
    """issue 14 point 2: page 1 shows 4 posts while its links step by 5: no guess, an
    error that names the setting to fix (thread.per_page) and the page."""
    smf21.pages["topic=2.0"] = _without_first_post(smf21.page("topic_p1_aged.html"))
    with pytest.raises(LayoutError) as err:
        source(smf21, per_page=15).fetch(None)
    assert "shows 4 posts" in str(err.value) and "step by 5" in str(err.value)
    assert "thread.per_page" in str(err.value) and "topic=2.0" in str(err.value)


def test_the_right_per_page_reads_as_before(smf21: Smf21) -> None:
    """issue 14 point 2, the control: the shipped preset (5) reads the 17 posts with one
    request per page, four in all."""
    got = source(smf21, per_page=5).fetch(None)
    assert [p.platform_id for p in got.posts] == truth_ids()
    assert sorted(q for q in smf21.requests if q.startswith("topic=")) == [
        "topic=2.0", "topic=2.10", "topic=2.15", "topic=2.5"]
