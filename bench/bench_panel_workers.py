"""Issue 17 item 4 (SCALE-4): gunicorn -w 1 against -w 2 on the dashboard and the encounter
page (50 combatants, 200 posts), wrk as the load generator (``apt-get install wrk``), with
the load average printed beside each figure (the machine is shared) and the -w 2 / -w 1
ratio from the same run.

    python bench/bench_panel_workers.py [--repeat 3] [--seconds 8]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
import bench_panel as bp  # noqa: E402


def _wait_for(port: int) -> None:
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"gunicorn did not listen on {port}")


def _rps(port: int, path: str, cookie: str, seconds: int) -> float:
    out = subprocess.run(["wrk", "-t2", "-c4", f"-d{seconds}s", "-H", f"Cookie: {cookie}",
                          "-H", f"User-Agent: {bp.UA}", "-H", "Accept-Encoding: br",
                          f"http://127.0.0.1:{port}{path}"],
                         capture_output=True, text=True, check=True).stdout
    hit = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if hit is None:
        raise SystemExit(f"wrk printed no rate:\n{out}")
    if re.search(r"Non-2xx", out):
        print(f"  warning: {path} answered non-2xx under load", flush=True)
    return float(hit.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=8)
    args = ap.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk)")
    d = tempfile.mkdtemp()
    url = f"sqlite:///{d}/b.db"
    ids = bp.seed(url)
    paths = ("/", f"/encounters/{ids['encounter']}")
    rates: dict[tuple[str, str], list[float]] = {}
    for rep in range(args.repeat):
        for w in ("1", "2"):
            port = bp.free_port()
            env = dict(os.environ, PBP_DATABASE_URL=url, PBP_DATA_DIR=d, PYTHONPATH=str(ROOT))
            proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", w, "-b",
                                     f"127.0.0.1:{port}", "--log-level", "warning",
                                     "pbp.panel:create_app()"], env=env, cwd=str(ROOT))
            try:
                _wait_for(port)
                time.sleep(1)
                cookie = bp.login_cookie(port)
                for path in paths:
                    rps = _rps(port, path, cookie, args.seconds)
                    rates.setdefault((w, path), []).append(rps)
                    print(f"run {rep + 1} -w {w} {path}: {rps:.1f} req/s, load "
                          f"{os.getloadavg()[0]:.2f}", flush=True)
            finally:
                proc.terminate()
                proc.wait(10)
    for path in paths:
        one, two = (sorted(rates[(w, path)])[len(rates[(w, path)]) // 2] for w in ("1", "2"))
        print(f"{path}: median -w 1 {one:.1f}, -w 2 {two:.1f} req/s: {two / one:.2f}x "
              "(target 1.8x)")


if __name__ == "__main__":
    main()
