"""``pbp serve``'s children, kept alive: the worker and beat restarted when they exit
(issue 18).

Why a supervisor in ``pbp serve`` and not a process manager: the embedded default is one
command on a small machine, and a community that loses its worker to one crash loses every
game's clock. In the scaled-out layout systemd (or a container orchestrator) does this job
with ``Restart=on-failure`` (docs/operations.md); here :class:`Supervisor` does the same:

* an exit nobody asked for (a crash, SIGKILL, the OOM killer, even exit status 0) is
  restarted after a backoff: ``restart_backoff`` seconds, doubled for each further restart
  within ``restart_window`` (capped at :data:`BACKOFF_CAP`);
* a crash loop is not spun forever: after ``restart_max`` restarts within the window the
  child is left stopped, an ERROR line says so and a ``serve:<child>`` heartbeat row with
  state ``given_up`` makes the dashboard, ``pbp status`` and ``/healthz`` show it; the panel
  keeps serving;
* :meth:`Supervisor.stop` (SIGTERM, SIGINT) stops every child within ``grace`` seconds:
  SIGTERM first (Celery's warm shutdown), then SIGKILL, so none outlives ``pbp serve``;
  each child also stops itself if ``pbp serve`` dies without stopping it
  (``workers.health.watch_parent``);
* beat's heartbeat is watched (:class:`pbp.jobs.health.Watch`): a beat alive but no longer
  ticking is logged at ERROR once.
"""

from __future__ import annotations

import logging
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger("workers.supervisor")

#: the longest wait before a restart, seconds
BACKOFF_CAP = 60.0


@dataclass
class Child:
    """One supervised command and what happened to it."""

    name: str
    argv: list[str]
    proc: subprocess.Popen[bytes] | None = None
    #: monotonic times of the restarts still inside the window
    restarts: deque[float] = field(default_factory=deque)
    next_start: float | None = None
    gave_up: bool = False
    started: int = 0
    #: monotonic time of the last start
    started_at: float | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None


@dataclass(frozen=True)
class Policy:
    restart_max: int = 5
    restart_window: float = 300.0
    backoff: float = 1.0

    def delay(self, restarts: int) -> float:
        """Seconds before restart number *restarts* (1-based) within the window."""
        return min(BACKOFF_CAP, self.backoff * 2 ** max(0, restarts - 1))


class Supervisor:
    """Starts *children*, restarts the ones that exit, stops them all on :meth:`stop`.

    *on_give_up(child)* is called once when a child is left stopped, *on_start(child)*
    each time one starts (``pbp serve`` records and clears the give-up row with them);
    *watch* is called every few seconds (the heartbeat watch)."""

    def __init__(self, children: list[Child], env: dict[str, str], policy: Policy, *,
                 on_give_up: Callable[[Child], None] | None = None,
                 on_start: Callable[[Child], None] | None = None,
                 watch: Callable[[], object] | None = None, watch_every: float = 5.0) -> None:
        self.children = children
        self.env = env
        self.policy = policy
        self.on_give_up = on_give_up
        self.on_start = on_start
        self.watch = watch
        self.watch_every = watch_every
        # re-entrant: stop() may be called again from a signal handler that interrupted a
        # stop() of the same thread (a second SIGTERM); a plain lock waited there forever
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_watch = 0.0

    # -- life ---------------------------------------------------------------------------
    def start(self) -> None:
        """Start every child now, and the thread that looks after them."""
        with self._lock:
            for child in self.children:
                self._spawn(child)
        self._thread = threading.Thread(target=self.run, name="pbp-supervisor", daemon=True)
        self._thread.start()

    def run(self, every: float = 0.2) -> None:
        while not self._stopping.wait(every):
            self.check()

    def _spawn(self, child: Child) -> None:
        # its own process group: a terminal's Ctrl-C reaches pbp serve alone, which stops the
        # children in order, instead of racing them to an exit that looks like a crash
        try:
            child.proc = subprocess.Popen(child.argv, env=self.env, process_group=0)
        except OSError as exc:  # no such program: no restart would find it either
            child.gave_up, child.next_start = True, None
            log.error(f"cannot start {child.name} ({exc}); pbp serve will not retry it",
                      extra={"child": child.name, "argv": " ".join(child.argv)})
            if self.on_give_up is not None:
                self._quietly(self.on_give_up, child)
            return
        child.started += 1
        child.started_at = time.monotonic()
        child.next_start = None
        log.info(f"started {child.name}", extra={"child": child.name, "pid": child.proc.pid,
                                                  "start": child.started})
        if self.on_start is not None:
            self._quietly(self.on_start, child)

    def check(self, now: float | None = None) -> None:
        """One look: note exits, restart what is due, give up on a crash loop."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if self._stopping.is_set():
                return
            for child in self.children:
                self._check_child(child, now)
        if self.watch is not None and now - self._last_watch >= self.watch_every:
            self._last_watch = now
            self._quietly(self.watch)

    def _check_child(self, child: Child, now: float) -> None:
        if child.gave_up:
            return
        if child.next_start is not None:
            if now >= child.next_start:
                self._spawn(child)
            return
        code = child.proc.poll() if child.proc is not None else None
        if child.proc is None or code is None:
            return
        window = self.policy.restart_window
        while child.restarts and now - child.restarts[0] > window:
            child.restarts.popleft()
        if len(child.restarts) >= self.policy.restart_max:
            child.gave_up = True
            log.error(f"{child.name} exited (status {code}) after {len(child.restarts)} restarts "
                      f"within {window:g} s; pbp serve stops restarting it. The panel keeps "
                      f"serving; fix the cause (see the {child.name}'s lines above) and restart "
                      "pbp serve", extra={"child": child.name, "status": code})
            if self.on_give_up is not None:
                self._quietly(self.on_give_up, child)
            return
        child.restarts.append(now)
        delay = self.policy.delay(len(child.restarts))
        child.next_start = now + delay
        log.warning(f"{child.name} exited unexpectedly (status {code}); restarting in {delay:g} s",
                    extra={"child": child.name, "status": code, "pid": child.proc.pid,
                           "restart": len(child.restarts)})

    def running_for(self, name: str, now: float | None = None) -> float | None:
        """Seconds since the child *name* was started, None when it does not run."""
        now = time.monotonic() if now is None else now
        for child in self.children:
            if child.name == name and child.proc is not None and child.proc.poll() is None \
                    and child.started_at is not None:
                return now - child.started_at
        return None

    def kill(self, name: str, why: str) -> bool:
        """SIGKILL the running child *name*, saying *why* at ERROR; its restart then
        follows the policy like any exit nobody asked for (:mod:`workers.hang`)."""
        with self._lock:
            if self._stopping.is_set():
                return False
            for child in self.children:
                if child.name == name and child.proc is not None and child.proc.poll() is None:
                    log.error(why, extra={"child": name, "pid": child.proc.pid})
                    child.proc.kill()
                    return True
        return False

    def alive(self) -> bool:
        """Whether any child runs or will be restarted (False once every one was given up)."""
        return any(not c.gave_up for c in self.children)

    def stop(self, grace: float = 5.0) -> None:
        """Stop every child: SIGTERM, then SIGKILL for any still running after *grace* s."""
        self._stopping.set()
        with self._lock:
            procs = [c.proc for c in self.children if c.proc is not None and c.proc.poll() is None]
            for proc in procs:
                proc.terminate()
            deadline = time.monotonic() + grace
            for proc in procs:
                try:
                    proc.wait(max(0.05, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(5)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(2)

    @staticmethod
    def _quietly(fn: Callable[..., object], *args: object) -> None:
        """Run a callback; a database that is away must not stop the supervision."""
        try:
            fn(*args)
        except Exception as exc:
            log.warning("supervisor callback failed", extra={"error": f"{type(exc).__name__}: {exc}"})
