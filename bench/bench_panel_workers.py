"""Issue 17 item 4 (SCALE-4): gunicorn -w 1 against -w 2 on the dashboard and the encounter
page (50 combatants, 200 posts), wrk as the load generator (apt-get install wrk), with the
load average printed beside each figure (the machine is shared).

    python bench/bench_panel_workers.py
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench")); sys.path.insert(0, str(ROOT))
import bench_panel as bp

d = tempfile.mkdtemp(); url = f"sqlite:///{d}/b.db"
ids = bp.seed(url)
for w in ("1", "2"):
    port = bp.free_port()
    env = dict(os.environ, PBP_DATABASE_URL=url, PBP_DATA_DIR=d, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "gunicorn", "-w", w, "-b", f"127.0.0.1:{port}", "--log-level", "warning", "pbp.panel:create_app()"], env=env, cwd=str(ROOT))
    for _ in range(100):
        try: socket.create_connection(("127.0.0.1", port), timeout=0.2).close(); break
        except OSError: time.sleep(0.1)
    time.sleep(1)
    cookie = bp.login_cookie(port)
    for path in ("/", f"/encounters/{ids['encounter']}"):
        out = subprocess.run(["wrk", "-t2", "-c4", "-d8s", "-H", f"Cookie: {cookie}", "-H", f"User-Agent: {bp.UA}", "-H", "Accept-Encoding: br", f"http://127.0.0.1:{port}{path}"], capture_output=True, text=True).stdout
        rps = re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)
        non = re.search(r"Non-2xx.*", out)
        print(f"-w {w} {path}: {rps} req/s {non.group(0) if non else ''} load {os.getloadavg()}", flush=True)
    p.terminate(); p.wait(10)
