"""A worker alive but no longer answering is stopped, so ``pbp serve`` starts it again
(issue 18, what the supervisor did not see).

Why: the supervisor restarts a child that *exits*. A worker stuck in a task (a call that
never returns) stays alive: with the embedded default's single ``solo`` worker nothing
else takes a task, its poll locks stay held (the kernel frees them only when the process
ends), and every round stalls while the dashboard says "the worker has not answered".

The rule is deliberately narrow, so a slow worker or a broken broker is never taken for a
stuck one. The worker is stopped only when all of these hold:

* it has run at least ``2 x heartbeat_stale`` seconds (a worker just started has not
  answered yet, and that is not a hang);
* beat is fresh: it is sending the ``pbp.heartbeat`` tasks the worker should answer;
* beat could count the queues (the broker answers) and messages are waiting;
* the workers' freshest heartbeat is older than ``2 x heartbeat_stale`` (or there is none).

Then the supervisor kills it (SIGKILL: a worker blocked in a task never ends a warm
shutdown), and its ordinary restart policy starts a new one, with the same backoff and the
same give-up after ``restart_max`` restarts, so a worker that hangs again and again is
reported, not restarted forever.

>>> from datetime import UTC, datetime
>>> from pbp.store.health import Health, ProcessHealth
>>> now = datetime(2026, 1, 1, tzinfo=UTC)
>>> h = Health(now, 60, ProcessHealth("worker", age_s=300, stale=True),
...            ProcessHealth("beat", age_s=5, stale=False), {"rounds": 4})
>>> hung(h, running_for=600) is not None, hung(h, running_for=60)
(True, None)
"""

from __future__ import annotations

from pbp.jobs.health import ago
from pbp.store.health import Health


def hung(verdict: Health, running_for: float | None) -> str | None:
    """Why the worker of this ``pbp serve`` counts as stuck, in words for the log; None
    when it does not (see the module). *running_for*: seconds since it was started."""
    limit = 2 * verdict.stale_after
    if running_for is None or running_for < limit:
        return None
    if verdict.beat.stale or not verdict.worker.stale:
        return None
    waiting = sum(verdict.queues.values()) if verdict.queues else 0
    if waiting <= 0:
        return None
    age = verdict.worker.age_s
    if age is not None and age < limit:
        return None
    return (f"the worker is running but has not answered for {ago(age)} while {waiting} "
            f"task(s) wait; stopping it so it starts again")
