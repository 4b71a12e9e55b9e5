"""SCALE-1: requests a minute one forum host gets from N worker processes at the real
``min_host_interval`` (2 s), with the budget they share (the database, SQLite) against the
baseline of each process alone (the old per-process interval), in the same run.

Each process loops over GETs of a local page for ``--seconds``; the server counts arrivals.
Run: ``PYTHONPATH=$PWD python bench/bench_host_budget.py --seconds 30 --processes 2``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from pbp.sources.http import PoliteClient
from pbp.store.budget import shared_budget

ARRIVALS: list[float] = []


class Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        ARRIVALS.append(time.time())
        body = b"<html>topic</html>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_a: object) -> None:
        pass


def worker(url: str, db: str, budget_url: str, until: float, interval: float) -> None:
    budget = shared_budget(db, budget_url)
    client = PoliteClient(user_agent="pbp-bench", min_interval=interval, private_hosts="127.0.0.1",
                          budget=budget)
    while time.time() < until:
        client.get(url)


def run(url: str, db: str, budget_url: str, n: int, seconds: float, interval: float) -> float:
    ARRIVALS.clear()
    ctx = multiprocessing.get_context("spawn")
    start = time.time() + 3.0
    until = start + seconds
    procs = [ctx.Process(target=worker, args=(url, db, budget_url, until, interval)) for _ in range(n)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    inside = [t for t in ARRIVALS if start <= t < until]
    return len(inside) * 60.0 / seconds


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--processes", type=int, default=2)
    ap.add_argument("--interval", type=float, default=2.0)
    a = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/t/1"
    db = f"sqlite:///{tempfile.mkdtemp()}/pbp.sqlite"
    print(f"load average before: {os.getloadavg()}")
    alone = run(url, db, "none", a.processes, a.seconds, a.interval)
    shared = run(url, db, "", a.processes, a.seconds, a.interval)
    print(f"{a.processes} processes, interval {a.interval:g} s, {a.seconds:g} s each")
    print(f"  each process alone (baseline): {alone:.1f} requests/min to the host")
    print(f"  shared budget (database):      {shared:.1f} requests/min to the host "
          f"(allowed {60 / a.interval:.0f}); ratio {shared / alone:.2f}x the baseline")
    print(f"load average after: {os.getloadavg()}")
    server.shutdown()
    server.server_close()


if __name__ == "__main__":
    main()
