"""What the forum harnesses' server.py share (stdlib only: each server.py is also run as a
script, and the benchmark loads it from its path): Django's runserver on the harness's
host project, on a free port and in a work folder of its own, waited for until it
answers, and stopped (its work folder removed) when done."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def django_env(here: Path, **names: str) -> dict[str, str]:
    """The environment of the harness's host project in *here*, *names* (its database)
    added."""
    return {**os.environ, "PYTHONPATH": str(here), "DJANGO_SETTINGS_MODULE": "host.settings", **names}


@dataclass
class DjangoServer:
    """One running harness forum; ``env()`` is the environment its own scripts (seed.py,
    Django's ORM) need to reach its database."""

    base: str
    port: int
    proc: subprocess.Popen[bytes]
    workdir: Path

    here = Path()     # the harness folder (host/, seed.py, venv/): set by each harness

    def env(self) -> dict[str, str]:
        raise NotImplementedError

    def seed(self, *args: str) -> list[str]:
        """Run seed.py against this server's database; its output lines."""
        out = subprocess.run([str(self.here / "venv" / "bin" / "python"), str(self.here / "seed.py"), *args],
                             env=self.env(), check=True, capture_output=True, text=True, timeout=300)
        return out.stdout.splitlines()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.drop()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def drop(self) -> None:
        """Remove what the server used outside its work folder (nothing, unless told)."""


def runserver(here: Path, port: int, workdir: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """Django's development server of the host project in *here*, logging to
    *workdir*/server.log."""
    with open(workdir / "server.log", "wb") as log:   # the child keeps its own copy
        return subprocess.Popen([str(here / "venv" / "bin" / "python"), "-m", "django", "runserver",
                                 f"127.0.0.1:{port}", "--noreload", "--skip-checks", "--insecure"],
                                env=env, stdout=log, stderr=subprocess.STDOUT, cwd=workdir)


Server = TypeVar("Server", bound=DjangoServer)


def answering(server: Server, path: str, timeout: float, name: str) -> Server:
    """*server* once *path* answers; stopped, and RuntimeError, if it dies or stays
    silent for *timeout* seconds."""
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        if server.proc.poll() is not None:
            log_text = (server.workdir / "server.log").read_text()[-2000:]
            server.stop()
            raise RuntimeError(f"{name} server died: " + log_text)
        try:
            urllib.request.urlopen(server.base + path, timeout=5).read()
            return server
        except OSError:
            time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"{name} server did not answer on port {server.port} within {timeout:g} s")


def until_interrupted(server: DjangoServer, says: str) -> None:
    """The script's way (``python server.py``): say where it runs, run until Ctrl-C, stop."""
    print(says, flush=True)
    try:
        server.proc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
        sys.exit(0)
