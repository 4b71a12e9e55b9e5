"""workers/supervisor.py on small real processes (issue 18 item 1): restarts with a
doubling backoff, a crash loop stopped and reported, every child stopped on ``stop()``
within its grace, and a child that outlives its ``pbp serve`` stopping itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT

from .conftest import wait_for

ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def _sup():  # type: ignore[no-untyped-def]
    """workers.supervisor, imported late: in tests/ the name ``workers`` is tests/workers
    until the repository's package is imported (as in test_integration.py)."""
    import importlib

    return importlib.import_module("workers.supervisor")


def _gone(pid: int) -> bool:
    """The process no longer runs (a zombie waiting for its reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in {"Z", "X"}


def test_the_backoff_doubles_from_the_setting_and_stops_at_the_cap() -> None:
    """Issue 18: exponential backoff with a cap. restart_backoff = 1 s: 1, 2, 4, 8, 16, 32,
    then the cap."""
    sv = _sup()
    policy = sv.Policy(restart_max=5, restart_window=300, backoff=1.0)
    assert [policy.delay(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 32, sv.BACKOFF_CAP]
    assert sv.Policy(backoff=0.5).delay(1) == 0.5


def test_a_crash_loop_is_restarted_a_bounded_number_of_times_then_reported(tmp_path: Path) -> None:
    """Issue 18: a worker that exits at once is restarted restart_max (3) times, so started
    4 times in all, then left stopped, reported once; nothing is restarted after that."""
    starts = tmp_path / "starts"
    argv = [sys.executable, "-c", f"open({str(starts)!r}, 'a').write('x\\n'); raise SystemExit(3)"]
    sv = _sup()
    given_up: list[str] = []
    child = sv.Child("worker", argv)
    sup = sv.Supervisor([child], ENV, sv.Policy(restart_max=3, restart_window=60, backoff=0.05),
                     on_give_up=lambda c: given_up.append(c.name))
    sup.start()
    try:
        wait_for(lambda: child.gave_up, 30, "the supervisor to give up")
        time.sleep(0.5)                                  # nothing more happens
        assert starts.read_text().count("x") == 4 and child.started == 4
        assert given_up == ["worker"] and not sup.alive()
    finally:
        sup.stop(1)


def test_a_killed_child_is_restarted_and_stop_ends_every_child(tmp_path: Path) -> None:
    """SIGKILL of a child: started again after restart_backoff; ``stop()`` ends both
    children within the grace, the one that ignores SIGTERM by SIGKILL."""
    ready = tmp_path / "ready"
    stubborn = [sys.executable, "-c", "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                f"open({str(ready)!r}, 'w').write('1'); time.sleep(120)"]
    sv = _sup()
    sleeper = sv.Child("beat", [sys.executable, "-c", "import time; time.sleep(120)"])
    worker = sv.Child("worker", stubborn)
    sup = sv.Supervisor([worker, sleeper], ENV, sv.Policy(restart_max=5, restart_window=60, backoff=0.1))
    sup.start()
    try:
        first = sleeper.pid
        assert first is not None
        killed = time.monotonic()
        os.kill(first, signal.SIGKILL)
        wait_for(lambda: sleeper.pid != first and sleeper.proc is not None and sleeper.proc.poll() is None,
                 10, "beat restarted")
        assert time.monotonic() - killed < 3                      # 0.1 s backoff + a 0.2 s look
        assert sleeper.started == 2 and len(sleeper.restarts) == 1
        wait_for(ready.exists, 10, "the stubborn child to ignore SIGTERM")
    finally:
        began = time.monotonic()
        sup.stop(grace=1.0)
        took = time.monotonic() - began
    assert took < 4, took
    assert worker.proc is not None and worker.proc.returncode == -signal.SIGKILL
    assert sleeper.proc is not None and sleeper.proc.returncode == -signal.SIGTERM
    sup.check()                                                    # stopped: nothing restarts
    assert sleeper.started == 2 and worker.started == 1


def test_a_child_stops_itself_when_its_pbp_serve_is_killed(tmp_path: Path) -> None:
    """No orphan: a child whose parent dies by SIGKILL (no chance to stop it) ends itself
    (workers.health.watch_parent)."""
    pidfile = tmp_path / "child.pid"
    child_code = ("import os, sys, time; from workers.health import watch_parent; "
                  "watch_parent(os.getppid(), every=0.1); "
                  f"open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(120)")
    parent_code = (f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {child_code!r}]); "
                   "time.sleep(120)")
    parent = subprocess.Popen([sys.executable, "-c", parent_code], env=ENV)
    try:
        wait_for(lambda: pidfile.exists() and pidfile.read_text().strip(), 30, "the child to start")
        child_pid = int(pidfile.read_text())
        assert not _gone(child_pid)
        parent.kill()
        parent.wait(5)
        wait_for(lambda: _gone(child_pid), 15, "the orphaned child to stop itself")
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait(5)


def test_a_command_that_cannot_be_started_is_reported_not_retried(tmp_path: Path) -> None:
    """A misspelt serve_worker_command: reported once, the other children still run."""
    sv = _sup()
    given_up: list[str] = []
    broken = sv.Child("worker", [str(tmp_path / "no-such-program")])
    fine = sv.Child("beat", [sys.executable, "-c", "import time; time.sleep(120)"])
    sup = sv.Supervisor([broken, fine], ENV, sv.Policy(backoff=0.05),
                        on_give_up=lambda c: given_up.append(c.name))
    sup.start()
    try:
        time.sleep(0.5)
        assert broken.gave_up and broken.started == 0 and given_up == ["worker"]
        assert fine.proc is not None and fine.proc.poll() is None and sup.alive()
    finally:
        sup.stop(1)


STOP_IN_STOP = """
import signal, sys, time
from workers.supervisor import Child, Policy, Supervisor
stubborn = [sys.executable, "-c",
            "import signal, time; signal.signal(signal.SIGTERM, lambda *a: None); time.sleep(60)"]
child = Child("worker", stubborn)
sup = Supervisor([child], {}, Policy(backoff=0.05))
sup.start()
time.sleep(1.0)                                   # the child runs and ignores SIGTERM
signal.signal(signal.SIGALRM, lambda *a: sup.stop(0.5))
signal.setitimer(signal.ITIMER_REAL, 0.3)         # a second stop, from a signal, inside the first
sup.stop(2.0)
print("stopped", child.proc.poll() is not None)
"""


def test_a_stop_called_again_from_a_signal_inside_a_stop_returns() -> None:
    """Issue 18: ``stop()`` run again by a signal handler while the same thread is inside
    ``stop()`` (a second SIGTERM to ``pbp serve``, found walking the installed demo:
    pbp serve stayed alive, its panel's port open, its children zombies) returns, and
    the stubborn child is killed. With a plain lock the second stop waited forever."""
    env = dict(ENV)
    done = subprocess.run([sys.executable, "-c", STOP_IN_STOP], env=env, capture_output=True,
                          text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "stopped True", done.stdout + done.stderr
