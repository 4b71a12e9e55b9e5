"""What lives as long as the process, kept out of the cyclic collector's sight.

Why: a worker or panel process holds a few hundred thousand long-lived objects (modules,
SQLAlchemy's mappers and statement caches, Celery, compiled templates and catalogs). The
collector's full pass walks every one of them each time enough new objects have piled
up, which a round's ingest or a page of 200 posts does every few calls: one full pass
took about 100 ms on this machine, 13% of an ingest batch's CPU on average (SCALE-6,
bench/ingest_ab.py). ``gc.freeze`` (Python's own advice for long-running servers) moves
what exists now into a generation the collector never walks; what is made later is
collected as before.

Frozen twice: once when the process has loaded its code, then after its first unit of
work (a request, a task), which compiles and caches what every later one reuses.
"""

from __future__ import annotations

import gc
import os


def freeze() -> None:
    """Freeze what exists now. No collection first: it would cost a full pass (100 ms)
    each time a process or app starts, tests included, to free the few cycles a start
    leaves, which then stay (once, not growing: the soak of bench_memory.py says so)."""
    gc.freeze()


class AfterFirst:
    """Calls :func:`freeze` after the first unit of work of each process (a forked child
    starts with its parent's flag, hence the pid)."""

    def __init__(self) -> None:
        self._done_in: int | None = None

    def __call__(self, *_: object, **__: object) -> None:
        pid = os.getpid()
        if self._done_in != pid:
            self._done_in = pid
            freeze()
