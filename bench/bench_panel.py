"""Benchmark: the narrator panel's encounter page with 50 combatants and 200 posts in the
open round (issue 17 item 5, SCALE-5).

    python bench/bench_panel.py [--renders 10] [--seconds 5] [--clients 8]

1. In process (test client): the page served from its kept rendering (the fragments of
   this page version, :mod:`pbp.panel.fragments`) and the page built (kept fragments and
   preview dropped before each request), beside the dashboard.
2. The page on the wire (brotli, gzip, uncompressed) through gunicorn.
3. Requests/s under wrk (keep-alive, loopback only) with gunicorn -w 2 for both apps,
   baseline and subject alternating ``--reps`` times (ratio of the medians):
   the encounter page asked for as a browser does (``Accept-Encoding: br, gzip``) against
   a bare Flask + Jinja page of the same rows (``bench/bare_panel.py``, same run, same
   database), and the live refresh when nothing changed (the tab's version and fragment
   hashes sent as the page's script sends them) against the bare 50-row page.
4. The real work: a new post ingested through the service layer, then the refresh of a
   tab holding the page before it (a new version: the dry-run preview and the fragments
   rendered again; only the changed fragments sent): bytes on the wire and time, three
   times; then the same for a tab holding nothing. No answer here comes from a preview
   kept for an unchanged version.

Load generator and servers share this machine's two cores: the load average is printed
at the start and the end, and only ratios from one run count.

``--before REV`` measures the code of git revision REV too, in the same run, on a copy of
the same seeded database (``git archive`` into a temporary directory, run by a subprocess
with that tree first on ``sys.path``; the working tree is not touched).
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


def render_times(url: str, eid: int, n: int) -> dict[str, float]:
    """In process (test client): the page served from its kept rendering, the page built
    (the kept fragments dropped before each request: the preview and every fragment
    rendered again), and the dashboard, medians of *n*."""
    app = create_app({"TESTING": True, "SECRET_KEY": "bench", "DATABASE_URL": url, "WTF_CSRF_ENABLED": False})
    c = app.test_client()
    assert c.post("/login", data={"name": "alice", "password": sample.PASSWORD}).status_code == 302
    from pbp.panel import encounter_view
    try:
        from pbp.panel import fragments
    except ImportError:        # --before a revision without them
        fragments = None  # type: ignore[assignment]

    def median(path: str, cold: bool = False) -> tuple[float, int]:
        times, size = [], 0
        for _ in range(n):
            if cold:
                if fragments is not None:
                    fragments._KEPT.clear()
                encounter_view._PREVIEWS.clear()
            t = time.perf_counter()
            r = c.get(path)
            times.append(time.perf_counter() - t)
            assert r.status_code == 200, r.status_code
            size = len(r.data)
        return statistics.median(times), size

    c.get(f"/encounters/{eid}")  # warm the template cache
    page, size = median(f"/encounters/{eid}")
    built, _ = median(f"/encounters/{eid}", cold=True)
    base, _ = median("/")
    return {"page_ms": page * 1000, "built_ms": built * 1000, "dashboard_ms": base * 1000, "page_bytes": size}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def login_cookie(port: int) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
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


def get(port: int, path: str, headers: dict[str, str]) -> tuple[int, bytes, dict[str, str], float]:
    """One GET: status, body as sent (compressed if it was), headers, seconds."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    t = time.perf_counter()
    conn.request("GET", path, headers={"User-Agent": UA, **headers})
    r = conn.getresponse()
    body = r.read()
    took = time.perf_counter() - t
    conn.close()
    return r.status, body, {k.lower(): v for k, v in r.getheaders()}, took


def decoded(body: bytes, hdrs: dict[str, str]) -> bytes:
    enc = hdrs.get("content-encoding", "")
    if enc == "br":
        import brotli
        return brotli.decompress(body)
    if enc == "gzip":
        import gzip
        return gzip.decompress(body)
    return body


def load_wrk(port: int, path: str, headers: dict[str, str], clients: int, seconds: float) -> tuple[float, float]:
    """Requests/s and mean latency (ms) of GET *path* from wrk (C, keep-alive, 2 threads)."""
    cmd = ["wrk", "-t", "2", "-c", str(clients), "-d", f"{max(1, int(seconds))}s", "-H", f"User-Agent: {UA}"]
    for k, v in headers.items():
        cmd += ["-H", f"{k}: {v}"]
    out = subprocess.run(cmd + [f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True, check=False,
                         timeout=seconds + 60).stdout
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    total = int(re.search(r"(\d+) requests in", out).group(1))
    if bad:   # a refused answer counts as none; more than one in a hundred voids the figure
        print(f"    ({bad.group(1)} of {total} answers were not 2xx: {path})", flush=True)
        assert int(bad.group(1)) * 100 <= total, out
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)) * (1 - int(bad.group(1)) / total if bad else 1)
    m = re.search(r"Latency\s+([\d.]+)(us|ms|s)", out)
    ms = float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]
    return rps, ms


def load(port: int, path: str, headers: dict[str, str], clients: int, seconds: float) -> tuple[float, float]:
    """Requests/s and median latency (ms) of GET *path* from *clients* keep-alive threads
    (when wrk is not installed)."""
    stop = time.perf_counter() + seconds
    counts = [0] * clients
    lat: list[list[float]] = [[] for _ in range(clients)]
    errors: list[str] = []

    def worker(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.perf_counter() < stop:
            t = time.perf_counter()
            conn.request("GET", path, headers={"User-Agent": UA, **headers})
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


def serve(app: str, port: int, env: dict[str, str], cwd: str, extra: list[str] | None = None) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", "2", "-b", f"127.0.0.1:{port}",
                             "--log-level", "warning", *(extra or []), app], env=env, cwd=cwd)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{app} did not start")


BROWSER = {"Accept-Encoding": "br, gzip"}   # what a browser offers


def page_state(html: str) -> tuple[str, str]:
    """The version and the ``X-Live-Have`` header a tab holding *html* sends."""
    version = re.search(r'data-live-version="([^"]+)"', html).group(1)
    m = re.search(r'<script type="application/json" id="live-hashes">(.*?)</script>', html, re.S)
    hashes = json.loads(m.group(1))["hashes"] if m else {}
    return version, ",".join(f"{k}:{v}" for k, v in hashes.items())


def measure(url: str, ids: dict, args: argparse.Namespace, data_dir: str) -> dict[str, float]:
    """Every figure of one code tree against the seeded database at *url*."""
    out: dict[str, float] = {}
    eid = ids["encounter"]
    out.update(render_times(url, eid, args.renders))
    print(f"in process: encounter page (50 combatants, 200 posts, {out['page_bytes'] / 1024:.0f} KiB of HTML) "
          f"{out['page_ms']:.1f} ms median from its kept rendering, {out['built_ms']:.1f} ms built "
          f"(fragments and preview dropped first); dashboard {out['dashboard_ms']:.2f} ms", flush=True)

    port, bare_port = free_port(), free_port()
    env = dict(os.environ, PBP_DATABASE_URL=url, PBP_DATA_DIR=data_dir, PBP_PANEL_REFRESH_INTERVAL_MS="5000",
               PYTHONPATH=os.pathsep.join([str(CODE), os.environ.get("PYTHONPATH", "")]))
    proc = serve("pbp.panel:create_app()", port, env, str(CODE))
    bare = serve("bare_panel:app", bare_port, dict(os.environ, PBP_BARE_DB=url.removeprefix("sqlite:///")),
                 str(ROOT), ["--pythonpath", str(ROOT / "bench")])
    try:
        cookie = login_cookie(port)
        auth = {"Cookie": cookie}
        page = f"/encounters/{eid}"
        live = f"{page}/live"
        # the page on the wire, as a browser asks for it and as plain HTML
        for enc in ("br", "gzip", "identity"):
            status, body, hdrs, _ = get(port, page, {**auth, "Accept-Encoding": enc})
            assert status == 200 and hdrs.get("content-encoding", "identity") == enc, (status, hdrs)
            out[f"wire_{enc}"] = len(body)
        print(f"the page on the wire: brotli {out['wire_br']:,} B, gzip {out['wire_gzip']:,} B, "
              f"uncompressed {out['wire_identity']:,} B (target: at most 150 KB)", flush=True)
        _s, body, hdrs, _ = get(port, page, {**auth, **BROWSER})
        version, have = page_state(decoded(body, hdrs).decode())
        gen = load_wrk if shutil.which("wrk") else load
        print(f"load generator: {'wrk' if gen is load_wrk else 'Python threads (install wrk)'}, "
              f"{args.clients} connections, {args.seconds:.0f} s a run, {args.reps} runs each, alternating; "
              "gunicorn -w 2 for both apps")
        pairs = [("page", (bare_port, f"/page/{eid}", {}), (port, page, {**auth, **BROWSER}),
                  "bare Flask+Jinja page, same rows (baseline)", "encounter page (br, as a browser)"),
                 ("unchanged", (bare_port, f"/rows/{eid}", {}),
                  (port, f"{live}?v={version}", {**auth, **BROWSER, "X-Live-Have": have}),
                  "bare Flask+Jinja 50-row page (baseline)", "live refresh, nothing changed")]
        # baseline and subject alternate, args.reps times each: the load of this shared
        # machine moves both alike; the ratio is of the medians
        for key, (bp, bpath, bh), (sp, spath, sh), blabel, slabel in pairs:
            base_runs, subject_runs = [], []
            for _ in range(args.reps):
                base_runs.append(gen(bp, bpath, bh, args.clients, args.seconds)[0])
                subject_runs.append(gen(sp, spath, sh, args.clients, args.seconds)[0])
            b, a = statistics.median(base_runs), statistics.median(subject_runs)
            out[f"bare_{key}_rps"], out[f"{key}_rps"], out[f"{key}_ratio"] = b, a, a / b
            print(f"  {blabel}: {b:,.1f} req/s (median of {', '.join(f'{x:,.0f}' for x in base_runs)})", flush=True)
            print(f"  {slabel}: {a:,.1f} req/s (median of {', '.join(f'{x:,.0f}' for x in subject_runs)})", flush=True)
        print(f"ratios: page / bare same-row page {out['page_ratio']:.2f}x (target at least 0.5x); "
              f"unchanged refresh / bare 50-row page {out['unchanged_ratio']:.2f}x (target at least 0.8x); "
              f"load average now {os.getloadavg()[0]:.2f}", flush=True)
        # a worker's poll that re-saw the 200 posts unchanged is no change for the page
        poll_unchanged(url, ids["thread"])
        st, body, hdrs, took = get(port, f"{live}?v={version}", {**auth, **BROWSER, "X-Live-Have": have})
        same = st == 204 or not json.loads(decoded(body, hdrs))["changed"]   # 204: no body (SCALE-5)
        print(f"refresh after a poll that re-saw the posts unchanged: changed={not same} (HTTP {st}, "
              f"{len(body)} B, Set-Cookie: {'set-cookie' in hdrs}), {took * 1000:.1f} ms", flush=True)
        # one new post, then the refresh of a tab holding the page before it: the real work
        # (a new version: the dry-run preview and every fragment rendered again in that worker)
        sizes, times, sent = [], [], []
        for k in range(3):
            new_post(url, ids["thread"], k)
            _st, body, hdrs, took = get(port, f"{live}?v={version}", {**auth, **BROWSER, "X-Live-Have": have})
            answer = json.loads(decoded(body, hdrs))
            assert answer["changed"], answer
            sizes.append(len(body))
            times.append(took)
            sent.append(sorted(k2 if not k2.startswith("post-") else "post-N" for k2 in answer.get("fragments", {})))
            # the tab now holds what it was sent
            held = dict(item.split(":") for item in have.split(",") if item) if have else {}
            held.update(answer.get("hashes", {}))
            version, have = answer["version"], ",".join(f"{a}:{b}" for a, b in held.items())
        out["one_post_bytes"] = statistics.median(sizes)
        out["one_post_ms"] = statistics.median(times) * 1000
        print(f"refresh after one new post (tab holding the page before it): {out['one_post_bytes']:,.0f} B on the wire "
              f"median of {sizes} (target under 10 KB), {out['one_post_ms']:.0f} ms median (preview and fragments "
              f"rendered: a new version); fragments sent: {sent[-1]}", flush=True)
        # the same real work for a tab that holds nothing (a new tab): everything sent
        new_post(url, ids["thread"], 3)
        _st, body, hdrs, took = get(port, live, {**auth, **BROWSER})
        out["full_bytes"], out["full_ms"] = len(body), took * 1000
        print(f"full refresh after a new post, tab holding nothing: {len(body):,} B on the wire "
              f"({len(decoded(body, hdrs)):,} B of JSON), {took * 1000:.0f} ms", flush=True)
    finally:
        for p in (proc, bare):
            p.terminate()
            p.wait(10)
    return out


def new_post(url: str, thread_id: int, k: int) -> None:
    """A player's new post in the open round, ingested through the service layer as a
    worker's poll would."""
    from datetime import UTC, datetime

    from sqlalchemy import select

    from pbp.rounds import service
    from pbp.sources.base import PostRecord
    from pbp.store.models import Post

    engine = make_engine(url)
    with session_scope(engine) as s:
        last = s.scalars(select(Post).where(Post.thread_id == thread_id, Post.is_ours.is_(False))
                         .order_by(Post.posted_at.desc())).first()
        text = f"I attack Goblin 1 [roll]1d20+6[/roll] \"bench {k}\""
        service.ingest_posts(s, thread_id, [PostRecord(
            platform_id=f"bench-{k}-{time.time_ns()}", author=last.author, posted_at=datetime.now(UTC), body=text,
            text=text, fmt="bbcode", revision=f"bench-{k}-{time.time_ns()}", url=None)], now=datetime.now(UTC))
    engine.dispose()


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
    ap.add_argument("--renders", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--reps", type=int, default=3, help="alternating runs of baseline and subject")
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
        print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        if args.before:
            tree = Path(tmp) / "before"
            tree.mkdir()
            top = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", args.before],
                                 capture_output=True, check=True, text=True).stdout.split()  # templates/, config/: at the root before pbp/ held them
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, *(p for p in ("pbp", "templates", "config") if p in top)],
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
            print(f"\n--- before: {args.before} ---", flush=True)
            out = Path(tmp) / "before.json"
            subprocess.run([sys.executable, __file__, "--code", str(tree), "--db", copy_db(seeded, Path(tmp) / "b.sqlite"),
                            "--ids", json.dumps(ids), "--result", str(out), "--renders", str(args.renders),
                            "--seconds", str(args.seconds), "--clients", str(args.clients),
                            "--reps", str(args.reps)], check=True)
            results["before"] = json.loads(out.read_text())
            print("\n--- after: this tree ---", flush=True)
        results["after"] = measure(copy_db(seeded, Path(tmp) / "a.sqlite"), ids, args, tmp)
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        if "before" in results:
            b, a = results["before"], results["after"]
            print(f"\n{'':40}{'before':>12}{'after':>12}")
            for key in a:
                if key in b:
                    print(f"{key:40}{b[key]:>12,.1f}{a[key]:>12,.1f}")


if __name__ == "__main__":
    main()
