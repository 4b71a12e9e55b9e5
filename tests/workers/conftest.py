"""A real stack per test: database, broker, worker and beat processes, a local source.

Two back ends: ``redis-pg`` (Redis broker and locks, PostgreSQL in a schema of its own)
and ``embedded`` (SQLite data and SQLite broker, what ``pbp serve`` runs). The thread is
a scenario file (:class:`pbp.sources.scenario_file.FileSource`): posts are appended to
it, replies land beside it. Timings are shortened (poll every 1 s, sweep every 2 s).
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import POSTGRES_URL, ROOT, require_port

REDIS_BROKER = os.environ.get("PBP_TEST_WORKERS_REDIS", "redis://127.0.0.1:6379/14")
REDIS_START = ["redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", "6379",
               "--save", "", "--appendonly", "no", "--dir", "/var/lib/redis",
               "--logfile", "/var/log/redis/ci.log"]

FAST_ENV = {
    "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1",   # the local forums and Reddit server (issue 12 item 5)
    "PBP_POLL_INTERVAL": "1",
    "PBP_DEADLINE_SWEEP_INTERVAL": "2",
    "PBP_RETRY_BASE": "0.5",
    "PBP_RETRY_CAP": "4",
    "PBP_RETRY_MAX": "30",
    "PBP_POLL_LEASE_TTL": "10",
    "PBP_FINAL_POLL_GRACE": "6",
    "PBP_BROKER_POLLING_INTERVAL": "0.05",
    "PBP_MIN_HOST_INTERVAL": "0",
    "PBP_LOG_LEVEL": "INFO",
}


def wait_for(check: Callable[[], Any], timeout: float, what: str, every: float = 0.2) -> Any:
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(every)


def redis_up() -> bool:
    return subprocess.run(["redis-cli", "-h", "127.0.0.1", "ping"], capture_output=True,
                          text=True).stdout.strip() == "PONG"


def start_redis() -> None:
    if not redis_up():
        subprocess.run(REDIS_START, check=False, capture_output=True)
        wait_for(redis_up, 20, "redis-server to answer PING")


@dataclass
class Stack:
    backend: str
    root: Path
    env: dict[str, str]
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def settings(self) -> Any:
        from pbp.settings import load_settings

        return load_settings(env={k: v for k, v in self.env.items() if k.startswith("PBP_")})

    @property
    def thread_file(self) -> Path:
        return self.root / "data" / "demo" / "thread.yaml"

    @property
    def replies_file(self) -> Path:
        return self.root / "data" / "demo" / "thread.replies.yaml"

    def engine(self) -> Any:
        from pbp.store.db import make_engine

        if not hasattr(self, "_engine"):
            self._engine = make_engine(self.settings.database_url)
        return self._engine

    def session(self) -> Any:
        from pbp.store.db import session_scope

        return session_scope(self.engine())

    # -- processes ------------------------------------------------------------------------
    def _spawn(self, name: str, argv: list[str], extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        env = dict(self.env, **(extra_env or {}))
        with open(self.root / f"{name}.log", "ab") as log:   # the child keeps its own copy
            proc = subprocess.Popen(argv, env=env, cwd=self.root, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        self.procs[name] = proc
        return proc

    def start_worker(self, name: str = "worker", app: str = "workers.celery_app",
                     extra_env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        argv = [sys.executable, "-m", "celery", "-A", app, "worker", "-P", "solo", "-E", "-l", "info",
                "--without-gossip", "--without-mingle", "-n", f"{name}-{secrets.token_hex(3)}@%h"]
        return self._spawn(name, argv, extra_env)

    def start_beat(self) -> subprocess.Popen[bytes]:
        argv = [sys.executable, "-m", "celery", "-A", "workers.celery_app", "beat", "-l", "info",
                "-s", str(self.root / "data" / "celerybeat-schedule")]
        return self._spawn("beat", argv)

    def stop(self, name: str, sig: int = signal.SIGTERM) -> None:
        proc = self.procs.pop(name, None)
        if proc is None or proc.poll() is not None:
            return
        proc.send_signal(sig)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

    def stop_all(self) -> None:
        for name in list(self.procs):
            self.stop(name)

    def logs(self) -> str:
        out = []
        for f in sorted(self.root.glob("*.log")):
            text = f.read_text(errors="replace")
            out.append(f"===== {f.name} (last 60 lines)\n" + "\n".join(text.splitlines()[-60:]))
        return "\n".join(out)

    # -- data --------------------------------------------------------------------------------
    def seed(self, *, round_seconds: float, reminder_seconds: list[float] | None = None,
             posts: list[tuple[str, str]] = (), now: datetime | None = None,
             thread: dict[str, Any] | None = None, players: dict[str, str] | None = None) -> int:
        """A campaign whose thread is a scenario file (or *thread*: kind, url, options,
        platform); round 1 opens at *now*. *players* maps combatant keys to posters."""
        from workers.demo import DEMO_DIR, seed_demo

        spec = yaml.safe_load((DEMO_DIR / "campaign.yaml").read_text())
        spec["campaign"]["round_seconds"] = round_seconds
        spec["campaign"]["reminder_seconds"] = reminder_seconds or []
        spec["thread"]["poll_interval"] = 1
        spec["thread"].update(thread or {})
        for c in spec["encounter"]["combatants"]:
            if players and c["key"] in players:
                c["player"] = players[c["key"]]
        src = self.root / "seed"
        src.mkdir(exist_ok=True)
        (src / "campaign.yaml").write_text(yaml.safe_dump(spec))
        (src / "thread.yaml").write_text("".join(
            "---\n" + yaml.safe_dump({"author": a, "body": b}) for a, b in posts))
        return seed_demo(self.settings, src, now=now)

    def post(self, author: str, body: str, at: datetime | None = None) -> None:
        """Append a post; *at* is the time the platform shows for it (default: when read)."""
        from pbp.sources.scenario_file import append_post

        extra = {"at": at.isoformat()} if at else {}
        append_post(self.thread_file, author, body, **extra)

    def replies(self) -> list[dict[str, Any]]:
        from pbp.sources.scenario_file import FileSource

        return FileSource(self.thread_file).replies()

    def rows(self, model: Any, **where: Any) -> list[Any]:
        from sqlalchemy import select

        with self.session() as s:
            q = select(model)
            for k, v in where.items():
                q = q.where(getattr(model, k) == v)
            rows = list(s.scalars(q))
            s.expunge_all()
            return rows


def _postgres_schema(name: str) -> str:
    import sqlalchemy as sa

    eng = sa.create_engine(POSTGRES_URL)
    with eng.begin() as conn:
        conn.execute(sa.text(f'CREATE SCHEMA "{name}"'))
    eng.dispose()
    sep = "&" if "?" in POSTGRES_URL else "?"
    return f"{POSTGRES_URL}{sep}options=-csearch_path%3D{name}"


def _drop_schema(name: str) -> None:
    import sqlalchemy as sa

    eng = sa.create_engine(POSTGRES_URL)
    with eng.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
    eng.dispose()


@pytest.fixture(params=["redis-pg", "embedded"])
def stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    yield from _make_stack(request, tmp_path, request.param)


@pytest.fixture
def redis_pg_stack(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Stack]:
    yield from _make_stack(request, tmp_path, "redis-pg")


def _make_stack(request: pytest.FixtureRequest, tmp_path: Path, backend: str) -> Iterator[Stack]:
    data = tmp_path / "data"
    env = dict(os.environ, **FAST_ENV, PBP_DATA_DIR=str(data), PYTHONPATH=str(ROOT))
    env.pop("PBP_CONFIG", None)
    schema = None
    if backend == "redis-pg":
        require_port("PostgreSQL", "127.0.0.1", 5432)
        require_port("Redis", "127.0.0.1", 6379)
        import redis

        redis.Redis.from_url(REDIS_BROKER).flushdb()
        schema = f"pbp_workers_{secrets.token_hex(4)}"
        env["PBP_DATABASE_URL"] = _postgres_schema(schema)
        env["PBP_BROKER_URL"] = REDIS_BROKER
        env["PBP_BROKER_KEYPREFIX"] = f"{schema}:"  # no stray task from another run reaches us
    else:
        env.pop("PBP_DATABASE_URL", None)
        env.pop("PBP_BROKER_URL", None)
    st = Stack(backend, tmp_path, env)
    from pbp.store.db import upgrade

    upgrade(st.settings.database_url)
    try:
        yield st
    finally:
        st.stop_all()
        if request.node.rep_call.failed if hasattr(request.node, "rep_call") else False:
            print(st.logs())
        if hasattr(st, "_engine"):
            st._engine.dispose()
        if schema:
            _drop_schema(schema)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Iterator[None]:
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


def utc_now() -> datetime:
    return datetime.now(UTC)


__all__ = ["Stack", "wait_for", "start_redis", "redis_up", "utc_now", "timedelta"]
