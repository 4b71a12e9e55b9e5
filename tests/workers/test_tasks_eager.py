"""The tasks in-process (Celery eager mode) on SQLite: polling a scenario file and a local
forum through its topic list, retries recorded for the narrator, and ``pbp status``."""

from __future__ import annotations

import importlib.util
import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import select, text

from pbp.settings import load_settings
from pbp.sources.base import SourceError
from pbp.sources.scenario_file import FileSource, append_post
from pbp.store import models as m
from pbp.store.db import make_engine, session_scope, upgrade
from tests.conftest import ROOT


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    for key, value in {"PBP_DATA_DIR": str(tmp_path / "var"), "PBP_MIN_HOST_INTERVAL": "0",
                       "PBP_ALLOW_PRIVATE_HOSTS": "127.0.0.1"}.items():
        monkeypatch.setenv(key, value)
    for key in ("PBP_DATABASE_URL", "PBP_BROKER_URL", "PBP_CONFIG"):
        monkeypatch.delenv(key, raising=False)
    settings = load_settings()
    upgrade(settings.database_url)
    from workers.celery_app import make_celery

    app = make_celery(settings, task_always_eager=True, broker_url="memory://")
    import workers.tasks as tasks

    engine = make_engine(settings.database_url)
    yield type("Env", (), {"settings": settings, "app": app, "tasks": tasks, "engine": engine})
    engine.dispose()


def test_poll_ingest_and_status(env: Any) -> None:
    from pbp.cli.status import collect
    from workers.demo import demo_thread_path, seed_demo

    seed_demo(env.settings)
    env.tasks.dispatch_polls.apply(throw=True)  # polls the demo file (eagerly)
    with session_scope(env.engine) as s:
        thread = s.scalars(select(m.Thread)).one()
        assert thread.last_poll is not None and thread.next_poll > thread.last_poll
        assert {p.author for p in s.scalars(select(m.Post))} == {"Brienne", "Tomas"}
        status = collect(s)
    assert status["sources"][0]["errors"] == 0
    assert sorted(status["rounds"][0]["posted"]) == ["Brienne", "Tomas"]
    append_post(demo_thread_path(env.settings), "Brienne", "I attack again [roll]1d20+5[/roll]")
    env.tasks.poll_thread.apply(args=[thread.id], throw=True)
    with session_scope(env.engine) as s:
        assert len(list(s.scalars(select(m.Post)))) == 3
    result = CliRunner().invoke(__import__("pbp.cli", fromlist=["cli"]).cli, ["status", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["rounds"][0]["missing"] == []


def test_delivery_failure_is_recorded_and_retried(env: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from workers.demo import seed_demo

    seed_demo(env.settings)
    calls: list[str] = []

    def refuse(self: FileSource, text: str, marker: str, *, in_reply_to: str | None = None) -> str:
        calls.append(marker)
        raise SourceError("flood control: wait 30 seconds", retry_after=30)

    monkeypatch.setattr(FileSource, "reply", refuse)
    with session_scope(env.engine) as s:
        reply_id = s.scalars(select(m.Reply.id)).one()
    from celery.exceptions import Retry

    with pytest.raises(Retry):
        env.tasks.deliver_reply.apply(args=[reply_id], throw=True)
    with session_scope(env.engine) as s:
        reply = s.get(m.Reply, reply_id)
        assert reply.state == "pending" and reply.attempts == 1
        assert "flood control" in reply.last_error
        # not sent again by the sweep before the platform's retry-after
        assert reply.not_before >= datetime.now(UTC) + timedelta(seconds=25)
    counts = env.tasks.sweep_deadlines.apply(throw=True).get()
    assert counts["replies"] == 0 and calls == ["pbp-reply:1:opening"]


def _bench_module() -> Any:
    spec = importlib.util.spec_from_file_location("bench_workers", ROOT / "bench" / "bench_workers.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_workers"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_topic_list_watching_polls_only_threads_that_grew(env: Any) -> None:
    bench = _bench_module()
    forum = bench.Forum(8, 7, etags=True)  # this test is about 304s: the validating server
    server = bench.serve(forum, 0)
    port = server.server_address[1]
    try:
        listing = f"http://127.0.0.1:{port}/forum/forum/{bench.FORUM}/"
        with session_scope(env.engine) as s:
            c = m.Campaign(name="w", slug="w", ruleset="forum-d20")
            s.add(c)
            s.flush()
            for t in range(1, 9):
                s.add(m.Thread(campaign_id=c.id, kind="forum", url=bench.topic_url(port, t),
                               options={"preset": "machina", "listing_url": listing,
                                        "allowed_hosts": ["127.0.0.1"]}))
        env.tasks.dispatch_polls.apply(throw=True)  # first: every thread in full, and the list
        with session_scope(env.engine) as s:
            assert len(list(s.scalars(select(m.Post)))) == 8 * 7
            threads = list(s.scalars(select(m.Thread)))
            # list-watched: the next full read at least RECHECK_MIN_FACTOR (3) intervals away,
            # less jitter (SCALE-2: busy threads sooner, quiet ones later)
            floor = 3 * env.settings.poll_interval * 0.8   # jitter and the poll after dispatch
            assert all(t.next_poll - t.last_poll > timedelta(seconds=floor) for t in threads)
        forum.add(3, "newcomer", "I shoot the goblin [roll]1d20+3[/roll]")
        before = forum.requests
        assert env.tasks.watch_forum.apply(args=[listing], throw=True).get() == 1
        assert forum.requests - before <= 3  # the list, and the one thread that grew
        with session_scope(env.engine) as s:
            assert len(list(s.scalars(select(m.Post)))) == 8 * 7 + 1
        before = forum.requests
        assert env.tasks.watch_forum.apply(args=[listing], throw=True).get() == 0
        with env.engine.connect() as conn:  # say why, if the list was not read
            error = conn.execute(text("SELECT last_error FROM pbp_watch_state")).scalar()
        assert (forum.requests - before, error) == (1, None)
        assert forum.not_modified >= 1  # 304
    finally:
        server.shutdown()
        server.server_close()
