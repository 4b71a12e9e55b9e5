"""Start and stop a harness machina server (stdlib only; used by tests and the benchmark).

    python tests/harness/machina/server.py [--etag] [--flood S] [PORT]   # runs until Ctrl-C

Each server runs on its own copy of the seeded template database, so tests start from
the same forum every time and two servers (with and without ETags) do not share writes.
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON = HERE / "venv" / "bin" / "python"
TEMPLATE_DB = HERE / "site" / "template.sqlite3"
BENCH_DB = HERE / "site" / "bench.sqlite3"     # the template plus 200 topics in "Bench"


def ready() -> bool:
    return PYTHON.exists() and TEMPLATE_DB.exists() and BENCH_DB.exists() and \
        (HERE / "site" / ".stamp").exists()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class MachinaServer:
    base: str
    port: int
    db: Path
    etag: bool
    proc: subprocess.Popen
    workdir: Path

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(HERE), "DJANGO_SETTINGS_MODULE": "host.settings",
                "MACHINA_DB": str(self.db)}

    def seed(self, *args: str) -> list[str]:
        """Run seed.py against this server's database; its output lines."""
        out = subprocess.run([str(PYTHON), str(HERE / "seed.py"), *args], env=self.env(),
                             check=True, capture_output=True, text=True, timeout=300)
        return out.stdout.splitlines()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        shutil.rmtree(self.workdir, ignore_errors=True)


def start(*, etag: bool = False, flood: float = 0, port: int | None = None,
          bench: bool = False, timeout: float = 30) -> MachinaServer:
    if not ready():
        raise RuntimeError(f"machina harness not set up: run bash {HERE / 'setup.sh'}")
    port = port or free_port()
    workdir = Path(tempfile.mkdtemp(prefix=f"machina-{port}-"))
    db = workdir / "db.sqlite3"
    shutil.copyfile(BENCH_DB if bench else TEMPLATE_DB, db)
    env = {**os.environ, "PYTHONPATH": str(HERE), "DJANGO_SETTINGS_MODULE": "host.settings",
           "MACHINA_DB": str(db), "MACHINA_ETAG": "1" if etag else "0",
           "MACHINA_FLOOD": str(flood)}
    with open(workdir / "server.log", "wb") as log:   # the child keeps its own copy
        proc = subprocess.Popen([str(PYTHON), "-m", "django", "runserver", f"127.0.0.1:{port}",
                                 "--noreload", "--skip-checks"],
                                env=env, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
    server = MachinaServer(f"http://127.0.0.1:{port}", port, db, etag, proc, workdir)
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        if proc.poll() is not None:
            raise RuntimeError("machina server died: " + (workdir / "server.log").read_text()[-2000:])
        try:
            urllib.request.urlopen(server.base + "/forum/", timeout=2).read()
            return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"machina server did not answer on port {port} within {timeout:g} s")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("port", nargs="?", type=int, default=8002)
    ap.add_argument("--etag", action="store_true")
    ap.add_argument("--flood", type=float, default=0)
    a = ap.parse_args()
    s = start(etag=a.etag, flood=a.flood, port=a.port)
    print("machina at", s.base, "(etag)" if a.etag else "", flush=True)
    try:
        s.proc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        s.stop()
        sys.exit(0)
