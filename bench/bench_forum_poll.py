"""Polling 200 watched threads on a real django-machina forum: pbp vs a naive poller.

    python bench/bench_forum_poll.py [--cycles 3] [--changing 0.10] [--modes plain,etag]

The forum is the harness's (tests/harness/machina/, set up by its setup.sh): 200 topics of
1-12 posts in forum "Bench", 5 posts a page. Before each cycle 10% of the topics get a
new post (through Django's ORM, like players posting); then, in the same run and on the
same forum state, each poller looks for what is new:

* naive       — every page of every thread, every cycle, no validators, full parse;
* per-thread  — pbp's ForumSource.fetch on every thread (last page only, conditional
                GET when the forum sends validators, page hash otherwise);
* pbp         — pbp's ForumWatcher (one topic-list request tells which threads changed)
                then ForumSource.fetch on those threads only.

Every poller must find exactly the same new posts (checked). Figures per cycle and per
new post: HTTP requests, bytes received (body + headers), CPU of this process (the
poller's parsing) and CPU of the forum server process (what the poller costs the
forum). Run with and without Django's ConditionalGetMiddleware (``plain`` is stock
machina, like most real forums: no ETag; ``etag`` adds it).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import requests

from pbp.settings import load_settings
from pbp.sources.forum import ForumSource
from pbp.sources.forum_page import parse_html_page
from pbp.sources.forum_preset import load_preset
from pbp.sources.forum_watch import ForumWatcher
from pbp.sources.http import PoliteClient, reset_host_intervals

ROOT = Path(__file__).resolve().parent.parent

HARNESS = ROOT / "tests" / "harness" / "machina"


def harness() -> Any:
    spec = importlib.util.spec_from_file_location("machina_harness", HARNESS / "server.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def server_cpu(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class NaivePoller:
    """Every page of every thread, every cycle; no validators; full parse; diff in memory."""

    name = "naive"

    def __init__(self, urls: list[str]) -> None:
        self.urls = urls
        self.http = requests.Session()
        self.http.headers["User-Agent"] = "naive-poller/1"
        self.preset = load_preset("machina")
        self.seen: set[str] = set()
        self.requests = 0
        self.bytes = 0

    def cycle(self) -> set[str]:
        new: set[str] = set()
        for url in self.urls:
            page, last = 1, 1
            while page <= last:
                r = self.http.get(url, params={"page": page}, timeout=20)
                self.requests += 1
                self.bytes += len(r.content) + 12 + sum(len(k) + len(v) + 4
                                                        for k, v in r.headers.items())
                parsed = parse_html_page(r.text, self.preset, r.url, page)
                last = parsed.last_page or 1
                for p in parsed.posts:
                    if p.platform_id not in self.seen:
                        self.seen.add(p.platform_id)
                        new.add(p.platform_id)
                page += 1
        return new


class PerThreadPoller:
    """pbp's ForumSource.fetch on every watched thread, cursors kept between cycles."""

    name = "per-thread"

    def __init__(self, urls: list[str], client: PoliteClient) -> None:
        self.client = client
        self.sources = {u: ForumSource(u, "machina", client=client) for u in urls}
        self.cursors: dict[str, Any] = {u: None for u in urls}

    @property
    def requests(self) -> int:
        return self.client.requests_made

    @property
    def bytes(self) -> int:
        return self.client.bytes_read

    def fetch(self, url: str) -> set[str]:
        result = self.sources[url].fetch(self.cursors[url])
        self.cursors[url] = result.cursor
        return {p.platform_id for p in result.posts if p.change == "new"}

    def cycle(self) -> set[str]:
        new: set[str] = set()
        for url in self.sources:
            new |= self.fetch(url)
        return new


class PbpPoller(PerThreadPoller):
    """One topic-list request per forum, then fetch only the threads it says changed."""

    name = "pbp"

    def __init__(self, urls: list[str], client: PoliteClient, forum_url: str) -> None:
        super().__init__(urls, client)
        self.watcher = ForumWatcher(forum_url, "machina", client=client)
        self.by_tid = {src.topic_id: url for url, src in self.sources.items()}
        self.state: Any = None

    def cycle(self) -> set[str]:
        listing = self.watcher.changed(self.state)
        self.state = listing.state
        new: set[str] = set()
        for tid in sorted(listing.changed):
            if tid in self.by_tid:
                new |= self.fetch(self.by_tid[tid])
        return new


def measure(poller: Any, server_pid: int) -> tuple[set[str], dict[str, float]]:
    r0, b0 = poller.requests, poller.bytes
    c0, s0, w0 = time.process_time(), server_cpu(server_pid), time.perf_counter()
    new = poller.cycle()
    return new, {"requests": poller.requests - r0, "bytes": poller.bytes - b0,
                 "cpu": time.process_time() - c0, "server_cpu": server_cpu(server_pid) - s0,
                 "wall": time.perf_counter() - w0, "new": len(new)}


def run_mode(h: Any, etag: bool, cycles: int, changing: float,
             seed: int) -> dict[str, list[dict[str, float]]]:
    server = h.start(etag=etag, bench=True)
    try:
        lines = server.seed("topics", "Bench")
        urls = [server.base + line.split()[1] for line in lines if line.startswith("TOPIC")]
        forum_url = urls[0].split("/topic/")[0] + "/"
        settings = load_settings(env={"PBP_MIN_HOST_INTERVAL": "0"})
        reset_host_intervals()

        def client() -> PoliteClient:
            return PoliteClient(user_agent=settings.user_agent, min_interval=0,
                                allowed_hosts={"127.0.0.1"}, private_hosts="127.0.0.1")
        pollers: list[Any] = [NaivePoller(urls), PerThreadPoller(urls, client()),
                              PbpPoller(urls, client(), forum_url)]
        warm = {p.name: p.cycle() for p in pollers}          # first read of every thread
        assert all(v == warm["naive"] for v in warm.values()), "pollers disagree on the first read"
        rows: dict[str, list[dict[str, float]]] = {p.name: [] for p in pollers}
        rng = random.Random(seed)
        for c in range(cycles):
            k = max(1, round(len(urls) * changing))
            server.seed("change", str(k), str(rng.randrange(10**6)))
            found: dict[str, set[str]] = {}
            for p in pollers:
                found[p.name], row = measure(p, server.proc.pid)
                rows[p.name].append(row)
            assert found["pbp"] == found["naive"] == found["per-thread"], \
                f"cycle {c}: pollers found different posts"
            assert len(found["pbp"]) == k, (len(found["pbp"]), k)
        return rows
    finally:
        server.stop()


def report(mode: str, rows: dict[str, list[dict[str, float]]], threads: int) -> None:
    def mean(name: str, key: str) -> float:
        return statistics.mean(r[key] for r in rows[name])
    print(f"\n== machina {mode}: {threads} watched threads, {len(rows['pbp'])} cycles, "
          f"{mean('pbp', 'new'):.0f} new posts a cycle (means per cycle) ==")
    print(f"{'poller':<11} {'requests':>9} {'KB':>9} {'CPU ms':>8} {'server CPU ms':>14} "
          f"{'req/post':>9} {'KB/post':>8} {'CPU ms/post':>12} {'wall s':>7}")
    for name in ("naive", "per-thread", "pbp"):
        new = mean(name, "new")
        print(f"{name:<11} {mean(name, 'requests'):>9.1f} {mean(name, 'bytes') / 1024:>9.1f} "
              f"{mean(name, 'cpu') * 1000:>8.1f} {mean(name, 'server_cpu') * 1000:>14.0f} "
              f"{mean(name, 'requests') / new:>9.2f} {mean(name, 'bytes') / 1024 / new:>8.2f} "
              f"{mean(name, 'cpu') * 1000 / new:>12.2f} {mean(name, 'wall'):>7.2f}")
    def ratio(other: str, key: str) -> float:
        return mean("naive", key) / max(mean(other, key), 1e-9)
    for other in ("per-thread", "pbp"):
        print(f"naive / {other:<10}: requests {ratio(other, 'requests'):5.1f}x, bytes "
              f"{ratio(other, 'bytes'):5.1f}x, CPU {ratio(other, 'cpu'):5.1f}x, server CPU "
              f"{ratio(other, 'server_cpu'):5.1f}x")
    goal = ratio("pbp", "requests")
    print(f"goal (>= 10x fewer requests than naive): {'met' if goal >= 10 else 'NOT met'} ({goal:.1f}x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cycles", type=int, default=3)
    ap.add_argument("--changing", type=float, default=0.10)
    ap.add_argument("--modes", default="plain,etag")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    h = harness()
    if not h.ready():
        sys.exit(f"machina harness not set up: bash {HARNESS / 'setup.sh'}")
    for mode in args.modes.split(","):
        rows = run_mode(h, mode == "etag", args.cycles, args.changing, args.seed)
        report(mode, rows, 200)


if __name__ == "__main__":
    main()
