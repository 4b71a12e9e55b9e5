"""Load benchmark of the polling workers against a naive poller, in the same run.

    python bench/bench_workers.py [--threads 1000] [--pages 10] [--cycles 3] [--db URL]
    python bench/bench_workers.py brokers        # embedded brokers: SQLite vs filesystem

A local forum server (machina's page layout, 5 posts a page) serves N threads. By default
it behaves as the real django-machina does (issue 17 item 7): no ETag, no 304, and a fresh
CSRF token in every page, so no two answers are byte-equal; ``--etags`` gives the old,
flattering server (ETag/304 like Django's ConditionalGetMiddleware, stable bodies). pbp
polls with the real per-host interval (``--host-interval``, default the setting's 2 s;
0 for the old figures), which is why the defaults are far fewer threads than a forum
really holds: a cycle of N per-thread polls takes at least 2N seconds. each measured cycle, one new post lands in
10% of them at random moments. Two pollers read it in turn:

* **pbp** — the real task path (``workers.tasks.poll_thread`` with the forum source,
  the thread lease, the store and the service layer's ingest) run in this process, one
  thread after another: one core's worth of worker;
* **naive** — every page of every thread every cycle, no conditional requests, parse
  and diff in memory (no database: it is cheaper per request than the real thing).

Printed per poller: cycle time, HTTP requests and bytes per new post, CPU seconds per
new post, and the median and 95th-percentile delay from a post to its ingestion
(cycles run back to back, so the delay is bounded by the cycle time), with the ratios.
``cycle_cpu_s`` is the CPU one pass costs this process: on a shared machine it, not the
wall-clock ``cycle_s``, says whether one core keeps a one-minute cycle.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import UTC, datetime
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PER_PAGE = 5
FORUM = "adventures-1"
MONTHS = ["Jan.", "Feb.", "March", "April", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec."]
LOREM = ("The torchlight flickers on the wet stone as the party presses on. "
         "I attack the goblin with my longsword [roll]1d20+5[/roll] and shout a warning. ") * 3


# --- the local forum ------------------------------------------------------------------------

def machina_time(dt: datetime) -> str:
    h = dt.hour % 12 or 12
    ampm = "a.m." if dt.hour < 12 else "p.m."
    return f"{MONTHS[dt.month - 1]} {dt.day}, {dt.year}, {h}:{dt.minute:02d} {ampm}"


class Forum:
    def __init__(self, threads: int, posts: int, etags: bool = False) -> None:
        self.etags = etags
        self.lock = threading.Lock()
        self.next_id = 1
        self.topics: dict[int, list[tuple[int, str, datetime, str]]] = {}
        base = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
        for t in range(1, threads + 1):
            self.topics[t] = []
            for i in range(posts):
                self._add(t, f"player{i % 4}", base, LOREM)
        self.requests = 0
        self.bytes = 0
        self.not_modified = 0
        self.times: list[float] = []     # when each request came: the busiest minute
        self.kinds: collections.Counter[str] = collections.Counter()   # topic list / topic pages

    def _add(self, topic: int, author: str, when: datetime, body: str) -> int:
        pid = self.next_id
        self.next_id += 1
        self.topics[topic].append((pid, author, when, body))
        return pid

    def add(self, topic: int, author: str, body: str) -> int:
        with self.lock:
            return self._add(topic, author, datetime.now(UTC), body)

    def listing(self, page: int, per_page: int = 30) -> tuple[str, str] | None:
        """machina's forum view: topics by last post, newest first, each linking its last post."""
        with self.lock:
            rows = sorted(((posts[-1][0], tid) for tid, posts in self.topics.items() if posts), reverse=True)
            version = self.next_id
        pages = max(1, -(-len(rows) // per_page))
        if page < 1 or page > pages:
            return None
        chunk = rows[(page - 1) * per_page: page * per_page]
        items = "".join(
            f'<div class="row"><div class="col-md-6"><a class="topic-name-link" '
            f'href="/forum/forum/{FORUM}/topic/topic-{tid}-{tid}/">Topic {tid}</a></div>'
            f'<div class="col-md-3 topic-last-post"><a href="/forum/forum/{FORUM}/topic/topic-{tid}-{tid}/'
            f'?post={last}#{last}">last post</a></div></div>' for last, tid in chunk)
        nav = (f'<ul class="pagination"><li class="page-item"><a class="page-link" href="?page={page + 1}">'
               f'&raquo;</a></li></ul>' if page < pages else '<ul class="pagination"></ul>')
        html = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Adventures</title></head><body>"
                f"<div class='card'><div class='card-body'>{items}</div></div>{nav}</body></html>")
        return html, hashlib.md5(f"list:{page}:{version}".encode()).hexdigest()

    def page(self, topic: int, page: int) -> tuple[str, str, datetime] | None:
        with self.lock:
            posts = list(self.topics.get(topic, ()))
        if not posts:
            return None
        pages = max(1, -(-len(posts) // PER_PAGE))
        if page < 1 or page > pages:
            return None
        chunk = posts[(page - 1) * PER_PAGE: page * PER_PAGE]
        etag = hashlib.md5(f"{topic}:{page}:{len(posts)}".encode()).hexdigest()
        items = "\n".join(
            f'<div class="card post" id="{pid}"><div class="card-body"><div class="row">'
            f'<div class="col-md-10 post-content-wrapper"><h5 class="m-0"><a href="#{pid}">Re: Topic {topic}</a></h5>'
            f'<p><small class="text-muted"><i class="fas fa-clock"></i>&nbsp;By '
            f'<a href="/member/profile/{author}/">{author}</a> on {machina_time(when)}</small></p>'
            f'<div class="post-content"><p>{body}</p></div></div></div></div></div>'
            for pid, author, when, body in chunk)
        links = "".join(f'<li class="page-item"><a class="page-link" href="?page={n}">{n}</a></li>'
                        for n in range(1, pages + 1))
        token = "" if self.etags else (f"<form><input type='hidden' name='csrfmiddlewaretoken' "
                                       f"value='{os.urandom(24).hex()}'></form>")
        html = (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Topic {topic}</title></head><body>"
                f"<div class='container'>{token}<h1>Topic {topic}</h1>"
                f"<div class='pagination-block'><ul class='pagination'>{links}</ul></div>{items}"
                f"<div class='pagination-block'><ul class='pagination'>{links}</ul></div></div></body></html>")
        return html, etag, chunk[-1][2]


def busiest_minute(times: list[float]) -> int:
    """The most requests in any 60 s window."""
    best, lo = 0, 0
    for hi, t in enumerate(times):
        while t - times[lo] > 60.0:
            lo += 1
        best = max(best, hi - lo + 1)
    return best


def serve(forum: Forum, port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out without a 40 ms delayed-ACK stall

        def log_message(self, *a: Any) -> None:
            pass

        def _send(self, code: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
            # counted before the answer goes out: a client that reads the counters right
            # after its request returns must see it (a 304 has no body to wait for)
            with forum.lock:
                forum.requests += 1
                forum.bytes += len(body) + 200  # ~headers
                forum.not_modified += code == 304
                forum.times.append(time.time())
                forum.kinds[("list" if self.path.split("?")[0].rstrip("/").endswith(FORUM) else "topic")
                            + (f" {code}" if code != 200 else "")] += 1
            self.send_response(code)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body:
                self.wfile.write(body)

        def do_POST(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/_bench/add":
                q = parse_qs(parts.query)
                pid = forum.add(int(q["topic"][0]), q.get("author", ["newcomer"])[0],
                                q.get("body", ["I shoot the goblin [roll]1d20+3[/roll]"])[0])
                body = json.dumps({"id": pid, "at": time.time()}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            self._send(404)

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            if parts.path == "/_bench/stats":
                since = float(parse_qs(parts.query).get("since", ["0"])[0])
                with forum.lock:
                    data = {"requests": forum.requests, "bytes": forum.bytes, "not_modified": forum.not_modified,
                            "busiest_minute": busiest_minute([t for t in forum.times if t >= since]),
                            "kinds": dict(forum.kinds)}
                body = json.dumps(data).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            bits = parts.path.strip("/").split("/")
            if bits == ["forum", "forum", FORUM]:
                got_list = forum.listing(int(parse_qs(parts.query).get("page", ["1"])[0]))
                if got_list is None:
                    return self._send(404)
                html, etag = got_list
                if not forum.etags:
                    return self._send(200, html.encode(), {"Content-Type": "text/html; charset=utf-8"})
                if self.headers.get("If-None-Match") == f'"{etag}"':
                    return self._send(304, headers={"ETag": f'"{etag}"'})
                return self._send(200, html.encode(), {"Content-Type": "text/html; charset=utf-8",
                                                       "ETag": f'"{etag}"'})
            # /forum/forum/<fslug>-<fid>/topic/<tslug>-<tid>/
            if len(bits) >= 5 and bits[0] == "forum" and bits[3] == "topic":
                try:
                    tid = int(bits[4].rsplit("-", 1)[1])
                    page = int(parse_qs(parts.query).get("page", ["1"])[0])
                except (ValueError, IndexError):
                    return self._send(404)
                got = forum.page(tid, page)
                if got is None:
                    return self._send(404, b"<html><body>Not found</body></html>")
                html, etag, modified = got
                if not forum.etags:   # django-machina: no validators, a new token each time
                    return self._send(200, html.encode(), {"Content-Type": "text/html; charset=utf-8"})
                tag = f'"{etag}"'
                if self.headers.get("If-None-Match") == tag:
                    return self._send(304, headers={"ETag": tag})
                return self._send(200, html.encode(), {"Content-Type": "text/html; charset=utf-8",
                                                       "ETag": tag,
                                                       "Last-Modified": format_datetime(modified, usegmt=True)})
            self._send(404)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def start_server(threads: int, posts: int, etags: bool = False) -> tuple[subprocess.Popen[str], int]:
    """The forum in a process of its own, so its CPU is not counted as the pollers'."""
    proc = subprocess.Popen([sys.executable, __file__, "serve", "--threads", str(threads),
                             "--posts", str(posts)] + (["--etags"] if etags else []),
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline().strip())
    return proc, port


def add_post(port: int, topic: int) -> tuple[str, float]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}/_bench/add?topic={topic}", method="POST")
    with urllib.request.urlopen(req) as r:
        data = json.loads(r.read())
    return str(data["id"]), float(data["at"])


def topic_url(port: int, tid: int) -> str:
    return f"http://127.0.0.1:{port}/forum/forum/{FORUM}/topic/topic-{tid}-{tid}/"


def stats(port: int, since: float = 0.0) -> dict[str, int]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_bench/stats?since={since}") as r:
        return json.loads(r.read())


# --- the naive poller --------------------------------------------------------------------

class NaivePoller:
    """Every page of every thread, every cycle; no validators; diff in memory."""

    warm = False  # its first pass costs what every pass costs

    def __init__(self, port: int, threads: int) -> None:
        import requests

        self.http = requests.Session()
        self.port = port
        self.threads = threads
        self.seen: dict[int, set[str]] = {t: set() for t in range(1, threads + 1)}
        self.ingested: dict[str, float] = {}

    def poll(self, tid: int) -> int:
        from bs4 import BeautifulSoup

        new = 0
        page = 1
        while True:
            r = self.http.get(topic_url(self.port, tid), params={"page": page}, timeout=10)
            if r.status_code == 404:
                break
            soup = BeautifulSoup(r.content, "lxml")
            for div in soup.find_all("div", id=True, class_="post"):
                pid = div["id"]
                if pid not in self.seen[tid]:
                    self.seen[tid].add(pid)
                    self.ingested[pid] = time.time()
                    new += 1
            last = max((int(a.text) for a in soup.select(".pagination-block a") if a.text.isdigit()), default=1)
            if page >= last:
                break
            page += 1
        return new

    def cycle(self) -> None:
        for tid in range(1, self.threads + 1):
            self.poll(tid)


# --- pbp's pollers (the real task path, in-process) ----------------------------------------

class PbpPoller:
    """*listing*: threads name their forum's topic list; a pass is one topic-list read
    (polling the threads that grew) plus the full re-read of 1/RECHECK_FACTOR of the
    threads (edits, deletions), as the workers' schedule does."""

    def __init__(self, port: int, threads: int, db_url: str, data_dir: Path, listing: bool = False,
                 host_interval: float = 2.0) -> None:
        from pbp.settings import load_settings
        from pbp.store.db import make_engine, session_scope, upgrade
        from pbp.store.models import Campaign, Thread
        from workers.celery_app import make_celery

        self.settings = load_settings(env={
            "PBP_DATA_DIR": str(data_dir), "PBP_DATABASE_URL": db_url,
            "PBP_BROKER_URL": "memory://", "PBP_MIN_HOST_INTERVAL": str(host_interval),
            "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"})
        upgrade(db_url)
        self.app = make_celery(self.settings, task_always_eager=True)
        self.engine = make_engine(db_url)
        with session_scope(self.engine) as s:
            c = Campaign(name="bench", slug=f"bench-{os.getpid()}", ruleset="forum-d20")
            s.add(c)
            s.flush()
            # a newly watched thread reads back one page, not its whole history
            opts: dict[str, Any] = {"preset": "machina", "allowed_hosts": ["127.0.0.1"], "backfill_pages": 1}
            if listing:
                opts["listing_url"] = f"http://127.0.0.1:{port}/forum/forum/{FORUM}/"
                opts["overrides"] = {"listing": {"max_pages": 40}}
            rows = [Thread(campaign_id=c.id, kind="forum", url=topic_url(port, t), platform="html",
                           options=opts) for t in range(1, threads + 1)]
            s.add_all(rows)
            s.flush()
            self.ids = [r.id for r in rows]
        from pbp.jobs import threads
        from workers import tasks

        self.tasks = tasks
        self.listing = opts.get("listing_url")
        self.recheck = threads.RECHECK_FACTOR
        self.passes = 0

    def cycle(self) -> None:
        if self.listing is None or self.passes == 0:  # per thread (and the first sync)
            for tid in self.ids:
                self.tasks.poll_thread.apply(args=[tid], throw=True)
            if self.listing:
                self.tasks.watch_forum.apply(args=[self.listing], throw=True)  # its first state
        else:
            self.tasks.watch_forum.apply(args=[self.listing], throw=True)
            share = -(-len(self.ids) // self.recheck)
            start = (self.passes * share) % len(self.ids)
            for tid in self.ids[start:start + share]:
                self.tasks.poll_thread.apply(args=[tid], throw=True)
        self.passes += 1

    def ingested(self) -> dict[str, float]:
        from sqlalchemy import select

        from pbp.store.db import session_scope
        from pbp.store.models import Post

        with session_scope(self.engine) as s:
            return {pid: seen.timestamp() for pid, seen in s.execute(select(Post.platform_id, Post.first_seen_at))}


# --- the run -----------------------------------------------------------------------------------

def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def measure(name: str, poller: Any, port: int, threads: int, cycles: int,
            fraction: float, rng: random.Random) -> dict[str, Any]:
    """Passes run back to back. During each measured pass a player thread adds one post
    to 10% of the threads at uniform random moments over the previous pass's duration
    (the pass waits for it), so a post lands at any point of a cycle, as in real life;
    a last pass with no new posts drains what the measured ones missed."""
    t0 = time.perf_counter()
    poller.cycle()                      # initial sync: reads every page once (not measured)
    sync = time.perf_counter() - t0
    window = sync
    if getattr(poller, "warm", True):
        t0 = time.perf_counter()
        poller.cycle()                  # warm pass: its duration sets the first window
        window = time.perf_counter() - t0
    before = stats(port)
    cpu0 = time.process_time()
    posted: dict[str, float] = {}
    durations: list[float] = []
    cpu_passes: list[float] = []
    for c in range(cycles + 1):
        player = None
        if c < cycles:
            picks = rng.sample(range(1, threads + 1), max(1, int(threads * fraction)))
            moments = sorted(rng.uniform(0, window) for _ in picks)

            def play(picks: list[int] = picks, moments: list[float] = moments) -> None:
                start = time.perf_counter()
                for tid, at in zip(picks, moments, strict=True):
                    time.sleep(max(0.0, at - (time.perf_counter() - start)))
                    pid, when = add_post(port, tid)
                    posted[pid] = when

            player = threading.Thread(target=play, daemon=True)
            player.start()
        t, c0 = time.perf_counter(), time.process_time()
        poller.cycle()
        durations.append(time.perf_counter() - t)
        cpu_passes.append(time.process_time() - c0)
        if player is not None:
            player.join()
        window = durations[-1]
    cpu = time.process_time() - cpu0
    after = stats(port)
    ingested = poller.ingested() if callable(getattr(poller, "ingested", None)) else poller.ingested
    delays = [ingested[p] - at for p, at in posted.items() if p in ingested]
    n = len(posted)
    return {
        "poller": name, "initial_sync_s": round(sync, 2),
        "cycle_s": round(statistics.median(durations[:-1] or durations), 2),
        "cycle_cpu_s": round(statistics.median(cpu_passes[:-1] or cpu_passes), 2),
        "new_posts": n, "ingested": len(delays),
        "requests": after["requests"] - before["requests"],
        "bytes": after["bytes"] - before["bytes"],
        "not_modified": after["not_modified"] - before["not_modified"],
        "requests_per_post": round((after["requests"] - before["requests"]) / max(1, n), 2),
        "bytes_per_post": round((after["bytes"] - before["bytes"]) / max(1, n)),
        "cpu_per_post_ms": round(cpu / max(1, n) * 1000, 2),
        "delay_median_s": round(percentile(delays, 0.5), 2),
        "delay_p95_s": round(percentile(delays, 0.95), 2),
    }


def run(args: argparse.Namespace) -> None:
    import tempfile

    server, port = start_server(args.threads, args.pages * PER_PAGE, etags=args.etags)
    rng = random.Random(args.seed)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or f"sqlite:///{tmp}/bench.sqlite"
        try:
            rows.append(measure("pbp", PbpPoller(port, args.threads, db, Path(tmp) / "a",
                                                  host_interval=args.host_interval), port,
                                args.threads, args.cycles, args.fraction, rng))
            db2 = args.db or f"sqlite:///{tmp}/bench-listing.sqlite"
            if args.db:  # a second campaign in the same database: fresh rows, fresh cursors
                db2 = args.db
            rows.append(measure("pbp+listing", PbpPoller(port, args.threads, db2, Path(tmp) / "b",
                                                         listing=True, host_interval=args.host_interval), port,
                                args.threads, args.cycles, args.fraction, rng))
            rows.append(measure("naive", NaivePoller(port, args.threads), port,
                                args.threads, args.naive_cycles or args.cycles, args.fraction, rng))
        finally:
            server.terminate()
            server.wait()
    print(f"{args.threads} threads x {args.pages} pages, {int(args.fraction * 100)}% with a new post a cycle, "
          f"{args.cycles} cycles (+1 drain), db={'given' if args.db else 'sqlite'}, "
          f"host interval {args.host_interval} s, forum {'with ETags' if args.etags else 'as machina: no ETag, a token per page'}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    keys = ["cycle_s", "cycle_cpu_s", "requests_per_post", "bytes_per_post", "cpu_per_post_ms",
            "delay_median_s", "delay_p95_s", "new_posts", "ingested", "not_modified", "initial_sync_s"]
    naive = rows[-1]
    print(f"{'':22}" + "".join(f"{r['poller']:>14}" for r in rows)
          + "".join(f"{'naive/' + r['poller']:>20}" for r in rows[:-1]))
    for k in keys:
        ratios = "".join(f"{(naive[k] / r[k]):>19.1f}x" if isinstance(r[k], (int, float)) and r[k] else f"{'-':>20}"
                         for r in rows[:-1])
        print(f"{k:22}" + "".join(f"{r[k]:>14}" for r in rows) + ratios)
    print(json.dumps(rows))


# --- one forum of 1,000 threads through its topic list (SCALE-2) -------------------------------

def topic_list_run(args: argparse.Namespace) -> None:
    """1,000 threads on one machina-like forum (no ETag, a fresh token per page), watched the
    way the service watches them by default: the topic list found from the machina preset
    (no ``listing_url`` in any thread's options). The real task path in this process, as
    one worker with the real host interval: ``workers.tasks.dispatch_polls`` every
    dispatch interval (eager Celery: its ``watch_forum`` and ``poll_thread`` run inline).

    Not measured: the first read of every thread (1,000 requests, 33 minutes at 2 s a
    request), done beforehand with no host interval through the same task; then, as a
    steady state has them, each thread's next recheck is spread over its recheck interval
    and its last full read (every page, for edits) over the last ``full_reread_hours``. Measured for ``--minutes``: a player posts ``--posts-per-minute`` new posts in
    random topics at random moments; then the posting stops and the polling goes on for
    one poll interval to drain. Printed: the median and p95 post -> ingest delay against
    the poll interval, and the requests to the host in the busiest minute against the 30 a
    2 s interval allows."""
    import tempfile
    from datetime import timedelta

    from sqlalchemy import func, select, update

    from pbp.jobs.listings import listing_of
    from pbp.jobs.threads import recheck_interval
    from pbp.settings import load_settings
    from pbp.sources.http import reset_host_intervals
    from pbp.store.budget import forget_shared_budgets
    from pbp.store.db import make_engine, session_scope, upgrade
    from pbp.store.models import Campaign, Post, Thread
    from workers import runtime as rtm
    from workers import tasks
    from workers.celery_app import dispatch_interval, make_celery

    server, port = start_server(args.threads, args.pages * PER_PAGE)
    rng = random.Random(args.seed)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db = args.db or f"sqlite:///{tmp}/bench-list.sqlite"
            env = {"PBP_DATA_DIR": f"{tmp}/data", "PBP_DATABASE_URL": db, "PBP_BROKER_URL": "memory://",
                   "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1", "PBP_POLL_INTERVAL": str(args.poll_interval)}
            upgrade(db)
            engine = make_engine(db)
            opts: dict[str, Any] = {"preset": "machina", "allowed_hosts": ["127.0.0.1"], "backfill_pages": 1}
            with session_scope(engine) as s:
                c = Campaign(name="bench", slug=f"bench-list-{os.getpid()}", ruleset="forum-d20")
                s.add(c)
                s.flush()
                rows = [Thread(campaign_id=c.id, kind="forum", url=topic_url(port, t), platform="html",
                               options=dict(opts)) for t in range(1, args.threads + 1)]
                s.add_all(rows)
                s.flush()
                ids = [r.id for r in rows]
            choice = listing_of("forum", topic_url(port, 1), opts)
            assert choice.url, choice.reason
            # the unmeasured first reads, with no host interval, through the same tasks
            fast = load_settings(env={**env, "PBP_MIN_HOST_INTERVAL": "0"})
            make_celery(fast, task_always_eager=True)
            t0 = time.perf_counter()
            for tid in ids:
                tasks.poll_thread.apply(args=[tid], throw=True)
            tasks.watch_forum.apply(args=[choice.url], throw=True)
            warm_s = time.perf_counter() - t0
            settings = load_settings(env={**env, "PBP_MIN_HOST_INTERVAL": str(args.host_interval)})
            now = datetime.now(UTC)
            with session_scope(engine) as s:   # each full re-read somewhere in its recheck interval
                last = dict(s.execute(select(Post.thread_id, func.max(Post.posted_at)).group_by(Post.thread_id)).all())
                cursors = dict(s.execute(select(Thread.id, Thread.cursor)).all())
                full_every = settings.full_reread_hours * 3600
                for tid in ids:
                    quiet = (now - last.get(tid, now).replace(tzinfo=UTC)).total_seconds()
                    span = recheck_interval(args.poll_interval, quiet, settings)
                    # its last full read (every page: edits) somewhere in the last full_reread_hours
                    cursor = {**(cursors.get(tid) or {}),
                              "full_at": now.timestamp() - rng.uniform(0, full_every)}
                    s.execute(update(Thread).where(Thread.id == tid)
                              .values(next_poll=now + timedelta(seconds=rng.uniform(0, span)), cursor=cursor))
            with session_scope(engine) as s:
                seeded = [at for (at,) in s.execute(select(Thread.next_poll))]
            reset_host_intervals()
            forget_shared_budgets()
            app = make_celery(settings, task_always_eager=True)
            rtm.runtime(settings)
            beat = dispatch_interval(settings)
            posted: dict[str, float] = {}
            stop = threading.Event()

            def player() -> None:
                gap = 60.0 / args.posts_per_minute
                while not stop.wait(rng.expovariate(1.0 / gap)):
                    pid, when = add_post(port, rng.randint(1, args.threads))
                    posted[pid] = when

            def ingested() -> dict[str, float]:
                with session_scope(engine) as s:
                    return {pid: at.replace(tzinfo=UTC).timestamp()
                            for pid, at in s.execute(select(Post.platform_id, Post.first_seen_at))}

            before = stats(port)
            cpu0, r0 = time.process_time(), before["requests"]
            start = time.time()
            threading.Thread(target=player, daemon=True).start()
            end_posting = start + args.minutes * 60
            drain_until = end_posting + 3 * args.poll_interval   # at most: then what is missing is missed
            while time.time() < drain_until:
                if time.time() >= end_posting:
                    stop.set()
                    if set(posted) <= set(ingested()):
                        break
                tick = time.time()
                tasks.dispatch_polls.apply(throw=True)
                time.sleep(max(0.0, beat - (time.time() - tick)))
            stop.set()
            elapsed = time.time() - start
            cpu = time.process_time() - cpu0
            after = stats(port, since=start)
            total, busiest = after["requests"] - r0, after["busiest_minute"]
            seen = ingested()
            with session_scope(engine) as s:
                polled = sum(1 for (at,) in s.execute(select(Thread.last_poll))
                             if at is not None and at.replace(tzinfo=UTC).timestamp() >= start)
            rechecks_due = sum(1 for at in seeded if at is not None
                               and at.replace(tzinfo=UTC).timestamp() <= start + elapsed)
            with session_scope(engine) as s:
                from pbp.store.polling import listing_reads as reads_of
                listing_reads = [round(t - start, 1) for t in reads_of(s, [choice.url]).get(choice.url, [])]
            delays = [seen[p] - at for p, at in posted.items() if p in seen]
            del app
    finally:
        server.terminate()
        server.wait()
    med = percentile(delays, 0.5)
    print(f"{args.threads} threads on one forum through its topic list (found from the machina preset), "
          f"{args.minutes} min of posting + {elapsed - args.minutes * 60:.0f} s drain, {args.posts_per_minute} posts a minute, "
          f"poll interval {args.poll_interval} s, host interval {args.host_interval} s, forum as machina "
          f"(no ETag, a token per page), db={'given' if args.db else 'sqlite'}; first reads (not measured) "
          f"{warm_s:.0f} s with no interval; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    row = {"posts": len(posted), "ingested": len(delays), "delay_median_s": round(med, 1),
           "delay_p95_s": round(percentile(delays, 0.95), 1), "poll_interval_s": args.poll_interval,
           "median_vs_interval": round(med / args.poll_interval, 2),
           "requests_per_min": round(total / (elapsed / 60), 1), "busiest_minute_requests": busiest,
           "budget_per_min": round(60 / args.host_interval, 1) if args.host_interval > 0 else None,
           "cpu_s_per_min": round(cpu / (elapsed / 60), 2),
           "requests_by_kind": {k: v - before["kinds"].get(k, 0) for k, v in after["kinds"].items()},
           "listing_reads": listing_reads, "threads_polled": polled, "rechecks_due": rechecks_due}
    for k, v in row.items():
        print(f"{k:26}{v}")
    print(json.dumps(row))


# --- embedded brokers ---------------------------------------------------------------------------

BROKER_TASKS = r'''
import os, time
from celery import Celery
broker = os.environ["BB_BROKER"]
interval = float(os.environ.get("BB_INTERVAL", "1.0"))
opts = {}
if broker.startswith("sqla+"):
    import kombu.transport.sqlalchemy as t
    t.Transport.polling_interval = interval
else:
    d = os.environ["BB_DIR"]
    for s in ("out", "processed"):
        os.makedirs(os.path.join(d, s), exist_ok=True)
    opts = {"data_folder_in": os.path.join(d, "out"), "data_folder_out": os.path.join(d, "out"),
            "processed_folder": os.path.join(d, "processed"), "store_processed": False,
            "polling_interval": interval}
app = Celery("bb", broker=broker)
app.conf.broker_transport_options = opts
app.conf.task_ignore_result = True

@app.task(name="bb.mark")
def mark(i, sent):
    with open(os.environ["BB_OUT"], "a") as f:
        f.write(f"{i} {sent} {time.time()}\n")
'''


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def broker_run(kind: str, interval: float, workdir: Path) -> dict[str, Any]:
    import importlib

    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "bb_tasks.py").write_text(BROKER_TASKS)
    out = workdir / "out.txt"
    broker = f"sqla+sqlite:///{workdir}/broker.sqlite" if kind == "sqlite" else "filesystem://"
    env = dict(os.environ, BB_BROKER=broker, BB_INTERVAL=str(interval), BB_DIR=str(workdir),
               BB_OUT=str(out), PYTHONPATH=str(workdir))
    os.environ.update({k: env[k] for k in ("BB_BROKER", "BB_INTERVAL", "BB_DIR", "BB_OUT")})
    sys.path.insert(0, str(workdir))
    bt = importlib.import_module("bb_tasks")
    bt = importlib.reload(bt)
    w = subprocess.Popen([sys.executable, "-m", "celery", "-A", "bb_tasks", "worker", "-P", "solo",
                          "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "warning"],
                         env=env, cwd=workdir, stdout=open(workdir / "w.log", "w"), stderr=subprocess.STDOUT)
    try:
        bt.mark.delay(-1, time.time())
        t0 = time.time()
        while time.time() - t0 < 30 and not (out.exists() and out.read_text()):
            time.sleep(0.05)
        for i in range(40):                      # round trips, one at a time
            bt.mark.delay(i, time.time())
            time.sleep(0.1)
        time.sleep(max(2.0, interval * 3))
        c0 = _cpu(w.pid)
        time.sleep(5)
        idle = (_cpu(w.pid) - c0) / 5
        tb = time.time()
        for i in range(1000, 1300):              # a burst of 300
            bt.mark.delay(i, time.time())
        deadline = time.time() + 120
        while time.time() < deadline and w.poll() is None:
            if sum(1 for ln in out.read_text().splitlines() if int(ln.split()[0]) >= 1000) >= 300:
                break
            time.sleep(0.05)
        alive = w.poll() is None
    finally:
        w.terminate()
        try:
            w.wait(10)
        except subprocess.TimeoutExpired:
            w.kill()
        sys.path.remove(str(workdir))
    lines = [ln.split() for ln in out.read_text().splitlines()]
    lat = sorted((float(b) - float(a)) * 1000 for i, a, b in lines if 0 <= int(i) < 1000)
    burst = [float(b) for i, _, b in lines if int(i) >= 1000]
    ids = [int(i) for i, _, _ in lines]
    return {"broker": kind, "polling_s": interval, "rtt_median_ms": round(percentile(lat, 0.5), 1),
            "rtt_p95_ms": round(percentile(lat, 0.95), 1), "burst_done": len(burst),
            "tasks_per_s": round(len(burst) / (max(burst) - tb), 1) if burst else 0.0,
            "idle_cpu_pct": round(idle * 100, 1), "worker_alive": alive,
            "duplicates": len(ids) - len(set(ids)),
            "json_errors": "JSONDecodeError" in (workdir / "w.log").read_text()}


def brokers(args: argparse.Namespace) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("sqlite", "filesystem"):
            for interval in (1.0, 0.1, 0.01):
                for rep in range(args.reps):
                    row = broker_run(kind, interval, Path(tmp) / f"{kind}-{interval}-{rep}")
                    print(json.dumps(row), flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd")
    b = sub.add_parser("brokers")
    b.add_argument("--reps", type=int, default=3)
    sv = sub.add_parser("serve")
    sv.add_argument("--threads", type=int, default=1000)
    sv.add_argument("--posts", type=int, default=50)
    sv.add_argument("--etags", action="store_true")
    p.add_argument("--threads", type=int, default=30)
    p.add_argument("--pages", type=int, default=3)
    p.add_argument("--host-interval", type=float, default=2.0,
                   help="seconds between two requests to the forum (the setting's default; 0: the old bench)")
    p.add_argument("--etags", action="store_true", help="the forum answers ETag/304 (flattering)")
    p.add_argument("--cycles", type=int, default=3)
    p.add_argument("--naive-cycles", type=int, default=0, help="default: --cycles")
    p.add_argument("--fraction", type=float, default=0.1)
    p.add_argument("--db", default=None, help="database URL for pbp (default: a temporary SQLite file)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--topic-list", action="store_true",
                   help="SCALE-2: one forum's threads through its topic list, found from the preset")
    p.add_argument("--minutes", type=float, default=3.0, help="--topic-list: minutes of posting measured")
    p.add_argument("--posts-per-minute", type=float, default=5.0, help="--topic-list: new posts a minute")
    p.add_argument("--poll-interval", type=int, default=60, help="--topic-list: the poll interval setting")
    args = p.parse_args()
    if args.topic_list:
        topic_list_run(args)
    elif args.cmd == "brokers":
        brokers(args)
    elif args.cmd == "serve":
        server = serve(Forum(args.threads, args.posts, etags=args.etags), 0)
        print(server.server_address[1], flush=True)
        threading.Event().wait()
    else:
        run(args)


if __name__ == "__main__":
    main()
