"""Issue 17 item 4 (SCALE-4): gunicorn -w 1 against -w 2 on the dashboard and the encounter
page (50 combatants, 200 posts), wrk as the load generator (``apt-get install wrk``), while
a worker writes (a short write transaction every 100 ms, as polls do), with the load
average printed beside each figure (the machine is shared) and the -w 2 / -w 1 ratio from
the same run.

The ceiling, measured in the same run: a bare Flask + Jinja app reading the same rows
(the encounter's combatants and posts, plain sqlite3; ``bench/bare_panel_app.py``) under
the same gunicorn and wrk. On
two cores wrk itself takes CPU, so the bare app's ratio is what two workers can give here.

Beside each rate: the workers' CPU a request and the CPU they got (cores). Two workers
that do not hold each other up use the same CPU a request as one; the rate then follows
the CPU the machine gives them, which on a shared machine is the figure to read the ratio
against.

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
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
import bench_panel as bp  # noqa: E402

BARE = "bare"
BARE_APP = "bare_panel_app:create_app()"


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


#: gunicorn's config: each worker says when it has loaded the app (``post_worker_init``)
READY_HOOK = """
import os
def post_worker_init(worker):
    open(os.path.join(os.environ["BENCH_READY"], str(worker.pid)), "w").close()
"""


def _serve(app: str, w: str, env: dict[str, str], tree: Path) -> tuple[subprocess.Popen[bytes], int]:
    """gunicorn serving *app* with *w* workers, returned once every worker has loaded the
    app (the master listens before its workers have imported it; under load that takes
    seconds, and a measure started then counts the boot)."""
    port = bp.free_port()
    ready = Path(tempfile.mkdtemp())
    (ready / "hook.py").write_text(READY_HOOK)
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(ready / "hook.py"), "-w", w,
                             "-b", f"127.0.0.1:{port}", "--log-level", "warning", app],
                            env=dict(env, BENCH_READY=str(ready)), cwd=str(tree))
    _wait_for(port)
    for _ in range(1200):
        if len(list(ready.iterdir())) > int(w):   # hook.py and one file per worker
            break
        time.sleep(0.1)
    else:
        raise SystemExit(f"{app}: workers not ready after 120 s")
    return proc, port


def _worker_cpu(master: int) -> float:
    """CPU seconds (user + system) used so far by gunicorn *master*'s workers."""
    total = 0
    for kid in Path(f"/proc/{master}/task/{master}/children").read_text().split():
        try:
            fields = Path(f"/proc/{kid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _median(xs: list[float]) -> float:
    return sorted(xs)[len(xs) // 2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--tree", type=Path, default=ROOT, help="the code tree gunicorn serves")
    ap.add_argument("--no-writer", action="store_true", help="no concurrent write")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))   # stop gunicorn on the way out
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    tree = args.tree.resolve()
    d = tempfile.mkdtemp()
    url = f"sqlite:///{d}/b.db"
    ids = bp.seed(url)
    pages = ("/", f"/encounters/{ids['encounter']}")
    rates: dict[tuple[str, str], list[float]] = {}
    per_request: dict[tuple[str, str], list[float]] = {}   # workers' CPU seconds a request
    share: dict[tuple[str, str], list[float]] = {}         # workers' CPU seconds a second
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
            for app, paths in (("pbp.panel:create_app()", pages), (BARE_APP, ("/",))):
                bare = app == BARE_APP
                env = dict(base_env, BENCH_DB=f"{d}/b.db", BENCH_ENCOUNTER=str(ids["encounter"]),
                           PYTHONPATH=f"{tree}{os.pathsep}{ROOT / 'bench'}")
                proc, port = _serve(app, w, env, tree)
                try:
                    cookie = "" if bare else bp.login_cookie(port)
                    for path in paths:   # every worker booted, its caches warm
                        _rps(port, path, cookie, 3)
                    writer = None if args.no_writer else _writer(url, args.seconds * len(paths) + 3, tree)
                    for path in paths:
                        cpu0, t0 = _worker_cpu(proc.pid), time.monotonic()
                        rps = _rps(port, path, cookie, args.seconds)
                        cpu, wall = _worker_cpu(proc.pid) - cpu0, time.monotonic() - t0
                        key = BARE if bare else path
                        rates.setdefault((w, key), []).append(rps)
                        per_request.setdefault((w, key), []).append(cpu / max(1.0, rps * args.seconds))
                        share.setdefault((w, key), []).append(cpu / wall)
                        if not bare and path != "/":   # a few, so that every worker answers
                            for _ in range(6):
                                previews[0] += _shows_preview(port, path, cookie)
                                previews[1] += 1
                        print(f"run {rep + 1} -w {w} {key}: {rps:.1f} req/s, worker CPU "
                              f"{per_request[(w, key)][-1] * 1000:.1f} ms a request, "
                              f"{share[(w, key)][-1]:.2f} cores; load {os.getloadavg()[0]:.2f}", flush=True)
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
        print(f"{key}: median -w 1 {one:.1f}, -w 2 {two:.1f} req/s: {two / one:.2f}x (target 1.8x); "
              f"worker CPU a request {_median(per_request[('1', key)]) * 1000:.1f} -> "
              f"{_median(per_request[('2', key)]) * 1000:.1f} ms; CPU the workers got "
              f"{_median(share[('1', key)]):.2f} -> {_median(share[('2', key)]):.2f} cores")
    print(f"ceiling here (bare Flask, same run): {ceiling:.2f}x")
    for key in (*pages, BARE):   # derived, not measured: what twice one worker's CPU would give
        one, two = _median(per_request[("1", key)]), _median(per_request[("2", key)])
        print(f"{key}: at twice the CPU (2 x CPU a request -w 1 / -w 2, derived) {2 * one / two:.2f}x")
    print(f"encounter page under the writer showed its preview {previews[0]}/{previews[1]} times")
    for name, got in waits.items():
        print(f"writer's wait for the lock, {name}: median {statistics.median(g[0] for g in got):.1f} ms, "
              f"worst {max(g[1] for g in got):.1f} ms")
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
