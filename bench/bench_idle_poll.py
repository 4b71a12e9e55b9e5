"""What an idle forum poll costs, against a bare conditional GET of the same page (SCALE-3).

    nice python bench/bench_idle_poll.py [--polls 30] [--reps 3] [--host-interval 2]
                                         [--db URL] [--no-redis] [--machina] [--worker]

A local forum (bench_workers' server, one topic of five posts) serves the page. In the same
run, interleaved, CPU seconds of this process per request:

* **bare GET** — ``requests.get(page, headers={"If-None-Match": etag})`` (a new
  connection each time, as the issue states the baseline), and ``session.get`` on one
  kept-alive session, the cheapest HTTP there is;
* **spaced** — each of the two after the host interval of idleness, as a worker really
  polls (caches gone cold: a first request costs about twice a back-to-back one);
* **idle poll** — ``pbp.jobs.threads.poll_thread`` on the watched thread (the lease, the
  read of its target, the forum source, the conditional GET, the one write of cursor and
  ``last_poll``), with the real per-host interval and its shared budget;
* with ``--worker``, the same poll sent as the ``pbp.poll_thread`` task through the broker to
  a real ``celery worker -P solo``: the worker's CPU (``/proc``) per poll.

By default the forum answers ETag/304 (the cheapest idle poll); ``--machina`` makes it
answer as django-machina does (no validators, a fresh CSRF token per page: the baseline
is then a plain GET of the page, and the poll hashes it). Leases and the host budget go
to Redis unless ``--no-redis`` (then both live in the database); a poll's own lease beside
a SQLite file is the file's record lock either way (``workers/session_locks.py``), and an
advisory lock with ``--no-redis --db postgresql://...``. The write transactions of one
idle poll are counted with a SQLAlchemy event listener on the poll's engine.
Targets (issue 17): idle poll CPU at most 2x the bare conditional GET in process, at
most 4x through worker and broker.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_workers as bw  # noqa: E402  (the forum server lives there)


class WriteCounter:
    """Transactions that wrote (INSERT/UPDATE/DELETE) on an engine, by SQLAlchemy events."""

    def __init__(self, engine: Any) -> None:
        from sqlalchemy import event

        self.writes = 0
        self.transactions = 0
        self._dirty: set[int] = set()
        event.listen(engine, "before_cursor_execute", self._stmt)
        event.listen(engine, "commit", self._end)
        event.listen(engine, "rollback", self._end)

    def _stmt(self, conn: Any, cursor: Any, statement: str, *a: Any) -> None:
        if statement.lstrip()[:6].upper() in {"INSERT", "UPDATE", "DELETE"}:
            self._dirty.add(id(conn))

    def _end(self, conn: Any) -> None:
        self.transactions += 1
        if id(conn) in self._dirty:
            self._dirty.discard(id(conn))
            self.writes += 1


def settings_env(data: Path, db: str, host_interval: float, redis: bool) -> dict[str, str]:
    env = {"PBP_DATA_DIR": str(data), "PBP_DATABASE_URL": db,
           "PBP_MIN_HOST_INTERVAL": str(host_interval), "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1",
           "PBP_BROKER_URL": "redis://127.0.0.1:6379/11" if redis else f"sqla+sqlite:///{data}/broker.sqlite",
           "PBP_BROKER_KEYPREFIX": f"bench{os.getpid()}:"}
    if redis:
        env["PBP_RATE_BUDGET_URL"] = "redis://127.0.0.1:6379/11"
    return env


def watched_thread(settings: Any, port: int) -> int:
    from pbp.store.db import make_engine, session_scope, upgrade
    from pbp.store.models import Campaign, Thread

    upgrade(settings.database_url)
    with session_scope(make_engine(settings.database_url)) as s:
        c = Campaign(name="idle", slug=f"idle-{os.getpid()}-{time.time_ns()}", ruleset="forum-d20")
        s.add(c)
        s.flush()
        t = Thread(campaign_id=c.id, kind="forum", url=bw.topic_url(port, 1), platform="html",
                   options={"preset": "machina", "allowed_hosts": ["127.0.0.1"], "listing_url": ""})
        s.add(t)
        s.flush()
        return int(t.id)


def cpu_per(fn: Any, n: int) -> float:
    c0 = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - c0) / n


def proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def in_process(args: argparse.Namespace, port: int, page: str, env: dict[str, str]) -> dict[str, Any]:
    import requests

    from pbp.jobs import threads
    from pbp.settings import load_settings
    from workers.runtime import runtime

    settings = load_settings(env=env)
    tid = watched_thread(settings, port)
    rt = runtime(settings)
    threads.poll_thread(rt, tid)                 # the first read: the cursor and its validators
    first = requests.get(page, timeout=10)
    etag = first.headers.get("ETag")
    headers = {"If-None-Match": etag} if etag else {}
    session = requests.Session()
    counter = WriteCounter(rt.engine)

    def bare() -> None:
        r = requests.get(page, headers=headers, timeout=10)
        assert r.status_code in (200, 304)

    def kept() -> None:
        r = session.get(page, headers=headers, timeout=10)
        assert r.status_code in (200, 304)

    def poll() -> None:
        out = threads.poll_thread(rt, tid)
        assert out.error is None and out.stored == 0, out

    def spaced(fn: Any) -> float:
        """CPU of one call after the host interval of idleness, as a worker polls: caches
        gone cold cost a first request about twice a back-to-back one."""
        time.sleep(args.host_interval)
        c0 = time.process_time()
        fn()
        return time.process_time() - c0

    bare_cpu, kept_cpu, poll_cpu, bare_sp, poll_sp = [], [], [], [], []
    w0, s0 = counter.writes, bw.stats(port)["requests"]
    for _ in range(args.reps):
        bare_cpu.append(cpu_per(bare, args.polls))
        kept_cpu.append(cpu_per(kept, args.polls))
        poll_cpu.append(cpu_per(poll, args.polls))
        pairs = [(spaced(bare), spaced(poll)) for _ in range(args.polls)]
        bare_sp.append(statistics.mean(b for b, _ in pairs))
        poll_sp.append(statistics.mean(p for _, p in pairs))
    polls = 2 * args.reps * args.polls
    requests_made = bw.stats(port)["requests"] - s0 - 3 * args.reps * args.polls
    return {"thread": tid, "bare_get_ms": statistics.median(bare_cpu) * 1000,
            "session_get_ms": statistics.median(kept_cpu) * 1000,
            "idle_poll_ms": statistics.median(poll_cpu) * 1000,
            "bare_get_spaced_ms": statistics.median(bare_sp) * 1000,
            "idle_poll_spaced_ms": statistics.median(poll_sp) * 1000,
            "writes_per_poll": (counter.writes - w0) / polls,
            "requests_per_poll": requests_made / polls}


def through_worker(args: argparse.Namespace, port: int, tid: int, env: dict[str, str],
                   data: Path) -> dict[str, Any]:
    from pbp.settings import load_settings
    from workers.celery_app import make_celery

    full = dict(os.environ, **env, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    log = open(data / "worker.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker", "-P", "solo",
                             "-l", "warning", "--without-gossip", "--without-mingle", "--without-heartbeat",
                             "-n", f"idle-{os.getpid()}@%h"], env=full, stdout=log, stderr=subprocess.STDOUT)
    import workers.tasks  # noqa: F401  (registers the tasks on the app)

    app = make_celery(load_settings(env=env))
    poll = app.tasks["pbp.poll_thread"]
    try:
        def one() -> None:
            before = bw.stats(port)["requests"]
            poll.delay(tid)
            deadline = time.time() + 60
            while bw.stats(port)["requests"] == before:
                if time.time() > deadline or proc.poll() is not None:
                    raise RuntimeError("the worker did not poll: see " + str(data / "worker.log"))
                time.sleep(0.02)
        one()
        time.sleep(max(1.0, float(env["PBP_MIN_HOST_INTERVAL"])))
        per = []
        for _ in range(args.reps):
            c0 = proc_cpu(proc.pid)
            for _ in range(args.polls):
                one()
            time.sleep(0.3)         # the last poll's write and ack
            per.append((proc_cpu(proc.pid) - c0) / args.polls)
        idle0 = proc_cpu(proc.pid)
        time.sleep(5)
        idle = (proc_cpu(proc.pid) - idle0) / 5
    finally:
        proc.terminate()
        proc.wait(20)
        log.close()
    return {"worker_poll_ms": statistics.median(per) * 1000, "worker_idle_cpu_per_s_ms": idle * 1000}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--polls", type=int, default=30, help="polls a repetition")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--host-interval", type=float, default=2.0)
    p.add_argument("--db", default=None, help="database URL (default: a temporary SQLite file)")
    p.add_argument("--no-redis", action="store_true", help="leases and budget in the database")
    p.add_argument("--machina", action="store_true", help="no ETag, a fresh token per page")
    p.add_argument("--worker", action="store_true", help="also through a celery worker and the broker")
    args = p.parse_args()
    server, port = bw.start_server(1, 5, etags=not args.machina)
    page = bw.topic_url(port, 1) + "?page=1"
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db = args.db or f"sqlite:///{tmp}/idle.sqlite"
            env = settings_env(Path(tmp), db, args.host_interval, not args.no_redis)
            row = in_process(args, port, page, env)
            print(json.dumps(row), flush=True)
            if args.worker:
                row.update(through_worker(args, port, row["thread"], env, Path(tmp)))
    finally:
        server.terminate()
        server.wait()
    print(f"idle poll of one thread, {args.reps} x {args.polls} polls, host interval {args.host_interval} s, "
          f"db={'given' if args.db else 'sqlite'}, leases+budget in {'the database' if args.no_redis else 'Redis'}, "
          f"forum {'as machina: no ETag, a token per page' if args.machina else 'with ETag/304'}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    base = row["bare_get_ms"]
    print(f"{'bare requests.get (baseline)':34}{base:8.3f} ms CPU")
    print(f"{'session.get, kept alive':34}{row['session_get_ms']:8.3f} ms CPU  {row['session_get_ms'] / base:5.2f}x")
    print(f"{'idle poll, in process':34}{row['idle_poll_ms']:8.3f} ms CPU  {row['idle_poll_ms'] / base:5.2f}x"
          f"   (target <= 2x; {row['writes_per_poll']:.2f} write transactions, "
          f"{row['requests_per_poll']:.2f} requests a poll)")
    sp = row["bare_get_spaced_ms"]
    print(f"{'bare requests.get, spaced':34}{sp:8.3f} ms CPU  {sp / base:5.2f}x   (after the host interval idle)")
    print(f"{'idle poll, spaced':34}{row['idle_poll_spaced_ms']:8.3f} ms CPU  {row['idle_poll_spaced_ms'] / base:5.2f}x"
          f" the hot baseline, {row['idle_poll_spaced_ms'] / sp:5.2f}x the spaced one (target <= 2x)")
    if "worker_poll_ms" in row:
        print(f"{'idle poll, worker + broker':34}{row['worker_poll_ms']:8.3f} ms CPU  "
              f"{row['worker_poll_ms'] / base:5.2f}x the hot baseline, {row['worker_poll_ms'] / sp:5.2f}x the spaced one "
              f"(target <= 4x; worker idle "
              f"{row['worker_idle_cpu_per_s_ms']:.2f} ms CPU a second)")
    print(json.dumps(row))


if __name__ == "__main__":
    main()
