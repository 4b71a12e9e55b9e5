"""A narrator's pbp from nothing: the ``pbp`` command run as a subprocess on an empty data
directory, as the README says (``pbp narrator add``, then ``pbp serve``: the embedded
default, SQLite and the embedded broker), and bounded waits that say what pbp saw when
they run out."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import requests

from tests.conftest import ROOT

T = TypeVar("T")
#: every step of a journey waits at most this long (a poll, a sweep and a delivery fit in it)
STEP = 90.0
#: the pbp settings a journey may not inherit from the developer's or CI's environment
_CLEARED = ("PBP_DATA_DIR", "PBP_DATABASE_URL", "PBP_BROKER_URL", "PBP_CONFIG", "PBP_RESULT_BACKEND",
            "PBP_SECRET_KEY", "PBP_SECRETS_FILE", "PBP_LOCK_URL", "PBP_BROKER_KEYPREFIX")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Pbp:
    """pbp as a narrator runs it: commands in a fresh user's data directory (*home*, as
    ``XDG_DATA_HOME``), ``pbp serve`` on a free port with *env* (secrets, intervals)."""

    def __init__(self, home: Path, env: dict[str, str]) -> None:
        self.home = home
        self.env = {k: v for k, v in os.environ.items() if k not in _CLEARED}
        self.env.update({"XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
                         "PYTHONPATH": str(ROOT), **env})
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = home / "serve.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def data_dir(self) -> Path:
        return self.home / "data" / "pbp"

    def cli(self, *args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """``pbp ARGS`` from another working directory (the data is found wherever it is run)."""
        return subprocess.run([sys.executable, "-m", "pbp.cli", *args], input=stdin, env=self.env,
                              cwd=self.home, capture_output=True, text=True, timeout=timeout, check=False)

    def serve(self) -> None:
        """``pbp serve`` (panel, worker, beat), its output in :attr:`log_path`; returns once
        the panel answers."""
        with open(self.log_path, "wb") as log:    # the child keeps its own descriptor
            self.proc = subprocess.Popen([sys.executable, "-m", "pbp.cli", "serve", "--port", str(self.port)],
                                         env=self.env, cwd=self.home, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)

        def up() -> bool:
            assert self.proc is not None and self.proc.poll() is None, self.log()
            try:
                with requests.get(self.base + "/login", timeout=2) as r:
                    return r.status_code == 200
            except requests.RequestException:
                return False
        wait_until(up, 60, "the panel of pbp serve", self.report)

    def stop(self) -> None:
        """Ctrl-C's way out: SIGTERM to ``pbp serve`` (it stops its worker and beat), then
        the process group if anything is left."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        try:   # a worker or beat left behind by a crash: same group, started by us
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def log(self, tail: int = 6000) -> str:
        return self.log_path.read_text(errors="replace")[-tail:] if self.log_path.exists() else ""

    def status(self) -> str:
        done = self.cli("status")
        return done.stdout + done.stderr

    def report(self) -> str:
        """What pbp says of itself, for a step that timed out."""
        return f"--- pbp status\n{self.status()}\n--- pbp serve log (tail)\n{self.log()}"


def wait_until(probe: Callable[[], T], timeout: float, what: str, report: Callable[[], str] = lambda: "",
               every: float = 1.0) -> T:
    """*probe*'s first truthy answer within *timeout* seconds; else fail, naming *what* and
    printing *report* (what the thread and ``pbp status`` show)."""
    until = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        if time.monotonic() > until:
            text = report()
            print(text)
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}\n{text[-3000:]}")
        time.sleep(every)


def csv_file(path: Path, rows: list[dict[str, Any]]) -> Path:
    """A combatant file as a narrator writes it (pbp/panel/importer.py's columns)."""
    header = list(rows[0])
    path.write_text("\n".join([",".join(header)] + [",".join(str(r[k]) for k in header) for r in rows]) + "\n")
    return path


def visitor_verify(home: Path, url: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``pbp verify URL`` as a player runs it (DICE-4): a fresh user's empty data and config
    directories, none of pbp's settings or secrets but *env* (a Reddit application's
    read-only id, the local servers allowed)."""
    for d in ("data", "config"):
        (home / d).mkdir(parents=True, exist_ok=True)
    full = {k: v for k, v in os.environ.items() if k not in _CLEARED and not k.startswith("PBP_SECRET_")}
    full.update({"XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
                 "PYTHONPATH": str(ROOT), "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1", **env})
    return subprocess.run([sys.executable, "-m", "pbp.cli", "verify", url], env=full, cwd=home,
                          capture_output=True, text=True, timeout=120, check=False)


def files_under(home: Path) -> list[str]:
    """What a command left in *home* (a player's empty directories must stay empty)."""
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
