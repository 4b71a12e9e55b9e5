"""Reddit API calls per cycle for 1,000 watched submissions in 5 subreddits.

    python bench/bench_reddit.py [--cycles 5] [--per-cycle 20] [--subs 200]

Runs the local Reddit (tests/harness/reddit_server.py, shapes from the recorded cassettes
in ../shared/fixtures/reddit) and the real praw client. Each subreddit also carries
unwatched chatter, so its newest-comments window is full (100 comments) as on a live
subreddit. Then, in the same run and on the same state:

* pbp, steady   — SubredditPoller, one per subreddit; before each cycle *per-cycle* new
                  comments (and a reply, an edit, a deletion) land on watched submissions;
* pbp, gap      — a burst of 150 comments on 10 submissions of one subreddit between two
                  cycles (the window no longer reaches back): screened by num_comments
                  (the default), and without the screen (a tree per watched submission);
* naive         — RedditSource.fetch (the submission's comment tree) for every watched
                  submission, every cycle.

Every poller must see exactly the new comments (checked). Calls are counted by the server
(the OAuth token request left out). Goal: pbp's calls per cycle == number of subreddits
while nothing needs a gap fill.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pbp.sources.outbound import PrivateHosts
from pbp.sources.reddit import RedditSource, SubredditPoller, new_cursor
from pbp.sources.reddit_client import RedditConfig, make_reddit

FIXTURES = ROOT.parent / "shared" / "fixtures" / "reddit"
SUBREDDITS = ["dnd", "pathfinder", "osr", "rpg", "pbp"]


def server_module() -> Any:
    spec = importlib.util.spec_from_file_location("pbp_bench_reddit_server",
                                                  ROOT / "tests" / "harness" / "reddit_server.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class Fleet:
    """Pollers + the cursors a worker would store, and every change they reported."""

    def __init__(self, reddit: Any, watched: dict[str, list[str]], server: Any, **kw: Any) -> None:
        self.pollers = {name: SubredditPoller(reddit, name, **kw) for name in watched}
        self.cursors = {sid: new_cursor(through=server.submissions[sid].created_utc - 1, num_comments=0)
                        for sids in watched.values() for sid in sids}
        self.watched = watched
        self.seen: list[tuple[str, str]] = []

    def cycle(self) -> None:
        for name, poller in self.pollers.items():
            out = poller.poll({sid: self.cursors[sid] for sid in self.watched[name]})
            assert not out.errors, out.errors
            for sid, res in out.results.items():
                self.seen += [(p.platform_id, p.change) for p in res.posts]
                self.cursors[sid] = res.cursor


def measure(server: Any, fn: Any) -> tuple[int, float]:
    before = server.count()
    t0 = time.perf_counter()
    fn()
    return server.count() - before, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=5)
    ap.add_argument("--per-cycle", type=int, default=20)
    ap.add_argument("--subs", type=int, default=200, help="watched submissions per subreddit")
    args = ap.parse_args()
    if not FIXTURES.is_dir():
        sys.exit(f"{FIXTURES} is absent: the local Reddit builds its shapes from those cassettes")
    rnd = random.Random(5)
    # no x-ratelimit headers: the naive poller would spend the 600-call quota in one cycle
    server = server_module().RedditServer(FIXTURES, ratelimit_headers=False).start()
    try:
        watched = {name: [server.add_submission(name, author="pbp_bot") for _ in range(args.subs)]
                   for name in SUBREDDITS}
        start = server.now()
        for name in SUBREDDITS:                      # unwatched chatter fills each window
            chatter = server.add_submission(name, title="Weekly chat", created_utc=start - 3600)
            for i in range(150):                     # one every 20 s over the last hour
                server.add_comment(chatter, f"chatter {i}", author="someone",
                                   created_utc=start - 3000 + 20 * i)
        all_sids = [sid for sids in watched.values() for sid in sids]
        cfg = RedditConfig(client_id="bench", client_secret="bench", username="pbp_bot",
                           password="pw", user_agent="pbp-bench/0.1 (by u/pbp_bot)",
                           oauth_url=server.url, reddit_url=server.url,
                           private_hosts=PrivateHosts.parse("127.0.0.1"))
        reddit = make_reddit(cfg, shared=False)
        pbp = Fleet(reddit, watched, server)
        naive_sources = {sid: RedditSource(sid, reddit=reddit) for sid in all_sids}
        naive_cursors: dict[str, Any] = {sid: None for sid in all_sids}
        naive_seen: list[tuple[str, str]] = []

        def naive_cycle() -> None:
            for sid, src in naive_sources.items():
                res = src.fetch(naive_cursors[sid])
                naive_seen.extend((p.platform_id, p.change) for p in res.posts)
                naive_cursors[sid] = res.cursor

        pbp.cycle()
        naive_cycle()                                 # both warmed up (token, first read)
        expected: list[tuple[str, str]] = []
        rows = []
        for _ in range(args.cycles):
            server.advance(30)
            new = [server.add_comment(rnd.choice(all_sids), "I attack the goblin [roll]1d20+5[/roll]",
                                      author=f"player{rnd.randrange(50)}")
                   for _ in range(args.per_cycle)]
            new.append(server.add_comment(f"t1_{new[0]}", "Mira heals", author="mira"))
            server.edit_comment(new[1], "I attack the shaman instead")
            expected += [(c, "new") for c in new]
            calls, secs = measure(server, pbp.cycle)
            ncalls, nsecs = measure(server, naive_cycle)
            rows.append((calls, secs, ncalls, nsecs))
            victim = new[2]
            server.delete_comment(victim)
            expected.append((victim, "deleted"))
            # (the edit of new[1] landed before anyone read it: seen as new with the edit)
        calls, secs = measure(server, pbp.cycle)
        ncalls, nsecs = measure(server, naive_cycle)
        rows.append((calls, secs, ncalls, nsecs))

        # a gap: a burst in one subreddit between two cycles
        def burst() -> list[tuple[str, str]]:
            server.advance(30)
            hit = rnd.sample(watched["dnd"], 10)
            made = []
            for i in range(150):                      # over 30 s
                if i % 5 == 0:
                    server.advance(1)
                made.append((server.add_comment(rnd.choice(hit), f"burst {i}"), "new"))
            return made

        expected += burst()
        gap_calls, gap_secs = measure(server, pbp.cycle)
        naive_gap_calls, naive_gap_secs = measure(server, naive_cycle)
        unscreened = Fleet(reddit, watched, server, screen_gaps=False, max_tree_reads=10_000)
        unscreened.cursors = dict(pbp.cursors)
        expected += burst()
        un_calls, un_secs = measure(server, unscreened.cycle)
        pbp.cursors = dict(unscreened.cursors)
        pbp.seen += unscreened.seen
        naive_cycle()
        # after a gap: comments pushed out of the window are re-read once for edits
        server.advance(30)
        new = [server.add_comment(rnd.choice(all_sids), "I defend") for _ in range(args.per_cycle)]
        expected += [(c, "new") for c in new]
        after_calls, _ = measure(server, pbp.cycle)
        server.advance(30)
        steady_again, _ = measure(server, pbp.cycle)
        naive_cycle()

        for who, got in (("pbp", pbp.seen), ("naive", naive_seen)):
            extra = Counter(got) - Counter(expected)
            lost = Counter(expected) - Counter(got)
            assert not extra and not lost, f"{who}: extra {list(extra)[:5]}, missed {list(lost)[:5]}"

        n = len(all_sids)
        print(f"{n} watched submissions in {len(SUBREDDITS)} subreddits; "
              f"{args.per_cycle + 1} new comments, 1 edit, 1 deletion a cycle; local Reddit via praw")
        print(f"{'cycle':>6} {'pbp calls':>10} {'pbp s':>8} {'naive calls':>12} {'naive s':>8}")
        for i, (c, s, nc, ns) in enumerate(rows, 1):
            print(f"{i:>6} {c:>10} {s:>8.3f} {nc:>12} {ns:>8.3f}")
        steady = [r[0] for r in rows]
        naive = [r[2] for r in rows]
        print(f"steady: pbp {max(steady)} calls/cycle (goal {len(SUBREDDITS)} = subreddits), "
              f"naive {min(naive)}-{max(naive)}: {min(naive) / max(steady):.0f}x more")
        print(f"gap (150 comments on 10 submissions of r/dnd): pbp {gap_calls} calls "
              f"({gap_secs:.2f} s) with the num_comments screen, {un_calls} ({un_secs:.2f} s) "
              f"without; naive {naive_gap_calls} ({naive_gap_secs:.2f} s)")
        print(f"cycles after the gaps: {after_calls}, then {steady_again} calls (comments pushed out "
              f"of the window are re-read with /api/info at most once per 10 min per submission)")
        print(f"at Reddit's 100 calls/min per OAuth client: pbp's steady cycle costs "
              f"{max(steady) * 0.6:.0f} s of quota, naive's {min(naive) * 0.6 / 60:.0f} min")
        print(f"every change seen exactly once by both: {len(expected)} changes checked")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
