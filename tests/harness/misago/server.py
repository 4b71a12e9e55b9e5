"""Start and stop a harness Misago server (stdlib only; used by the tests).

    python tests/harness/misago/server.py [PORT]   # runs until Ctrl-C

Each server runs on its own copy of the seeded template database (PostgreSQL's
``CREATE DATABASE ... TEMPLATE misago_template``), dropped when it stops, so tests start
from the same forum every time.
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
PG = {"PGHOST": os.environ.get("MISAGO_DB_HOST", "127.0.0.1"),
      "PGUSER": os.environ.get("MISAGO_DB_USER", "postgres")}


def ready() -> bool:
    return PYTHON.exists() and (HERE / "site" / ".stamp").exists()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _psql(sql: str) -> None:
    subprocess.run(["psql", "-d", "postgres", "-qc", sql], env={**os.environ, **PG}, check=True,
                   capture_output=True, timeout=60)


@dataclass
class MisagoServer:
    base: str
    port: int
    db: str
    proc: subprocess.Popen
    workdir: Path

    def env(self) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(HERE), "DJANGO_SETTINGS_MODULE": "host.settings",
                "MISAGO_DB": self.db}

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
        try:
            _psql(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.workdir, ignore_errors=True)


def start(*, port: int | None = None, timeout: float = 60) -> MisagoServer:
    if not ready():
        raise RuntimeError(f"misago harness not set up: run bash {HERE / 'setup.sh'}")
    port = port or free_port()
    db = f"misago_run_{port}"
    _psql(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
    _psql(f'CREATE DATABASE "{db}" TEMPLATE misago_template')
    workdir = Path(tempfile.mkdtemp(prefix=f"misago-{port}-"))
    env = {**os.environ, "PYTHONPATH": str(HERE), "DJANGO_SETTINGS_MODULE": "host.settings",
           "MISAGO_DB": db}
    with open(workdir / "server.log", "wb") as log:   # the child keeps its own copy
        proc = subprocess.Popen([str(PYTHON), "-m", "django", "runserver", f"127.0.0.1:{port}",
                                 "--noreload", "--skip-checks"],
                                env=env, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)
    server = MisagoServer(f"http://127.0.0.1:{port}", port, db, proc, workdir)
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        if proc.poll() is not None:
            log_text = (workdir / "server.log").read_text()[-2000:]
            server.stop()
            raise RuntimeError("misago server died: " + log_text)
        try:
            urllib.request.urlopen(server.base + "/api/threads/?category=3", timeout=5).read()
            return server
        except OSError:
            time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"misago server did not answer on port {port} within {timeout:g} s")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("port", nargs="?", type=int, default=8003)
    a = ap.parse_args()
    s = start(port=a.port)
    print("misago at", s.base, flush=True)
    try:
        s.proc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        s.stop()
        sys.exit(0)
