"""Start and stop a harness Misago server (stdlib only; used by the tests).

    python tests/harness/misago/server.py [PORT]   # runs until Ctrl-C

Each server runs on its own copy of the seeded template database (PostgreSQL's
``CREATE DATABASE ... TEMPLATE misago_template``), dropped when it stops, so tests start
from the same forum every time. What machina's server.py does alike is in
tests/harness/django_server.py.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parents[2]) not in sys.path:     # run as a script
    sys.path.insert(0, str(HERE.parents[2]))
from tests.harness import django_server as dj  # noqa: E402

PYTHON = HERE / "venv" / "bin" / "python"
PG = {"PGHOST": os.environ.get("MISAGO_DB_HOST", "127.0.0.1"),
      "PGUSER": os.environ.get("MISAGO_DB_USER", "postgres")}


def ready() -> bool:
    return PYTHON.exists() and (HERE / "site" / ".stamp").exists()


def _psql(sql: str) -> None:
    subprocess.run(["psql", "-d", "postgres", "-qc", sql], env={**os.environ, **PG}, check=True,
                   capture_output=True, timeout=60)


@dataclass
class MisagoServer(dj.DjangoServer):
    db: str

    here = HERE

    def env(self) -> dict[str, str]:
        return dj.django_env(HERE, MISAGO_DB=self.db)

    def drop(self) -> None:
        try:
            _psql(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')
        except subprocess.CalledProcessError:
            pass


def start(*, port: int | None = None, timeout: float = 60) -> MisagoServer:
    if not ready():
        raise RuntimeError(f"misago harness not set up: run bash {HERE / 'setup.sh'}")
    port = port or dj.free_port()
    db = f"misago_run_{port}"
    _psql(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')
    _psql(f'CREATE DATABASE "{db}" TEMPLATE misago_template')
    workdir = Path(tempfile.mkdtemp(prefix=f"misago-{port}-"))
    proc = dj.runserver(HERE, port, workdir, dj.django_env(HERE, MISAGO_DB=db))
    server = MisagoServer(f"http://127.0.0.1:{port}", port, proc, workdir, db)
    return dj.answering(server, "/api/threads/?category=3", timeout, "misago")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("port", nargs="?", type=int, default=8003)
    s = start(port=ap.parse_args().port)
    dj.until_interrupted(s, f"misago at {s.base}")
