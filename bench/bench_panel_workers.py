"""Issue 17 item 4 (SCALE-4): gunicorn -w 1 against -w 2 on the dashboard and the encounter
page (50 combatants, 200 posts), wrk as the load generator (``apt-get install wrk``), while
a worker writes (a short write transaction every 100 ms, as polls do), with the load
average printed beside each figure (the machine is shared) and the -w 2 / -w 1 ratio from
the same run.

The ceiling, measured in the same run: a bare Flask + Jinja app reading the same rows
(the encounter's combatants and posts, plain sqlite3) under the same gunicorn and wrk. On
two cores wrk itself takes CPU, so the bare app's ratio is what two workers can give here.

Also said: whether the encounter page under the writer still shows its reply preview
(before SCALE-4 the preview wrote inside the read transaction and answered "(no
preview: database is locked)"), and how long the writer waited for the lock (median and
worst), with the panel and without.

    python bench/bench_panel_workers.py [--repeat 3] [--seconds 8] [--tree /work/main]

``--tree``: the code tree gunicorn serves (default: this one), to compare a branch
with main under the same load.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
import bench_panel as bp  # noqa: E402

BARE = "bare"


def bare_app() -> Any:
    """The ceiling: Flask + Jinja rendering the encounter's combatants and posts, read with
    plain sqlite3 per request (``BENCH_DB``: the file, ``BENCH_ENCOUNTER``: its id)."""
    from flask import Flask, render_template_string

    app = Flask("bare")
    db = os.environ["BENCH_DB"]
    eid = int(os.environ["BENCH_ENCOUNTER"])
    page = ("<!doctype html><title>bare</title><table>{% for c in combatants %}<tr><td>{{ c[0] }}"
            "</td><td>{{ c[1] }}/{{ c[2] }}</td></tr>{% endfor %}</table>{% for p in posts %}"
            "<article><h3>{{ p[0] }}</h3><p>{{ p[1] }}</p></article>{% endfor %}")

    @app.get("/")
    def index() -> str:
        con = sqlite3.connect(db)
        try:
            combatants = con.execute("SELECT name, hp, max_hp FROM combatants WHERE encounter_id=?",
                                     (eid,)).fetchall()
            posts = con.execute("SELECT p.author, p.text FROM posts p JOIN rounds r ON r.id=p.round_id "
                                "WHERE r.encounter_id=? ORDER BY p.id", (eid,)).fetchall()
        finally:
            con.close()
        return render_template_string(page, combatants=combatants, posts=posts)

    return app


WRITER = """
import sys, time, statistics
from datetime import UTC, datetime
from sqlalchemy import update
sys.path.insert(0, sys.argv[3])
from pbp.store.campaigns import Thread
from pbp.store.db import make_engine, session_scope
engine = make_engine(sys.argv[1])
waits = []
stop = time.time() + float(sys.argv[2])
while time.time() < stop:
    t = time.perf_counter()
    with session_scope(engine) as s:    # BEGIN IMMEDIATE: waits here for the lock
        s.execute(update(Thread).values(last_poll=datetime.now(UTC)))
        waits.append(time.perf_counter() - t)
        time.sleep(0.005)               # the poll's own work, lock held
    time.sleep(0.1)
print(f"{len(waits)} {statistics.median(waits) * 1000:.1f} {max(waits) * 1000:.1f}")
"""


def _wait_for(port: int) -> None:
    for _ in range(150):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"gunicorn did not listen on {port}")


def _rps(port: int, path: str, cookie: str, seconds: int) -> float:
    out = subprocess.run(["wrk", "-t2", "-c4", f"-d{seconds}s", "--timeout", "30s", "-H", f"Cookie: {cookie}",
                          "-H", f"User-Agent: {bp.UA}", "-H", "Accept-Encoding: br",
                          f"http://127.0.0.1:{port}{path}"],
                         capture_output=True, text=True, check=True).stdout
    hit = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if hit is None:
        raise SystemExit(f"wrk printed no rate:\n{out}")
    if re.search(r"Non-2xx", out):
        print(f"  warning: {path} answered non-2xx under load", flush=True)
    return float(hit.group(1))


def _shows_preview(port: int, path: str, cookie: str) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", path, headers={"Cookie": cookie, "User-Agent": bp.UA})
    html = conn.getresponse().read().decode()
    conn.close()
    return "(preview)" in html and "(no preview" not in html


def _writer(url: str, seconds: float, tree: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WRITER, url, str(seconds), str(tree)],
                            stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(tree)))


def _writer_result(proc: subprocess.Popen[str]) -> tuple[float, float]:
    out, _err = proc.communicate(timeout=120)
    _n, median, worst = out.split()
    return float(median), float(worst)


def _serve(app: str, w: str, env: dict[str, str], tree: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = bp.free_port()
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", w, "-b", f"127.0.0.1:{port}",
                             "--log-level", "warning", app], env=env, cwd=str(tree))
    _wait_for(port)
    time.sleep(1)
    return proc, port


def _median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--tree", type=Path, default=ROOT, help="the code tree gunicorn serves")
    ap.add_argument("--no-writer", action="store_true", help="no concurrent write")
    args = ap.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    tree = args.tree.resolve()
    d = tempfile.mkdtemp()
    url = f"sqlite:///{d}/b.db"
    ids = bp.seed(url)
    pages = ("/", f"/encounters/{ids['encounter']}")
    rates: dict[tuple[str, str], list[float]] = {}
    previews = [0, 0]
    waits: dict[str, list[tuple[float, float]]] = {}
    base_env = dict(os.environ, PBP_DATABASE_URL=url, PBP_DATA_DIR=d, PYTHONPATH=str(tree))
    print(f"tree {tree}; writer {'off' if args.no_writer else 'on'}; load "
          f"{os.getloadavg()[0]:.2f}", flush=True)
    if not args.no_writer:
        alone = _writer(url, 5, tree)
        waits.setdefault("alone", []).append(_writer_result(alone))
    for rep in range(args.repeat):
        for w in ("1", "2"):
            for app, paths in (("pbp.panel:create_app()", pages), ("bench_panel_workers:bare_app()", ("/",))):
                bare = app.startswith("bench_")
                env = dict(base_env, BENCH_DB=f"{d}/b.db", BENCH_ENCOUNTER=str(ids["encounter"]),
                           PYTHONPATH=f"{tree}{os.pathsep}{ROOT / 'bench'}")
                proc, port = _serve(app, w, env, tree)
                try:
                    cookie = "" if bare else bp.login_cookie(port)
                    for path in paths:   # every worker booted, its caches warm
                        _rps(port, path, cookie, 3)
                    writer = None if args.no_writer else _writer(url, args.seconds * len(paths) + 3, tree)
                    for path in paths:
                        rps = _rps(port, path, cookie, args.seconds)
                        key = BARE if bare else path
                        rates.setdefault((w, key), []).append(rps)
                        if not bare and path != "/":
                            previews[0] += _shows_preview(port, path, cookie)
                            previews[1] += 1
                        print(f"run {rep + 1} -w {w} {key}: {rps:.1f} req/s, load "
                              f"{os.getloadavg()[0]:.2f}", flush=True)
                    if writer is not None:
                        waits.setdefault(f"-w {w}", []).append(_writer_result(writer))
                finally:
                    proc.terminate()
                    proc.wait(10)
    ceiling = None
    for key in (*pages, BARE):
        one, two = _median(rates[("1", key)]), _median(rates[("2", key)])
        if key == BARE:
            ceiling = two / one
        print(f"{key}: median -w 1 {one:.1f}, -w 2 {two:.1f} req/s: {two / one:.2f}x (target 1.8x)")
    print(f"ceiling here (bare Flask, same run): {ceiling:.2f}x")
    print(f"encounter page under the writer showed its preview {previews[0]}/{previews[1]} times")
    for name, got in waits.items():
        print(f"writer's wait for the lock, {name}: median {statistics.median(g[0] for g in got):.1f} ms, "
              f"worst {max(g[1] for g in got):.1f} ms")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
