"""The workers' side of :mod:`pbp.heap`: freeze the long-lived heap when a worker process
has loaded its code, and again after its first task.

Why in every layout: Celery's prefork pool forks children after ``worker_init`` (frozen
before the fork, the parent's objects are also never touched by a child's collector, so
copy-on-write pages stay shared); the embedded solo or threads pool runs tasks in the
process ``worker_init`` ran in. ``worker_process_init`` covers a prefork child's own
start; ``task_postrun`` (once per process) what its first task compiled and cached.
"""

from __future__ import annotations

from typing import Any

from celery.signals import task_postrun, worker_init, worker_process_init

from pbp import heap

_after_first_task = heap.AfterFirst()


@worker_init.connect
@worker_process_init.connect
def _freeze_loaded(**_: Any) -> None:
    heap.freeze()


@task_postrun.connect
def _freeze_after_first_task(**_: Any) -> None:
    _after_first_task()
