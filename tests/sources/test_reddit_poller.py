# ruff: noqa: F811  -- fixtures are imported from reddit_fixtures by name
"""SubredditPoller: one listing per subreddit per cycle, trees only for gaps, 429 isolated."""

from __future__ import annotations

import time
from typing import Any

import praw
import pytest
from reddit_fixtures import bot, client, player, reddit_server  # noqa: F401  (fixtures)

from pbp.sources.base import SourceError
from pbp.sources.reddit import RedditSource, SubredditPoller, new_cursor


class Watch:
    """Cursors kept the way a worker keeps them: replaced only by a result."""

    def __init__(self, poller: SubredditPoller, sids: list[str], server: Any) -> None:
        self.poller = poller
        self.cursors: dict[str, Any] = {
            sid: new_cursor(through=server.submissions[sid].created_utc - 1) for sid in sids}
        self.seen: list[tuple[str, str, str, str]] = []

    def cycle(self) -> Any:
        out = self.poller.poll(self.cursors)
        for sid, result in out.results.items():
            self.seen += [(sid, p.platform_id, p.change, p.body) for p in result.posts]
            self.cursors[sid] = result.cursor
        return out


@pytest.fixture
def two_subs(reddit_server: Any, bot: praw.Reddit) -> dict[str, Any]:
    s = reddit_server
    dnd = [s.add_submission("dnd") for _ in range(3)]
    pf2e = [s.add_submission("pf2e") for _ in range(2)]
    other = s.add_submission("dnd")                        # not watched
    return {"s": s, "dnd": dnd, "pf2e": pf2e, "other": other, "reddit": bot,
            "w_dnd": Watch(SubredditPoller(bot, "dnd"), dnd, s),
            "w_pf2e": Watch(SubredditPoller(bot, "pf2e"), pf2e, s)}


def test_one_listing_per_subreddit_dispatched_by_link_id(two_subs: dict[str, Any]) -> None:
    s, dnd, pf2e = two_subs["s"], two_subs["dnd"], two_subs["pf2e"]
    two_subs["w_dnd"].cycle()                             # warm up: the OAuth token request
    a = s.add_comment(dnd[0], "Brakka attacks", author="brakka")
    b = s.add_comment(f"t1_{a}", "Mira heals Brakka", author="mira")   # a reply to a comment
    c = s.add_comment(pf2e[1], "Strike!", author="kel")
    s.add_comment(two_subs["other"], "not ours")
    s.calls.clear()
    out_dnd, out_pf2e = two_subs["w_dnd"].cycle(), two_subs["w_pf2e"].cycle()
    assert s.count() == 2 and out_dnd.requests == 1 and out_pf2e.requests == 1
    assert [p for _, p in s.calls] == ["/r/dnd/comments/", "/r/pf2e/comments/"]
    assert two_subs["w_dnd"].seen == [(dnd[0], a, "new", "Brakka attacks"),
                                      (dnd[0], b, "new", "Mira heals Brakka")]
    assert two_subs["w_pf2e"].seen == [(pf2e[1], c, "new", "Strike!")]
    assert set(out_dnd.results) == set(dnd) and not out_dnd.gaps


def test_new_edit_delete_each_seen_once(two_subs: dict[str, Any], player: praw.Reddit) -> None:
    s, sid, w = two_subs["s"], two_subs["dnd"][1], two_subs["w_dnd"]
    keep = s.add_comment(sid, "I attack", author="brakka")
    drop = s.add_comment(sid, "I flee", author="brakka")
    w.cycle()
    w.cycle()
    assert [(x[1], x[2]) for x in w.seen] == [(keep, "new"), (drop, "new")]
    player.comment(keep).edit(body="I attack twice")
    player.comment(drop).delete()
    w.cycle()
    w.cycle()
    assert [(x[1], x[2], x[3]) for x in w.seen[2:]] == [
        (keep, "edited", "I attack twice"), (drop, "deleted", "[deleted]")]


def test_vanished_comment_inside_the_window_is_deleted(reddit_server: Any, bot: praw.Reddit) -> None:
    reddit_server.listing_hides_deleted = True
    sid = reddit_server.add_submission("dnd")
    w = Watch(SubredditPoller(bot, "dnd"), [sid], reddit_server)
    cid = reddit_server.add_comment(sid, "oops", author="mira")
    w.cycle()
    reddit_server.delete_comment(cid)
    w.cycle()
    assert [(x[1], x[2]) for x in w.seen] == [(cid, "new"), (cid, "deleted")]


def test_gap_is_detected_and_filled_from_the_tree(reddit_server: Any, bot: praw.Reddit) -> None:
    s = reddit_server
    s.tree_budget, s.more_batch = 3, 2          # the gap fill needs MoreComments too
    sids = [s.add_submission("dnd") for _ in range(4)]
    w = Watch(SubredditPoller(bot, "dnd", limit=5), sids, s)
    s.add_comment(sids[0], "before")
    w.cycle()
    s.advance(5)
    burst = []
    for i in range(12):                                   # 12 > limit 5, over 4 seconds
        if i % 3 == 0:
            s.advance(1)
        burst.append(s.add_comment(sids[i % 2], f"burst {i}"))
    s.calls.clear()
    out = w.cycle()
    assert sorted(out.gaps) == sorted(sids)               # the window does not reach back
    assert sorted(out.tree_reads) == sorted(sids[:2])     # num_comments screen: 2 changed
    assert s.count("/api/info") == 1 and s.count("/comments/") == 2
    assert s.count("/api/morechildren") >= 1
    assert sorted(x[1] for x in w.seen if x[2] == "new") == sorted(
        [c for c in s.comments if s.comments[c].body == "before"] + burst)
    s.advance(1)
    s.add_comment(sids[3], "a later comment")             # Reddit moves on
    s.calls.clear()
    w.cycle()     # caught up; the comments that left the window are re-read for edits once
    assert s.count("/r/dnd/comments/") == 1 and s.count("/comments/") == 0
    assert s.count("/api/info") == 1
    s.calls.clear()
    w.cycle()                                             # steady: one call a cycle
    assert s.count() == 1 and len(w.seen) == 14


def test_gap_without_screening_reads_every_tree(reddit_server: Any, bot: praw.Reddit) -> None:
    s = reddit_server
    sids = [s.add_submission("dnd") for _ in range(3)]
    w = Watch(SubredditPoller(bot, "dnd", limit=5, screen_gaps=False), sids, s)
    w.cycle()
    s.advance(5)
    for i in range(8):
        s.add_comment(sids[0], f"c{i}")
    s.calls.clear()
    out = w.cycle()
    assert sorted(out.tree_reads) == sorted(sids) and s.count("/comments/") == 3
    assert len(w.seen) == 8


def test_first_poll_without_cursor_reads_trees_only_when_the_window_is_full(
        reddit_server: Any, bot: praw.Reddit) -> None:
    s = reddit_server
    sid = s.add_submission("dnd")
    old = s.add_comment(sid, "older than any window")
    poller = SubredditPoller(bot, "dnd", limit=5)
    out = poller.poll({sid: None})                        # 1 comment: the listing is all of it
    assert [p.platform_id for p in out.results[sid].posts] == [old] and not out.gaps
    other = s.add_submission("dnd")
    for i in range(6):
        s.add_comment(sid, f"n{i}")
    out = poller.poll({other: None, sid: out.results[sid].cursor})
    assert other in out.gaps                              # unknown past, full window: read it


def test_recheck_catches_an_edit_outside_the_window(reddit_server: Any, bot: praw.Reddit,
                                                    player: praw.Reddit) -> None:
    s = reddit_server
    sid = s.add_submission("dnd")
    w = Watch(SubredditPoller(bot, "dnd", limit=3, recheck_interval=0), [sid], s)
    first = s.add_comment(sid, "I attack", author="brakka")
    w.cycle()
    for i in range(4):                                    # pushes `first` out, one at a time
        s.advance(1)
        s.add_comment(sid, f"chatter {i}")
        w.cycle()
    player.comment(first).edit(body="I attack the shaman")
    s.calls.clear()
    w.cycle()
    assert (sid, first, "edited", "I attack the shaman") in w.seen
    assert s.count("/api/info") == 1


def test_429_delays_only_that_source(two_subs: dict[str, Any]) -> None:
    s, bot = two_subs["s"], two_subs["reddit"]
    s.add_comment(two_subs["dnd"][0], "dnd post")
    pf = s.add_comment(two_subs["pf2e"][0], "pf2e post")
    s.fail(r"^/r/dnd/", 429, retry_after=30)
    with pytest.raises(SourceError) as info:
        two_subs["w_dnd"].cycle()
    assert info.value.retry_after == 30 and "429" in str(info.value)
    t0 = time.monotonic()
    two_subs["w_pf2e"].cycle()                            # same client, not stalled
    single = RedditSource(two_subs["pf2e"][1], reddit=bot).fetch(None)
    assert time.monotonic() - t0 < 2.0
    assert [x[1] for x in two_subs["w_pf2e"].seen] == [pf] and single.posts == []
    before = s.count()
    with pytest.raises(SourceError, match="backing off"):
        two_subs["w_dnd"].cycle()
    assert s.count() == before                            # no call while waiting
    assert two_subs["w_dnd"].seen == []


def test_html_429_in_a_gap_fill_keeps_that_cursor(reddit_server: Any, bot: praw.Reddit) -> None:
    s = reddit_server
    sids = [s.add_submission("dnd") for _ in range(2)]
    w = Watch(SubredditPoller(bot, "dnd", limit=3, screen_gaps=False), sids, s)
    w.cycle()
    s.advance(5)
    unread = [s.add_comment(sids[0], f"declaration {i}") for i in range(5)]
    kept = dict(w.cursors)
    s.fail(rf"^/comments/{sids[0]}", 429, retry_after=12)
    out = w.cycle()
    err = out.errors[sids[0]]
    assert "429" in err.message and "HTML page titled 'Too Many Requests'" in err.message
    assert err.where and f"/comments/{sids[0]}/" in err.where and err.retry_after == 12
    assert w.cursors[sids[0]] == kept[sids[0]]            # did not move past unread posts
    seen_now = {x[1] for x in w.seen}
    assert not set(unread) <= seen_now
    w.poller.backoff.succeeded()                          # 12 s later
    w.cycle()
    assert set(unread) <= {x[1] for x in w.seen}
    assert len([x for x in w.seen if x[1] in unread and x[2] == "new"]) == len(unread)


def test_403_on_a_subreddit_is_not_retryable(two_subs: dict[str, Any]) -> None:
    two_subs["s"].fail(r"^/r/dnd/", 403)
    with pytest.raises(SourceError, match="403") as info:
        two_subs["w_dnd"].cycle()
    assert not info.value.retryable


def test_spent_quota_defers_instead_of_sleeping(reddit_server: Any) -> None:
    s = reddit_server
    reddit = client(s)
    sid = s.add_submission("dnd")
    poller = SubredditPoller(reddit, "dnd")
    poller.poll({sid: None})
    s.used = 599                                          # next answer: remaining "0.0"
    poller.poll({sid: None})
    t0 = time.monotonic()
    with pytest.raises(SourceError, match="quota") as info:
        SubredditPoller(reddit, "dnd").poll({sid: None})
    assert time.monotonic() - t0 < 1.0 and info.value.retry_after and info.value.retry_after > 100


def test_poller_from_settings_uses_secrets(reddit_server: Any, monkeypatch: Any) -> None:
    from pbp.settings import load_settings

    monkeypatch.setenv("PBP_SECRET_REDDIT__COM_CLIENTID", "cid")
    monkeypatch.setenv("PBP_SECRET_REDDIT__COM_CLIENTSECRET", "sec")
    sid = reddit_server.add_submission("dnd")
    reddit_server.add_comment(sid, "hi")
    poller = SubredditPoller.from_settings(
        "r/dnd", {"oauth_url": reddit_server.url, "reddit_url": reddit_server.url},
        load_settings(env={"PBP_DATA_DIR": "/tmp/pbp-reddit-test", "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"}))
    assert [p.body for p in poller.poll({sid: None}).results[sid].posts] == ["hi"]


def test_tree_reads_per_cycle_are_bounded(reddit_server: Any, bot: praw.Reddit) -> None:
    s = reddit_server
    sids = [s.add_submission("dnd") for _ in range(3)]
    w = Watch(SubredditPoller(bot, "dnd", limit=3, max_tree_reads=1), sids, s)
    w.cycle()
    s.advance(5)
    made = [s.add_comment(sids[i % 3], f"c{i}") for i in range(9)]
    out = w.cycle()
    assert len(out.tree_reads) == 1 and len(out.deferred) == 2
    w.cycle()
    w.cycle()
    assert sorted(x[1] for x in w.seen) == sorted(made)        # all of them, each once


def test_json_429_on_the_token_endpoint(reddit_server: Any) -> None:
    reddit_server.fail(r"access_token", 429, retry_after=None)
    sid = reddit_server.add_submission("dnd")
    poller = SubredditPoller(client(reddit_server), "dnd")
    with pytest.raises(SourceError, match="429") as info:
        poller.poll({sid: None})
    assert info.value.retryable and info.value.retry_after is None
    assert "access_token" in (info.value.where or "")
    assert poller.backoff.remaining() > 20                      # exponential: 30 s first
