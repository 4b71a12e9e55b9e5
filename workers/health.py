"""The worker's and beat's side of health (issue 18): heartbeats, and never outliving
``pbp serve``.

* :class:`HeartbeatScheduler` is beat's scheduler (``beat_scheduler`` in
  workers/celery_app.py, so ``celery beat`` uses it in every layout): Celery's persistent
  scheduler plus, every ``heartbeat_interval`` seconds of its own loop, a ``beat:<host>``
  heartbeat carrying the depth of each queue. Written from the loop that sends the
  periodic tasks, a fresh row proves the loop turns, not only that the process exists.
  When no ``pbp serve`` supervises it, beat also watches the workers' heartbeats and
  logs an incident once (:class:`pbp.jobs.health.Watch`).
* A worker writes ``worker:<hostname>`` when it is ready and each time it runs the
  ``pbp.heartbeat`` task beat sends (workers/tasks.py).
* :func:`watch_parent`: a child started by ``pbp serve`` (``PBP_SUPERVISOR_PID`` set)
  stops itself when that process is gone, even killed with SIGKILL, so no orphan keeps
  polling a thread after its ``pbp serve`` died.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from typing import Any

from celery.beat import PersistentScheduler
from celery.signals import beat_init, worker_init, worker_ready

from pbp.jobs import health as jobs_health

from . import runtime as rtm

log = logging.getLogger("workers.health")

#: Set by ``pbp serve`` in its children's environment: the pid to outlive never.
SUPERVISOR_ENV = "PBP_SUPERVISOR_PID"


def queue_depths(app: Any) -> dict[str, int] | None:
    """Messages waiting in each of pbp's queues (None when the broker does not say)."""
    try:
        with app.connection_for_read() as conn:
            channel = conn.default_channel
            return {q.name: int(channel.queue_declare(queue=q.name, passive=True).message_count)
                    for q in app.conf.task_queues}
    except Exception as exc:  # a broker that is down, or one that cannot count: no figure
        log.warning("queue depth not measured", extra={"error": f"{type(exc).__name__}: {exc}"})
        return None


class HeartbeatScheduler(PersistentScheduler):
    """Celery's persistent scheduler, leaving a heartbeat from its own loop."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_beat = 0.0
        self._beats = 0
        self._watch: jobs_health.Watch | None = None

    def _runtime(self) -> rtm.Runtime:
        return rtm.runtime(getattr(self.app, "pbp_settings", None))

    def tick(self, *args: Any, **kwargs: Any) -> float:
        delay = float(super().tick(*args, **kwargs))
        rt = self._runtime()
        interval = rt.settings.heartbeat_interval
        if time.monotonic() - self._last_beat >= interval:
            self._last_beat = time.monotonic()
            # not at the first tick: counting a queue on the SQLite broker creates its row,
            # and a worker declaring the same queues that instant dies of the duplicate
            queues = queue_depths(self.app) if self._beats else None
            self._beats += 1
            try:
                jobs_health.record(rt.engine, jobs_health.beat_name(), "beat",
                                   detail={"queues": queues})
                if not os.environ.get(SUPERVISOR_ENV):
                    self._watch = self._watch or jobs_health.Watch(
                        rt.engine, rt.settings.heartbeat_stale, roles=("worker",))
                    self._watch.check()
            except Exception as exc:  # the database away: beat keeps sending, says so
                log.warning("heartbeat not written", extra={"error": f"{type(exc).__name__}: {exc}"})
        return min(delay, interval)


@worker_ready.connect
def _worker_ready(sender: Any = None, **_: Any) -> None:
    """A worker that has just connected says so at once, not at beat's next heartbeat."""
    app = getattr(sender, "app", None)
    hostname = getattr(sender, "hostname", None) or "worker"
    try:
        rt = rtm.runtime(getattr(app, "pbp_settings", None))
        jobs_health.record(rt.engine, f"worker:{hostname}", "worker")
    except Exception as exc:
        log.warning("heartbeat not written", extra={"error": f"{type(exc).__name__}: {exc}"})


def watch_parent(expected: int, every: float = 1.0) -> threading.Thread:
    """Stop this process (SIGTERM to itself, the usual warm shutdown) once its parent is no
    longer *expected*; a hard exit if that shutdown has not ended 10 s later."""
    def run() -> None:
        while os.getppid() == expected:
            time.sleep(every)
        log.error("pbp serve is gone; stopping", extra={"supervisor": expected})
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)
        os._exit(1)

    thread = threading.Thread(target=run, name="pbp-watch-parent", daemon=True)
    thread.start()
    return thread


@worker_init.connect
@beat_init.connect
def _start_parent_watch(**_: Any) -> None:
    pid = os.environ.get(SUPERVISOR_ENV, "")
    if pid.isdigit():
        watch_parent(int(pid))
