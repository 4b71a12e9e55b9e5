"""Reddit calls per cycle through the workers' path, 1,000 watched submissions (issue 17 item 1).

    python bench/bench_reddit_workers.py [--subs 200] [--cycles 3] [--per-cycle 20]

The path the service runs: threads in a SQLite database, ``pbp.jobs.dispatch.due_polls``
(what the ``dispatch_polls`` beat task calls), then what it sends, run in process
(``subreddits.check_subreddit`` per subreddit group; ``threads.poll_thread`` per thread),
on the local Reddit (tests/harness/reddit_server.py) through the real praw client, with
real leases. Two databases of the same 1,000 submissions in 5 subreddits, in the same run:

* grouped   — the default: one cycle per subreddit;
* baseline  — the same threads with ``poll = "thread"``: one poll per submission, as
              every Reddit thread was polled before.

Each cycle lands *per-cycle* new comments on random watched submissions; both must store
exactly those (checked). Prints calls per cycle, CPU seconds per cycle, the ratios, and
the load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from pbp.jobs import dispatch, subreddits, threads  # noqa: E402
from pbp.jobs.resources import utcnow  # noqa: E402
from pbp.jobs.schedule import backoff  # noqa: E402
from pbp.settings import Settings, load_settings  # noqa: E402
from pbp.store import db as store  # noqa: E402
from pbp.store.models import Campaign, Post, Thread  # noqa: E402
from workers.locks import DatabaseLease  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from bench_reddit import server_module  # noqa: E402

FIXTURES = ROOT.parent / "shared" / "fixtures" / "reddit"
SUBREDDITS = ["dnd", "pathfinder", "osr", "rpg", "pbp"]


class Res:
    """What a worker process holds (``workers.runtime.Runtime``), for one database."""

    def __init__(self, settings: Settings, url: str) -> None:
        store.upgrade(url)
        self.settings = settings
        self.engine = store.make_engine(url)
        self.leases = DatabaseLease(self.engine)

    def backoff(self, retries: int, retry_after: float | None = None) -> float:
        return backoff(retries, retry_after, base=1, cap=60)


def add_threads(res: Res, watched: dict[str, list[str]], options: dict[str, Any]) -> None:
    with store.session_scope(res.engine) as s:
        campaign = Campaign(name="Bench", slug="bench", ruleset="dnd5e")
        s.add(campaign)
        for sub, sids in watched.items():
            for sid in sids:
                s.add(Thread(campaign=campaign, kind="reddit", platform="markdown", options=dict(options),
                             url=f"https://www.reddit.com/r/{sub}/comments/{sid}/fight/"))


def run_cycle(res: Res, at: Any) -> tuple[int, int]:
    """One dispatcher tick and what it sends: (posts stored, messages sent)."""
    due = dispatch.due_polls(res, at)
    stored = sum(subreddits.check_subreddit(res, key) for key in due.subreddits)
    stored += sum(threads.poll_thread(res, tid).stored for tid, _ in due.threads)
    return stored, len(due.subreddits) + len(due.threads)


def stored_posts(res: Res) -> int:
    with store.session_scope(res.engine) as s:
        return int(s.scalar(select(func.count()).select_from(Post)) or 0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--subs", type=int, default=200, help="watched submissions per subreddit")
    ap.add_argument("--cycles", type=int, default=3)
    ap.add_argument("--per-cycle", type=int, default=20)
    args = ap.parse_args()
    if not FIXTURES.is_dir():
        sys.exit(f"{FIXTURES} is absent: the local Reddit builds its shapes from those cassettes")
    rnd = random.Random(17)
    server = server_module().RedditServer(FIXTURES, ratelimit_headers=False).start()
    tmp = Path(tempfile.mkdtemp(prefix="pbp-bench-reddit-"))
    try:
        for key, value in {"CLIENTID": "bench", "CLIENTSECRET": "bench", "USERNAME": "pbp_bot",
                           "PASSWORD": "pw"}.items():
            os.environ[f"PBP_SECRET_REDDIT__COM_{key}"] = value
        settings = load_settings(env={"PBP_DATA_DIR": str(tmp), "PBP_POLL_INTERVAL": "60",
                                      "PBP_REDDIT_OAUTH_URL": server.url, "PBP_REDDIT_URL": server.url,
                                      "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})
        watched = {name: [server.add_submission(name, author="narrator") for _ in range(args.subs)]
                   for name in SUBREDDITS}
        start = server.now()
        for name in SUBREDDITS:                      # unwatched chatter fills each window
            chatter = server.add_submission(name, title="Weekly chat", created_utc=start - 3600)
            for i in range(150):
                server.add_comment(chatter, f"chatter {i}", author="someone",
                                   created_utc=start - 3000 + 20 * i)
        grouped = Res(settings, f"sqlite:///{tmp / 'grouped.sqlite'}")
        baseline = Res(settings, f"sqlite:///{tmp / 'baseline.sqlite'}")
        add_threads(grouped, watched, {})
        add_threads(baseline, watched, {"poll": "thread"})
        all_sids = [sid for sids in watched.values() for sid in sids]
        now = utcnow()
        tick = 0
        warmup = []                                  # grouped: first reads spread over cycles
        while len(warmup) < 60:
            before = server.count()
            run_cycle(grouped, now + timedelta(seconds=67 * tick))
            warmup.append(server.count() - before)
            tick += 1
            if warmup[-1] <= len(SUBREDDITS) and len(warmup) > 1:
                break
        before = server.count()
        run_cycle(baseline, now)                     # baseline: every tree at once
        baseline_first = server.count() - before
        rows = []
        expected = 0
        for n in range(tick, tick + args.cycles):
            server.advance(30)
            for _ in range(args.per_cycle):
                server.add_comment(rnd.choice(all_sids), "I attack [roll]1d20+5[/roll]",
                                   author=f"player{rnd.randrange(50)}")
            expected += args.per_cycle
            row = []
            for res in (grouped, baseline):
                # past the 60 s interval and its jitter, and never behind the wall clock: a
                # group's next check is saved from the real time of its last read, and the
                # baseline's 1,000 paced calls take about ten real minutes a cycle
                at = max(now + timedelta(seconds=67 * n), utcnow() + timedelta(seconds=67))
                before = server.count()
                cpu = time.process_time()
                stored, sent = run_cycle(res, at)
                row.append((server.count() - before, time.process_time() - cpu, stored, sent))
            rows.append(row)
        for name, res in (("grouped", grouped), ("baseline", baseline)):
            got = stored_posts(res)
            assert got == expected, f"{name}: stored {got} posts, expected {expected}"
        load = os.getloadavg()
        print(f"{len(all_sids)} watched submissions in {len(SUBREDDITS)} subreddits, "
              f"{args.per_cycle} new comments a cycle; workers' path on SQLite, local Reddit via praw; "
              f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores)")
        print(f"{'cycle':>5} {'grouped calls':>14} {'msgs':>5} {'CPU s':>7} "
              f"{'baseline calls':>15} {'msgs':>5} {'CPU s':>7}")
        for i, ((gc, gs, _, gm), (bc, bs, _, bm)) in enumerate(rows, 1):
            print(f"{i:>5} {gc:>14} {gm:>5} {gs:>7.2f} {bc:>15} {bm:>5} {bs:>7.2f}")
        g_calls = max(r[0][0] for r in rows)
        b_calls = min(r[1][0] for r in rows)
        g_cpu = sum(r[0][1] for r in rows) / len(rows)
        b_cpu = sum(r[1][1] for r in rows) / len(rows)
        print(f"calls per cycle: grouped {g_calls} = {g_calls / len(SUBREDDITS):.2f}x the number of "
              f"subreddits (goal at most 1.05x); baseline {b_calls}: {b_calls / g_calls:.0f}x more")
        print(f"CPU per cycle: grouped {g_cpu:.2f} s, baseline {b_cpu:.2f} s ({b_cpu / g_cpu:.1f}x)")
        print(f"at a 60 s interval: grouped {g_calls} calls a minute (Reddit allows 100), "
              f"baseline {b_calls}")
        print(f"first reads of {len(all_sids)} new submissions: grouped {len(warmup) - 1} cycles of "
              f"{max(warmup)} calls at most (budget {settings.reddit_calls_per_minute:g} a minute), "
              f"{sum(warmup)} calls in all; baseline one cycle of {baseline_first} calls")
        print(f"every new comment stored exactly once by both: {expected} checked")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
