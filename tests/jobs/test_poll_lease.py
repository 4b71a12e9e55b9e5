"""SCALE-3 (issue 17 item 3) with database leases, the embedded default (no Redis): an
idle poll is one write transaction, and a poll is still exclusive. On the real SQLite
file and PostgreSQL schema of ``tests/jobs/conftest.py``; the other worker is a real
process, killed with -9 as a crashed worker is."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from sqlalchemy import Engine

from pbp.jobs import threads
from tests.jobs.conftest import Res
from tests.jobs.test_idle_poll import idle_polls
from tests.rounds.world import World
from workers.locks import DatabaseLease

ROOT = Path(__file__).resolve().parents[2]

#: a second worker process: takes the poll lease of the thread given, says so, and waits
HOLDER = """
import sys, time
from pbp.store.db import make_engine
from workers.locks import DatabaseLease
lease = DatabaseLease(make_engine(sys.argv[1])).poll_lease(sys.argv[2], 120)
print("held" if lease else "refused", flush=True)
time.sleep(600)
"""


def _url(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=False)


def _other_worker(engine: Engine, name: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, _url(engine), name], text=True,
                            stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "held"
    return proc


def _crash(proc: subprocess.Popen[str]) -> None:
    """Kill -9, as a worker dies: nothing of it runs to release anything."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(10)
    assert proc.stdout is not None
    proc.stdout.close()


def _freed_without_release(res: Res, name: str, within: float = 15.0) -> None:
    """The dead worker's lock is freed by the file's kernel or by PostgreSQL, nothing of
    the worker released it. PostgreSQL ends the dead client's backend (and its advisory
    lock) only once it notices the closed socket, a moment after the kill: wait for it,
    bounded."""
    deadline = time.monotonic() + within
    while True:
        lease = res.leases.poll_lease(name, 60)
        if lease:
            lease.release()
            return
        assert time.monotonic() < deadline, f"the dead worker's lock on {name} was not freed in {within} s"
        time.sleep(0.1)


def test_scale3_idle_poll_with_database_leases_is_one_write_transaction(res: Res, world: World) -> None:
    """SCALE-3: with the lease in the database back end (SQLite and PostgreSQL), a poll
    that finds nothing new makes one write transaction (the cursor and ``last_poll``) and
    one read (the thread's target); the lease neither takes nor gives back a row."""
    assert isinstance(res.leases, DatabaseLease)
    counted = idle_polls(res, world, 4)
    assert counted.writes == 4            # one a poll (was three: take, store, give back)
    assert counted.ended == 8             # and one read a poll


def test_scale3_a_poll_leased_by_another_process_is_not_read_until_it_dies(
        res: Res, world: World) -> None:
    """SCALE-3: another worker process holding the thread's poll lease keeps this one out
    (Busy: no read of the source, no write); killed with -9, it needs no release: the
    kernel or PostgreSQL frees its lock, and the next poll reads the thread."""
    name = f"poll:{world.thread_id}"
    other = _other_worker(res.engine, name)
    try:
        assert threads.poll_thread(res, world.thread_id) == threads.PollOutcome()
        assert not res.leases.poll_lease(name, 60)
        assert res.leases.poll_lease("poll:999999", 60)     # other names stay free
    finally:
        _crash(other)
    _freed_without_release(res, name)
    assert threads.poll_thread(res, world.thread_id).stored == 2


def test_scale3_a_released_poll_lease_is_free_for_another_process(res: Res, world: World) -> None:
    """SCALE-3: released here, the lease is taken by another process; held there, it is
    refused here (the lock is the database's or the file's, not this process's memory)."""
    name = f"poll:{world.thread_id}"
    mine = res.leases.poll_lease(name, 60)
    assert mine
    mine.release()
    other = _other_worker(res.engine, name)
    try:
        assert not res.leases.poll_lease(name, 60)
    finally:
        _crash(other)


def test_scale3_two_threads_of_one_worker_never_hold_one_poll_lease(res: Res, world: World) -> None:
    """SCALE-3: file record locks and advisory locks belong to a process, so the threads of
    one worker (``-P threads``) are kept apart by the process's own set of held names:
    of 8 threads racing for one name, exactly one wins; and a second back end on the same
    database (another Runtime in the process) is refused too."""
    name = f"poll:{world.thread_id}"
    start = threading.Barrier(8)
    won: list[object] = []

    def race() -> None:
        start.wait()
        lease = res.leases.poll_lease(name, 60)
        if lease:
            won.append(lease)

    workers = [threading.Thread(target=race) for _ in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(won) == 1
    assert not DatabaseLease(res.engine).poll_lease(name, 60)
    won[0].release()  # type: ignore[attr-defined]
    again = DatabaseLease(res.engine).poll_lease(name, 60)
    assert again
    again.release()


def test_scale3_beside_a_sqlite_file_a_poll_lease_is_the_files_lock_even_with_redis(
        res: Res, world: World) -> None:
    """SCALE-3: with Redis as the lock URL, a poll of a SQLite deployment still takes the
    file's lock (every worker is on the file's host): no Redis round trip, and it excludes
    a worker that holds the same name through the database back end. On PostgreSQL the
    poll lease stays in Redis (workers may be on several hosts)."""
    from workers.locks import RedisLease, lease_backend
    from workers.session_locks import SessionLock

    backend = lease_backend("redis://127.0.0.1:6379/15", res.engine, prefix=f"t{os.getpid()}:")
    assert isinstance(backend, RedisLease)
    name = f"poll:{world.thread_id}"
    lease = backend.poll_lease(name, 60)
    try:
        if res.engine.dialect.name == "sqlite":
            assert isinstance(lease, SessionLock)
            assert not res.leases.poll_lease(name, 60)      # the same lock, by the other door
            assert not backend.client.exists(backend.prefix + name)
        else:
            assert not isinstance(lease, SessionLock)
            assert backend.client.exists(backend.prefix + name)
        assert lease and not backend.poll_lease(name, 60)
    finally:
        lease.release()
    again = backend.poll_lease(name, 60)
    assert again
    again.release()
