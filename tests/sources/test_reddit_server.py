# ruff: noqa: F811  -- fixtures are imported from reddit_fixtures by name
"""The local Reddit answers with the recorded shapes: same key sets, endpoint by endpoint.

The oracle is the cassettes in ../shared/fixtures/reddit (real Reddit, recorded by praw
and prawcore), read at test time; the server is driven over HTTP with ``requests`` so
what is compared is exactly what praw receives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import requests
from reddit_fixtures import fixtures_dir, reddit_server  # noqa: F401  (fixture)


def recorded(name: str, index: int) -> dict[str, Any]:
    data = json.loads((fixtures_dir() / name).read_text())
    return data["interactions"][index]["response"]  # type: ignore[no-any-return]


def recorded_json(name: str, index: int) -> Any:
    return json.loads(recorded(name, index)["body"]["string"])


def keys(obj: dict[str, Any]) -> set[str]:
    return set(obj["data"])


def kinds(node: Any, kind: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if node.get("kind") == kind:
            out.append(node)
        for v in node.values():
            out += kinds(v, kind)
    elif isinstance(node, list):
        for v in node:
            out += kinds(v, kind)
    return out


@pytest.fixture
def world(reddit_server: Any) -> dict[str, Any]:
    s = reddit_server
    s.tree_budget = 3
    sid = s.add_submission("dnd")
    top = [s.add_comment(sid, f"top {i}") for i in range(5)]
    s.add_comment(f"t1_{top[0]}", "a reply")
    return {"s": s, "sid": sid, "top": top, "h": {"Authorization": "bearer x"}}


def get(world: dict[str, Any], path: str, **params: Any) -> requests.Response:
    return requests.get(world["s"].url + path, params=params, headers=world["h"], timeout=5)


def post(world: dict[str, Any], path: str, **data: Any) -> requests.Response:
    return requests.post(world["s"].url + path, data=data, headers=world["h"], timeout=5)


def test_subreddit_listing_has_the_2023_listing_keys(world: dict[str, Any]) -> None:
    rec = recorded_json("praw/TestSubredditStreams.test_comments__with_continue_after_id.json", 1)
    got = get(world, "/r/dnd/comments/", limit=100, raw_json=1).json()
    assert got["kind"] == rec["kind"] == "Listing"
    assert set(got["data"]) == set(rec["data"])
    assert {frozenset(keys(c)) for c in got["data"]["children"]} == {frozenset(keys(rec["data"]["children"][0]))}
    assert [c["data"]["created_utc"] for c in got["data"]["children"]] == sorted(
        (c["data"]["created_utc"] for c in got["data"]["children"]), reverse=True)
    assert isinstance(got["data"]["children"][0]["data"]["created_utc"], float)


def test_comment_tree_has_the_recorded_tree_keys(world: dict[str, Any]) -> None:
    rec = recorded_json("praw/TestComment.test_refresh__with_reply_sort_and_limit.json", 2)
    got = get(world, f"/comments/{world['sid']}/", limit=2048, sort="old").json()
    assert len(got) == 2 and [set(p["data"]) for p in got] == [set(p["data"]) for p in rec]
    assert keys(got[0]["data"]["children"][0]) == keys(rec[0]["data"]["children"][0])   # t3
    assert {frozenset(keys(c)) for c in kinds(got[1], "t1")} == {frozenset(keys(kinds(rec[1], "t1")[0]))}
    more = kinds(got, "more")
    assert more and {frozenset(keys(m)) for m in more} == {frozenset(keys(kinds(rec, "more")[0]))}
    reply_listing = next(c for c in kinds(got[1], "t1") if c["data"]["replies"])["data"]["replies"]
    assert set(reply_listing["data"]) == set(kinds(rec[1], "t1")[0]["data"]["replies"]["data"])


def test_morechildren_is_flat_with_the_recorded_keys(world: dict[str, Any]) -> None:
    rec = recorded_json("praw/TestMore.test_comments.json", 1)
    got = post(world, "/api/morechildren/", children=",".join(world["top"]),
               link_id=f"t3_{world['sid']}", sort="old", api_type="json").json()
    assert set(got) == set(rec) and set(got["json"]) == set(rec["json"])
    assert set(got["json"]["data"]) == set(rec["json"]["data"])
    things = got["json"]["data"]["things"]
    assert all(t["data"]["replies"] == "" for t in things if t["kind"] == "t1")   # flat
    assert {frozenset(keys(t)) for t in things if t["kind"] == "t1"} == {
        frozenset(keys(rec["json"]["data"]["things"][0]))}


def test_info_reply_and_edit_have_their_recorded_keys(world: dict[str, Any]) -> None:
    info_rec = recorded_json("praw/TestComment.test_refresh__with_reply_sort_and_limit.json", 1)
    got = get(world, "/api/info/", id=f"t1_{world['top'][0]}").json()
    assert set(got["data"]) == set(info_rec["data"])
    assert keys(got["data"]["children"][0]) == keys(info_rec["data"]["children"][0])

    reply_rec = recorded_json("praw/TestSubmission.test_reply.json", 1)
    got = post(world, "/api/comment/", thing_id=f"t3_{world['sid']}", text="Test reply",
               api_type="json").json()
    assert set(got["json"]) == set(reply_rec["json"])
    assert keys(got["json"]["data"]["things"][0]) == keys(reply_rec["json"]["data"]["things"][0])

    edit_rec = recorded_json("praw/TestComment.test_edit.json", 1)
    cid = got["json"]["data"]["things"][0]["data"]["id"]
    world["s"].comments[cid].author = ""     # the anonymous token may edit it
    got = post(world, "/api/editusertext/", thing_id=f"t1_{cid}", text="New text", api_type="json").json()
    assert keys(got["json"]["data"]["things"][0]) == keys(edit_rec["json"]["data"]["things"][0])
    assert got["json"]["data"]["things"][0]["data"]["edited"] > 0


def test_faults_are_the_recorded_ones(world: dict[str, Any]) -> None:
    s = world["s"]
    rec429 = recorded("prawcore/TestSession.test_request__too__many_requests__with_retry_headers.json", 1)
    s.fail(r"^/r/dnd/", 429, retry_after=4)
    got = get(world, "/r/dnd/comments/")
    assert got.status_code == 429 and got.text == rec429["body"]["string"]
    assert got.headers["retry-after"] == "4" and got.headers["content-type"].startswith("text/html")
    assert "x-ratelimit-remaining" not in got.headers

    s.fail(r"^/r/dnd/", 403)
    got = get(world, "/r/dnd/comments/")
    assert got.status_code == 403
    assert got.json() == recorded_json("praw/TestInbox.test_message__unauthorized.json", 1)
    assert float(got.headers["x-ratelimit-remaining"]) > 0 and "." in got.headers["x-ratelimit-remaining"]

    s.fail(r"access_token", 429, retry_after=None)
    got = requests.post(s.url + "/api/v1/access_token", data={"grant_type": "client_credentials"},
                        timeout=5)
    rec = recorded("prawcore/TestSession.test_request__too__many_requests__without_retry_headers.json", 0)
    assert got.status_code == 429 and got.text == rec["body"]["string"]
    assert "retry-after" not in got.headers

    got = get(world, "/comments/zzzzzz/")
    assert got.status_code == 404
    assert got.json() == recorded_json("prawcore/TestSession.test_request__not_found.json", 1)


def test_fixture_folder_is_read_not_copied() -> None:
    here = Path(__file__).resolve().parents[2]
    assert not list(here.glob("tests/**/TestSubmission.test_reply.json"))
    assert fixtures_dir().is_dir()


def test_absent_fixtures_skip_locally_and_fail_in_ci(monkeypatch: Any, tmp_path: Path) -> None:
    import reddit_fixtures

    conf = reddit_fixtures._load("pbp_tests_conftest", reddit_fixtures.ROOT / "tests" / "conftest.py")
    monkeypatch.setattr(conf, "SHARED", tmp_path / "no-shared")
    monkeypatch.setattr(conf, "IN_CI", False)
    with pytest.raises(pytest.skip.Exception, match="absent"):
        fixtures_dir()
    monkeypatch.setattr(conf, "IN_CI", True)
    with pytest.raises(pytest.fail.Exception, match="required in CI"):
        fixtures_dir()
