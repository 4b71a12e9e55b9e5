"""One ingest batch of 26 posts (25 players, the narrator's 25 NPCs), timed over and over
on the same state: each pass rolled back, so every pass does the same work. Made to
compare two checkouts side by side (SCALE-6), where whole runs of ``bench_rounds.py`` on
this shared machine moved by a third from one run to the next:

    git worktree add /tmp/before REV
    (PYTHONPATH=/tmp/before taskset -c 0 python bench/ingest_ab.py --root /tmp/before) &
    (PYTHONPATH=$PWD taskset -c 1 python bench/ingest_ab.py) & wait

Both run at the same time, one a core, so both see the machine in the same state. Printed:
the median CPU of the 26-post batch and of a one-post batch (no commit), and, as the
baseline measured in the same run, ``parse_post`` on the same 26 posts right after each
pass, and the median of the passes' ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(HERE.parent), help="the checkout to measure")
    ap.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    ap.add_argument("--passes", type=int, default=80)
    ap.add_argument("--no-freeze", action="store_true",
                    help="leave the heap unfrozen (a worker freezes it: workers/heap.py)")
    args = ap.parse_args()
    sys.path[:0] = [args.root, str(Path(args.root) / "bench")]
    import bench_rounds as b
    from sqlalchemy.orm import Session

    from pbp.parse import Roster, parse_post
    from pbp.rounds import service
    from pbp.store import models as m
    from pbp.store.db import make_engine, session_scope
    from pbp.store.testing import temporary_database

    with temporary_database(args.db, directory=tempfile.mkdtemp(),
                            postgres_url=b.PG_DEFAULT) as url:
        engine = make_engine(url)
        m.Base.metadata.create_all(engine)
        # bench_rounds.bench_db's setup, written again on purpose: the checkout measured may
        # be an older one, whose bench_rounds has no setup of its own to call
        with session_scope(engine) as s:
            c = m.Campaign(name="A/B", slug="ab", ruleset="forum-d20", round_hours=24,
                           reminder_hours=[])
            s.add(c)
            s.flush()
            t = m.Thread(campaign_id=c.id, kind="file", url="bench://", platform="bbcode",
                         options={"narrators": ["GM"]})
            s.add(t)
            s.flush()
            eid = service.start_encounter(s, t.id, b.roster(50), name="A/B", now=b.T0)
            tid = t.id
        with session_scope(engine) as s:
            rid = service.open_round(s, eid, b.T0)
        now = b.T0
        for r in range(1, 4):   # three rounds played: rolls, hit points, a history
            with session_scope(engine) as s:
                service.ingest_posts(s, tid, b.posts_for(r, 50, now), now=now + timedelta(hours=2))
            now += timedelta(hours=24, minutes=1)
            with session_scope(engine) as s:
                service.resolve_round(s, rid, now)
                rid = service.current_round(s, eid).id
        batch = b.posts_for(4, 50, now)
        if not args.no_freeze:   # as a worker does after its first task (workers/heap.py)
            try:
                from pbp import heap
            except ImportError:   # a checkout from before it: frozen the same way
                import gc

                gc.freeze()
            else:
                heap.freeze()

        def once(posts: list) -> float:   # type: ignore[type-arg]
            s = Session(engine)
            c0 = time.process_time()
            service.ingest_posts(s, tid, posts, now=now + timedelta(hours=2))
            s.flush()
            spent = time.process_time() - c0
            s.rollback()
            s.close()
            return spent

        names = Roster.of(b.roster(50))

        def parse_all() -> float:
            c0 = time.process_time()
            for rec in batch:
                parse_post(rec.text, fmt=rec.fmt, lang="en", roster=names)
            return time.process_time() - c0

        for _ in range(5):
            once(batch)
            parse_all()
        # each pass: the batch, then parse_post on its posts at once (this machine's speed
        # drifts by half within a minute: a ratio of two medians taken a minute apart
        # moved more than the changes it was to measure)
        fulls, parses, ratios = [], [], []
        server0 = _server_cpu()
        for _ in range(args.passes):
            fulls.append(once(batch))
            parses.append(statistics.median(parse_all() for _ in range(3)))
            ratios.append(fulls[-1] / parses[-1])
        server = (_server_cpu() - server0) / args.passes if server0 is not None else None
        one = statistics.median(once(batch[:1]) for _ in range(args.passes))
        engine.dispose()
    full, parse = statistics.median(fulls), statistics.median(parses)
    print(f"{args.root} {args.db}: 26-post batch {full * 1000:.2f} ms "
          f"({full * 1000 / 26:.3f} ms a post), parse_post {parse * 1000 / 26:.3f} ms a post; "
          f"median ratio of each pass {statistics.median(ratios):.2f}x; "
          f"one-post batch {one * 1000:.2f} ms"
          + (f"; PostgreSQL's own CPU {server * 1000:.2f} ms a batch"
             if server is not None and args.db == "postgresql" else ""))


def _server_cpu() -> float | None:
    """CPU seconds (user and system) of every ``postgres`` process on this machine, from
    /proc: what the database server spent on a batch the worker's CPU does not show (a
    statement that moves work to the server must show it here). None without /proc."""
    import os

    total, tick = 0, os.sysconf("SC_CLK_TCK")
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return None
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        if "(postgres)" in stat:
            fields = stat.rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / tick


if __name__ == "__main__":
    main()
