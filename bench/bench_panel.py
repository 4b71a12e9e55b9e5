"""Benchmark: the narrator panel with 50 combatants and 200 posts in the open round.

    python bench/bench_panel.py [--renders 30] [--seconds 5] [--clients 8]

1. Render time of the encounter page (test client, in process), median of --renders,
   beside the login page rendered in the same run (the baseline: the dashboard).
2. Requests per second of the JSON refresh endpoint with the panel served by gunicorn
   (2 workers, the deployment the README describes) under a local load generator
   (--clients threads on keep-alive connections for --seconds each, loopback only):
   the common answer "nothing changed" (``?v=<current version>``), the full answer
   (fragments re-rendered), and the login page as the baseline, all in the same run.
   Load generator and server share this machine's cores: the figures are a floor.
3. The refresh right after a worker's poll re-saw the 200 posts unchanged (the service
   layer's ``ingest_posts``), with the version the page held before it: a full answer
   (and a new dry-run preview) if the poll changed the version, ``changed: false`` if not.

``--before REV`` measures the code of git revision REV too, in the same run, on a copy of
the same seeded database and with the same load generator (``git archive`` into a
temporary directory, run by a subprocess with that tree first on ``sys.path``; the
working tree is not touched), then prints both side by side.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the code measured: this tree, or (subprocess of --before) an exported revision
CODE = Path(sys.argv[sys.argv.index("--code") + 1]) if "--code" in sys.argv else ROOT
sys.path.insert(0, str(CODE))

from pbp.panel import create_app, sample
from pbp.store.db import make_engine, session_scope, upgrade

assert Path(sample.__file__).resolve().is_relative_to(CODE.resolve()), (sample.__file__, CODE)

#: Flask-Login's strong session protection ties a session to the client's address and
#: User-Agent: the login and every load generator present the same one.
UA = "pbp-bench/1"


def seed(url: str) -> dict:
    upgrade(url)
    with session_scope(make_engine(url)) as s:
        return sample.seed(s, combatants=50, posts=200)


def render_times(url: str, eid: int, n: int) -> tuple[float, float, int]:
    app = create_app({"TESTING": True, "SECRET_KEY": "bench", "DATABASE_URL": url, "WTF_CSRF_ENABLED": False})
    c = app.test_client()
    assert c.post("/login", data={"name": "alice", "password": sample.PASSWORD}).status_code == 302

    def median(path: str) -> tuple[float, int]:
        times, size = [], 0
        for _ in range(n):
            t = time.perf_counter()
            r = c.get(path)
            times.append(time.perf_counter() - t)
            assert r.status_code == 200, r.status_code
            size = len(r.data)
        return statistics.median(times), size

    c.get(f"/encounters/{eid}")  # warm the template cache
    page, size = median(f"/encounters/{eid}")
    base, _ = median("/")
    return page, base, size


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def login_cookie(port: int) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/login", headers={"User-Agent": UA})
    r = conn.getresponse()
    html = r.read().decode()
    jar = r.getheader("Set-Cookie", "").split(";")[0]
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1)
    body = f"csrf_token={token}&name=alice&password={sample.PASSWORD.replace(' ', '+')}"
    conn.request("POST", "/login", body=body, headers={"Cookie": jar, "User-Agent": UA,
                                                      "Content-Type": "application/x-www-form-urlencoded"})
    r = conn.getresponse()
    r.read()
    assert r.status == 302, r.status
    return r.getheader("Set-Cookie").split(";")[0]


def load(port: int, path: str, cookie: str, clients: int, seconds: float) -> tuple[float, float]:
    """Requests/s and median latency (ms) of GET *path* from *clients* keep-alive threads."""
    stop = time.perf_counter() + seconds
    counts = [0] * clients
    lat: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []

    def worker(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.perf_counter() < stop:
            t = time.perf_counter()
            conn.request("GET", path, headers={"Cookie": cookie, "User-Agent": UA} if cookie else {"User-Agent": UA})
            r = conn.getresponse()
            r.read()
            if r.status != 200:
                errors.append(str(r.status))
                return
            lat[i].append(time.perf_counter() - t)
            counts[i] += 1
        conn.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    assert not errors, errors[:3]
    return sum(counts) / elapsed, statistics.median([x for xs in lat for x in xs]) * 1000


def load_ab(port: int, path: str, cookie: str, clients: int, seconds: float) -> tuple[float, float]:
    """The same measure with ApacheBench (apt-get install apache2-utils), a C load generator
    that leaves more of the two cores to the server than Python threads do."""
    cmd = ["ab", "-k", "-q", "-c", str(clients), "-t", str(seconds), "-n", "1000000", "-H", f"User-Agent: {UA}"]
    if cookie:
        cmd += ["-H", f"Cookie: {cookie}"]
    out = subprocess.run(cmd + [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=False,
                         timeout=seconds + 30).stdout
    failed = re.search(r"Non-2xx responses:\s+(\d+)", out)
    assert not failed, f"{failed.group(1)} non-2xx answers"
    rps = float(re.search(r"Requests per second:\s+([\d.]+)", out).group(1))
    ms = float(re.search(r"Time per request:\s+([\d.]+) \[ms\] \(mean\)", out).group(1))
    return rps, ms


def measure(url: str, ids: dict, args: argparse.Namespace, data_dir: str) -> dict[str, float]:
    """Every figure of one code tree against the seeded database at *url*."""
    out: dict[str, float] = {}
    page, base, size = render_times(url, ids["encounter"], args.renders)
    out.update(page_ms=page * 1000, dashboard_ms=base * 1000, page_kib=size / 1024)
    print(f"encounter page render (50 combatants, 200 posts, {size // 1024} KiB): "
          f"{page * 1000:.1f} ms median; dashboard {base * 1000:.2f} ms; ratio {page / base:.1f}x", flush=True)

    port = free_port()
    env = dict(os.environ, PBP_DATABASE_URL=url, PBP_DATA_DIR=data_dir, PBP_PANEL_REFRESH_INTERVAL_MS="5000",
               PYTHONPATH=os.pathsep.join([str(CODE), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", "2", "-b", f"127.0.0.1:{port}",
                             "--log-level", "warning", "pbp.panel:create_app()"], env=env, cwd=str(CODE))
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        cookie = login_cookie(port)
        live = f"/encounters/{ids['encounter']}/live"
        conn = http.client.HTTPConnection("127.0.0.1", port)
        conn.request("GET", live, headers={"Cookie": cookie, "User-Agent": UA})
        version = json.loads(conn.getresponse().read())["version"]
        conn.close()
        rows = [("login page (baseline)", "/login", "login_rps"),
                ("live JSON, nothing changed", f"{live}?v={version}", "unchanged_rps"),
                ("live JSON, full fragments", live, "full_rps")]
        gen = load_ab if shutil.which("ab") else load
        print(f"load generator: {'ApacheBench (ab -k)' if gen is load_ab else 'Python threads (install apache2-utils for ab)'}")
        for label, path, key in rows:
            seconds = args.seconds if "full" not in label else max(args.seconds, 10)
            rps, ms = gen(port, path, "" if path == "/login" else cookie, args.clients, seconds)
            out[key] = rps
            print(f"gunicorn -w 2, {args.clients} clients, {label}: {rps:,.1f} req/s, "
                  f"{'mean' if gen is load_ab else 'median'} {ms:.1f} ms", flush=True)
        b = out["login_rps"]
        print(f"ratios to the login page: unchanged {out['unchanged_rps'] / b:.2f}x, full {out['full_rps'] / b:.3f}x")
        times, changed = [], []
        for _ in range(3):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("GET", live, headers={"Cookie": cookie, "User-Agent": UA})
            before = json.loads(conn.getresponse().read())["version"]
            poll_unchanged(url, ids["thread"])
            t = time.perf_counter()
            conn.request("GET", f"{live}?v={before}", headers={"Cookie": cookie, "User-Agent": UA})
            answer = json.loads(conn.getresponse().read())
            times.append(time.perf_counter() - t)
            changed.append(answer["changed"])
            conn.close()
        out["after_poll_ms"] = statistics.median(times) * 1000
        print(f"refresh after a poll that re-saw the 200 posts unchanged: {out['after_poll_ms']:.1f} ms median, "
              f"changed={changed}", flush=True)
    finally:
        proc.terminate()
        proc.wait(10)
    return out


def poll_unchanged(url: str, thread_id: int) -> None:
    """What a worker's poll does when nobody posted: the thread's posts ingested again as
    they are (through the service layer)."""
    from datetime import UTC, datetime

    from sqlalchemy import select

    from pbp.rounds import service
    from pbp.sources.base import PostRecord
    from pbp.store.models import Post

    engine = make_engine(url)
    with session_scope(engine) as s:
        posts = s.scalars(select(Post).where(Post.thread_id == thread_id, Post.is_ours.is_(False)).order_by(Post.id))
        records = [PostRecord(platform_id=p.platform_id, author=p.author, posted_at=p.posted_at, body=p.body,
                              text=p.text, fmt=p.fmt, revision=p.content_hash, url=p.url) for p in posts]
        service.ingest_posts(s, thread_id, records, now=datetime.now(UTC))
    engine.dispose()


def copy_db(src: Path, dst: Path) -> str:
    """A consistent copy of a SQLite database in WAL mode (its log checkpointed first)."""
    import sqlite3

    con = sqlite3.connect(src)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    shutil.copy(src, dst)
    return f"sqlite:///{dst}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--renders", type=int, default=30)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--before", metavar="REV", help="also measure git revision REV, same data, same run")
    ap.add_argument("--code", help=argparse.SUPPRESS)     # subprocess of --before: the tree measured
    ap.add_argument("--db", help=argparse.SUPPRESS)       # ... the seeded database
    ap.add_argument("--ids", help=argparse.SUPPRESS)      # ... its ids (JSON)
    ap.add_argument("--result", help=argparse.SUPPRESS)   # ... where to write the figures (JSON)
    args = ap.parse_args()
    if args.code:
        with tempfile.TemporaryDirectory() as tmp:
            res = measure(args.db, json.loads(args.ids), args, tmp)
        Path(args.result).write_text(json.dumps(res))
        return
    with tempfile.TemporaryDirectory() as tmp:
        seeded = Path(tmp) / "seeded.sqlite"
        t = time.perf_counter()
        ids = seed(f"sqlite:///{seeded}")
        print(f"seeded 50 combatants, 200+ posts through the service layer in {time.perf_counter() - t:.1f} s")
        results: dict[str, dict[str, float]] = {}
        if args.before:
            tree = Path(tmp) / "before"
            tree.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "pbp", "templates", "config"],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
            print(f"\n--- before: {args.before} ---", flush=True)
            out = Path(tmp) / "before.json"
            subprocess.run([sys.executable, __file__, "--code", str(tree), "--db", copy_db(seeded, Path(tmp) / "b.sqlite"),
                            "--ids", json.dumps(ids), "--result", str(out), "--renders", str(args.renders),
                            "--seconds", str(args.seconds), "--clients", str(args.clients)], check=True)
            results["before"] = json.loads(out.read_text())
            print("\n--- after: this tree ---", flush=True)
        results["after"] = measure(copy_db(seeded, Path(tmp) / "a.sqlite"), ids, args, tmp)
        if "before" in results:
            b, a = results["before"], results["after"]
            print(f"\n{'':36}{'before':>12}{'after':>12}{'':>8}")
            for key, label, unit in (("page_ms", "encounter page render", "ms"),
                                     ("dashboard_ms", "dashboard render (baseline)", "ms"),
                                     ("login_rps", "login page (baseline)", "req/s"),
                                     ("unchanged_rps", "live JSON, nothing changed", "req/s"),
                                     ("full_rps", "live JSON, full fragments", "req/s"),
                                     ("after_poll_ms", "refresh after an unchanged poll", "ms")):
                ratio = b[key] / a[key] if unit == "ms" else a[key] / b[key]
                print(f"{label:36}{b[key]:>9.1f} {unit:<3}{a[key]:>8.1f} {unit:<5}{ratio:>5.1f}x")


if __name__ == "__main__":
    main()
