"""SCALE-6: a worker process keeps its long-lived heap out of the collector's sight, frozen
once its code is loaded and again after its first task (workers/heap.py, pbp.heap), as
the panel does after its first request."""

from __future__ import annotations

import gc
import weakref

import pytest

from pbp import heap


def test_scale_6_frozen_after_the_first_unit_of_work_of_each_process_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """After the first task, not after the second; a forked child (another pid, the
    parent's flag inherited) freezes after its own first task."""
    frozen: list[int] = []
    monkeypatch.setattr(heap, "freeze", lambda: frozen.append(1))
    after = heap.AfterFirst()
    after()
    after()
    assert frozen == [1]
    monkeypatch.setattr(heap.os, "getpid", lambda: -12345)   # as in a forked child
    after()
    after()
    assert frozen == [1, 1]


def test_scale_6_the_workers_signals_freeze_the_heap() -> None:
    """The handlers on worker_init / worker_process_init and task_postrun are connected,
    and each moves what exists into the permanent generation."""
    from celery.signals import task_postrun, worker_init, worker_process_init

    from workers import heap as worker_heap

    def connected(signal: object) -> list[object]:
        return [r() if isinstance(r, weakref.ReferenceType) else r
                for _, r in getattr(signal, "receivers", [])]

    assert worker_heap._freeze_loaded in connected(worker_init)
    assert worker_heap._freeze_loaded in connected(worker_process_init)
    assert worker_heap._freeze_after_first_task in connected(task_postrun)
    gc.unfreeze()
    kept = [object() for _ in range(100)]
    try:
        worker_heap._freeze_loaded()
        assert gc.get_freeze_count() >= len(kept)
    finally:
        gc.unfreeze()
