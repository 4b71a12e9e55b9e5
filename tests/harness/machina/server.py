"""Start and stop a harness machina server (stdlib only; used by tests and the benchmark).

    python tests/harness/machina/server.py [--etag] [--flood S] [PORT]   # runs until Ctrl-C

Each server runs on its own copy of the seeded template database, so tests start from
the same forum every time and two servers (with and without ETags) do not share writes.
What Misago's server.py does alike is in tests/harness/django_server.py.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parents[2]) not in sys.path:     # run as a script, or loaded by the benchmark
    sys.path.insert(0, str(HERE.parents[2]))
from tests.harness import django_server as dj  # noqa: E402

PYTHON = HERE / "venv" / "bin" / "python"
TEMPLATE_DB = HERE / "site" / "template.sqlite3"
BENCH_DB = HERE / "site" / "bench.sqlite3"     # the template plus 200 topics in "Bench"


def ready() -> bool:
    return PYTHON.exists() and TEMPLATE_DB.exists() and BENCH_DB.exists() and \
        (HERE / "site" / ".stamp").exists()


@dataclass
class MachinaServer(dj.DjangoServer):
    db: Path
    etag: bool

    here = HERE

    def env(self) -> dict[str, str]:
        return dj.django_env(HERE, MACHINA_DB=str(self.db))


def start(*, etag: bool = False, flood: float = 0, port: int | None = None,
          bench: bool = False, timeout: float = 30) -> MachinaServer:
    if not ready():
        raise RuntimeError(f"machina harness not set up: run bash {HERE / 'setup.sh'}")
    port = port or dj.free_port()
    workdir = Path(tempfile.mkdtemp(prefix=f"machina-{port}-"))
    db = workdir / "db.sqlite3"
    shutil.copyfile(BENCH_DB if bench else TEMPLATE_DB, db)
    env = dj.django_env(HERE, MACHINA_DB=str(db), MACHINA_ETAG="1" if etag else "0", MACHINA_FLOOD=str(flood))
    proc = dj.runserver(HERE, port, workdir, env)
    server = MachinaServer(f"http://127.0.0.1:{port}", port, proc, workdir, db, etag)
    return dj.answering(server, "/forum/", timeout, "machina")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("port", nargs="?", type=int, default=8002)
    ap.add_argument("--etag", action="store_true")
    ap.add_argument("--flood", type=float, default=0)
    a = ap.parse_args()
    s = start(etag=a.etag, flood=a.flood, port=a.port)
    dj.until_interrupted(s, f"machina at {s.base}{' (etag)' if a.etag else ''}")
