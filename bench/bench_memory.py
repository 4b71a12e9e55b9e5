"""Memory of ``pbp serve`` (panel, worker and beat: every process) and of one worker, with a soak.

    python bench/bench_memory.py [--minutes 30] [--settle 90] [--big 10000] [--out DIR]

Issue 17 item 8 (SCALE-8). What it runs is the service as shipped: ``pbp serve`` with a
fresh data directory (embedded SQLite database and broker, the default poll interval and
the real per-host interval), watching threads of a local fake forum (bench_workers.py's
machina-layout server, in a process of its own so its memory is not counted). Phases:

1. **idle** — no watched thread;
2. **200 threads** — 200 watched threads inserted, ``--settle`` seconds of polling;
3. **soak** — ``--minutes`` of polling the 200 threads while a player adds a post to one
   of them every 10 s; RSS sampled every ``--every`` seconds;
4. **10,000 threads** — 9,800 more watched threads, ``--settle`` seconds of polling.

RSS is psutil's, summed over ``pbp serve`` and all its descendants (pages shared between
them are counted once per process, as ``ps`` does: an upper bound), and the worker's own
(the celery worker process with its pool children). Written under ``--out`` (default
``test-output/bench/memory/``, git-ignored): ``samples.csv``, ``soak.png`` (RSS curve)
and ``memory.md`` (the table). The load average is printed with every phase.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_workers as forum  # noqa: E402  (the fake forum lives there)

MB = 1024 * 1024


def load() -> str:
    """The 1/5/15-minute load average: the machine is shared, figures depend on it."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def tree(pid: int) -> list[psutil.Process]:
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def rss(procs: list[psutil.Process]) -> int:
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def worker_procs(pid: int) -> list[psutil.Process]:
    """The celery worker child of ``pbp serve`` and its pool processes (none with solo)."""
    for p in psutil.Process(pid).children(recursive=False):
        try:
            if "worker" in p.cmdline():
                return [p, *p.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
    return []


class Serve:
    """``pbp serve`` in a fresh data directory, panel on a free port."""

    def __init__(self, data_dir: Path, port: int) -> None:
        self.data_dir = data_dir
        self.port = port
        env = dict(os.environ, PBP_DATA_DIR=str(data_dir), PBP_ALLOW_PRIVATE_HOSTS="127.0.0.1",
                   PYTHONPATH=str(ROOT))
        self.log = open(data_dir.parent / "serve.log", "w")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from pbp.cli import main; main()", "serve", "--port", str(port),
             "--loglevel", "warning"], env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 120
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/login", timeout=2).read()
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if self.proc.poll() is not None:
                    raise RuntimeError(f"pbp serve exited: see {self.log.name}") from None
                time.sleep(0.5)
        else:
            raise RuntimeError("pbp serve did not answer within 120 s")
        self.db_url = f"sqlite:///{data_dir / 'pbp.sqlite'}"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def watch(db_url: str, port: int, first: int, last: int) -> None:
    """Watched threads *first*..*last* of the fake forum, as a narrator's panel adds them."""
    from pbp.store.db import make_engine, session_scope
    from pbp.store.models import Campaign, Thread

    engine = make_engine(db_url)
    with session_scope(engine) as s:
        c = s.query(Campaign).filter_by(slug="memory").one_or_none()
        if c is None:
            c = Campaign(name="memory", slug="memory", ruleset="forum-d20")
            s.add(c)
            s.flush()
        opts: dict[str, Any] = {"preset": "machina", "allowed_hosts": ["127.0.0.1"], "backfill_pages": 1}
        s.add_all([Thread(campaign_id=c.id, kind="forum", url=forum.topic_url(port, t), platform="html",
                          options=opts) for t in range(first, last + 1)])
    engine.dispose()


def polled(db_url: str) -> tuple[int, int]:
    """(threads polled at least once, posts stored): the service is really working."""
    import sqlalchemy as sa

    engine = sa.create_engine(db_url)
    with engine.connect() as c:
        threads = c.execute(sa.text("select count(*) from threads where last_poll is not null")).scalar()
        posts = c.execute(sa.text("select count(*) from posts")).scalar()
    engine.dispose()
    return int(threads or 0), int(posts or 0)


def measure(serve: Serve, seconds: float, every: float, phase: str,
            samples: list[dict[str, Any]], t0: float) -> dict[str, Any]:
    """Sample RSS for *seconds*; the phase's median and max (MB)."""
    got: list[tuple[int, int]] = []
    end = time.time() + seconds
    while True:
        total, worker = rss(tree(serve.proc.pid)), rss(worker_procs(serve.proc.pid))
        got.append((total, worker))
        samples.append({"t_s": round(time.time() - t0, 1), "phase": phase, "serve_rss_mb": round(total / MB, 1),
                        "worker_rss_mb": round(worker / MB, 1), "load1": os.getloadavg()[0]})
        if time.time() >= end:
            break
        time.sleep(min(every, max(0.0, end - time.time())))
    threads, posts = polled(serve.db_url)
    row = {"phase": phase, "serve_rss_mb": round(statistics.median(g[0] for g in got) / MB, 1),
           "serve_rss_max_mb": round(max(g[0] for g in got) / MB, 1),
           "worker_rss_mb": round(statistics.median(g[1] for g in got) / MB, 1),
           "processes": len(tree(serve.proc.pid)), "threads_polled": threads, "posts_stored": posts,
           "load": load()}
    print(json.dumps(row), flush=True)
    return row


def player(port: int, threads: int, stop: threading.Event, every: float = 10.0) -> None:
    """A post every *every* seconds in a random watched thread: the soak ingests, not only polls."""
    rng = random.Random(17)
    while not stop.wait(every):
        try:
            forum.add_post(port, rng.randint(1, threads))
        except OSError:
            pass


def plot(samples: list[dict[str, Any]], path: Path, soak: tuple[float, float] | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = [s["t_s"] / 60 for s in samples]
    fig, ax = plt.subplots(figsize=(10, 5))
    ax.plot(t, [s["serve_rss_mb"] for s in samples], label="pbp serve, all processes (RSS)")
    ax.plot(t, [s["worker_rss_mb"] for s in samples], label="the worker (RSS)")
    if soak:
        ax.axvspan(soak[0] / 60, soak[1] / 60, alpha=0.12, label="soak: 200 threads polled, a post every 10 s")
    starts: dict[str, float] = {}
    for s in samples:
        starts.setdefault(s["phase"], s["t_s"] / 60)
    for name, at in starts.items():
        ax.axvline(at, color="grey", lw=0.5)
        ax.text(at, ax.get_ylim()[1] * 0.98, f" {name}", fontsize=8, va="top", rotation=90)
    ax.set_xlabel("minutes since pbp serve answered")
    ax.set_ylabel("MB")
    ax.set_ylim(bottom=0)
    ax.set_title("pbp serve memory (bench/bench_memory.py)")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def table(rows: list[dict[str, Any]], soak: dict[str, Any] | None) -> str:
    lines = ["| phase | pbp serve RSS MB (median / max) | worker RSS MB | processes | threads polled | posts stored | load avg |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['phase']} | {r['serve_rss_mb']} / {r['serve_rss_max_mb']} | {r['worker_rss_mb']} | "
                     f"{r['processes']} | {r['threads_polled']} | {r['posts_stored']} | {r['load']} |")
    if soak:
        lines += ["", f"Soak: {soak['minutes']} min; pbp serve RSS first 5 min median {soak['first_mb']} MB, "
                      f"last 5 min median {soak['last_mb']} MB (growth {soak['growth_mb']:+} MB, "
                      f"{soak['growth_pct']:+}%); worker {soak['worker_first_mb']} -> {soak['worker_last_mb']} MB."]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=30.0, help="soak length (default 30)")
    p.add_argument("--settle", type=float, default=90.0, help="seconds of polling before a measure")
    p.add_argument("--every", type=float, default=10.0, help="seconds between two RSS samples")
    p.add_argument("--big", type=int, default=10_000, help="watched threads of the last phase")
    p.add_argument("--out", default=str(ROOT / "test-output" / "bench" / "memory"))
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"load average at start: {load()}", flush=True)
    server, port = forum.start_server(args.big, forum.PER_PAGE)   # one page of 5 posts a thread
    rows: list[dict[str, Any]] = []
    samples: list[dict[str, Any]] = []
    soak_info: dict[str, Any] | None = None
    span: tuple[float, float] | None = None
    with tempfile.TemporaryDirectory(prefix="pbp-memory-") as tmp:
        serve = Serve(Path(tmp) / "data", free_port())
        t0 = time.time()
        stop = threading.Event()
        try:
            rows.append(measure(serve, 30, args.every, "idle", samples, t0))
            watch(serve.db_url, port, 1, 200)
            measure(serve, args.settle, args.every, "200 threads (settling)", samples, t0)
            rows.append(measure(serve, 30, args.every, "200 threads", samples, t0))
            threading.Thread(target=player, args=(port, 200, stop), daemon=True).start()
            s0 = time.time() - t0
            soak_rows = len(samples)
            rows.append(measure(serve, args.minutes * 60, args.every, "soak", samples, t0))
            span = (s0, time.time() - t0)
            stop.set()
            soak = samples[soak_rows:]
            window = max(1, int(min(300, args.minutes * 60 / 3) / args.every))
            first = statistics.median(s["serve_rss_mb"] for s in soak[:window])
            last = statistics.median(s["serve_rss_mb"] for s in soak[-window:])
            soak_info = {"minutes": args.minutes, "first_mb": round(first, 1), "last_mb": round(last, 1),
                         "growth_mb": round(last - first, 1), "growth_pct": round((last - first) / first * 100, 1),
                         "worker_first_mb": statistics.median(s["worker_rss_mb"] for s in soak[:window]),
                         "worker_last_mb": statistics.median(s["worker_rss_mb"] for s in soak[-window:])}
            print(json.dumps({"soak": soak_info}), flush=True)
            watch(serve.db_url, port, 201, args.big)
            measure(serve, args.settle, args.every, f"{args.big} threads (settling)", samples, t0)
            rows.append(measure(serve, 30, args.every, f"{args.big} threads", samples, t0))
        finally:
            stop.set()
            serve.stop()
            server.terminate()
            server.wait()
    with open(out / "samples.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(samples[0]))
        w.writeheader()
        w.writerows(samples)
    plot(samples, out / "soak.png", span)
    text = table(rows, soak_info)
    (out / "memory.md").write_text(text)
    print(text)
    print(f"written: {out / 'samples.csv'}, {out / 'soak.png'}, {out / 'memory.md'}; load average {load()}")


if __name__ == "__main__":
    main()
