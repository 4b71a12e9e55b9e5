"""Fast checks of the worker plumbing: leases, backoff, enqueue-after-commit, the app's
configuration, the scenario file source and the structured logs (no worker process)."""

from __future__ import annotations

import io
import json
import logging
import random
import time
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from pbp.jobs.schedule import backoff, jittered
from pbp.logs import ContextFilter, JsonFormatter, KeyValueFormatter, log_context
from pbp.settings import load_settings
from pbp.sources.base import SourceError
from pbp.sources.factory import open_source
from pbp.sources.scenario_file import FileSource, append_post
from workers.locks import DatabaseLease, RedisLease, lease_backend
from workers.runtime import enqueue_after_commit

# --- leases ---------------------------------------------------------------------------------

def test_database_lease_excludes_and_expires() -> None:
    clock = [1000.0]
    leases = DatabaseLease(create_engine("sqlite://"), clock=lambda: clock[0])
    a = leases.acquire("poll:1", ttl=10)
    assert a and not leases.acquire("poll:1", ttl=10)
    assert leases.acquire("poll:2", ttl=10)
    clock[0] += 11  # the holder died: its lease expires
    b = leases.acquire("poll:1", ttl=10)
    assert b
    a.release()  # a stale holder cannot free the new holder's lease
    assert not leases.acquire("poll:1", ttl=10)
    assert b.extend(30)
    b.release()
    assert leases.acquire("poll:1", ttl=10)


def test_redis_lease(redis_url: str) -> None:
    leases = RedisLease(redis_url, prefix=f"pbp:test:{time.time_ns()}:")
    a = leases.acquire("poll:1", ttl=0.3)
    assert a and not leases.acquire("poll:1", ttl=5)
    time.sleep(0.4)
    b = leases.acquire("poll:1", ttl=5)
    assert b
    a.release()
    assert not leases.acquire("poll:1", ttl=5)
    b.release()
    assert isinstance(lease_backend(redis_url, create_engine("sqlite://")), RedisLease)
    assert isinstance(lease_backend("sqla+sqlite:///x", create_engine("sqlite://")), DatabaseLease)


# --- backoff ----------------------------------------------------------------------------------

def test_backoff_grows_with_jitter_caps_and_honours_retry_after() -> None:
    rng = random.Random(3)
    delays = [backoff(n, base=2, cap=600, rng=rng) for n in range(12)]
    for n, d in enumerate(delays):
        step = min(600, 2 * 2 ** n)
        assert step / 2 <= d <= step
    assert max(delays) <= 600
    assert backoff(0, 120.0, base=2, cap=600, rng=rng) >= 120  # Reddit's retry-after wins
    spread = {round(jittered(60, random.Random(i)), 3) for i in range(20)}
    assert len(spread) > 10 and all(54 <= x <= 66 for x in spread)


# --- enqueue after commit -----------------------------------------------------------------------

class _Sig:
    def __init__(self, sent: list[str], name: str) -> None:
        self.sent, self.task = sent, name

    def apply_async(self) -> None:
        self.sent.append(self.task)


def test_enqueue_after_commit_sends_on_commit_and_drops_on_rollback() -> None:
    engine = create_engine("sqlite://")
    sent: list[str] = []
    with Session(engine) as s:
        s.begin()
        enqueue_after_commit(s, _Sig(sent, "a"))
        assert sent == []
        s.commit()
        assert sent == ["a"]
        s.begin()
        enqueue_after_commit(s, _Sig(sent, "b"))
        s.rollback()
        s.begin()
        s.commit()
        assert sent == ["a"]


# --- the Celery app -------------------------------------------------------------------------------

def test_app_configuration(tmp_path: Path) -> None:
    import kombu.transport.sqlalchemy as sqla

    from workers.celery_app import make_celery

    settings = load_settings(env={"PBP_DATA_DIR": str(tmp_path), "PBP_POLL_INTERVAL": "60",
                                  "PBP_DEADLINE_SWEEP_INTERVAL": "60", "PBP_TIMEZONE": "Europe/Lisbon"})
    app = make_celery(settings)
    assert app.conf.broker_url.startswith("sqla+sqlite:///")
    assert sqla.Transport.polling_interval <= 0.1
    assert app.conf.timezone == "Europe/Lisbon" and app.conf.enable_utc
    assert app.conf.worker_send_task_events and app.conf.task_send_sent_event
    schedule = app.conf.beat_schedule
    assert schedule["sweep-deadlines"]["schedule"].total_seconds() == 60
    assert schedule["dispatch-polls"]["schedule"].total_seconds() == 15
    app.loader.import_default_modules()
    import workers.tasks as t

    assert t.resolve_round.acks_late and t.poll_thread.acks_late and t.send_reminder.acks_late
    assert not t.deliver_reply.acks_late and not t.sweep_deadlines.acks_late
    assert app.amqp.router.route({}, "pbp.deliver_reply")["queue"].name == "pbp.deliver"
    assert app.amqp.router.route({}, "pbp.poll_thread")["queue"].name == "pbp.poll"
    # one exchange and key per queue: a task lands in its own queue only, never in all three
    bindings = {(q.exchange.name, q.routing_key) for q in app.conf.task_queues}
    assert len(bindings) == len(app.conf.task_queues) == 3
    redis_app = make_celery(settings.with_overrides(broker_url="redis://127.0.0.1:6379/14"))
    assert redis_app.conf.broker_transport_options["visibility_timeout"] >= 600 * 2


# --- the scenario file source ---------------------------------------------------------------------

def test_file_source_new_edited_deleted_and_partial(tmp_path: Path) -> None:
    f = tmp_path / "t.yaml"
    append_post(f, "Ana", "I attack")
    src = FileSource(f)
    r1 = src.fetch(None)
    assert [(p.platform_id, p.author, p.change) for p in r1.posts] == [("1", "Ana", "new")]
    first_seen = r1.posts[0].posted_at
    # an unfinished document at the end is left for later
    with f.open("a") as fh:
        fh.write("---\nauthor: Bo\nbody: \"I shoot")
    r2 = src.fetch(r1.cursor)
    assert r2.posts == []
    with f.open("a") as fh:
        fh.write(" the goblin\"\n")
    r3 = src.fetch(r2.cursor)
    assert [(p.platform_id, p.text, p.change) for p in r3.posts] == [("2", "I shoot the goblin", "new")]
    text = f.read_text().replace("I attack", "I attack twice")
    f.write_text(text)
    r4 = src.fetch(r3.cursor)
    assert [(p.platform_id, p.change) for p in r4.posts] == [("1", "edited")]
    assert r4.posts[0].posted_at == first_seen  # the time a post was first seen stays
    f.write_text(text.replace("body: I attack twice", "deleted: true"))
    r5 = src.fetch(r4.cursor)
    assert [(p.platform_id, p.change) for p in r5.posts] == [("1", "deleted")]
    assert src.fetch(r5.cursor).not_modified


def test_file_source_replies_are_found_by_marker(tmp_path: Path) -> None:
    f = tmp_path / "t.yaml"
    f.write_text("")
    src = open_source("file", str(f))
    assert src.find_reply("pbp:7:resolution") is None
    rid = src.reply("Round 1: the goblin falls.", "pbp:7:resolution", in_reply_to="3")
    assert src.find_reply("pbp:7:resolution") == rid
    assert src.fetch(None).posts == []  # our replies are never read back as posts
    assert "pbp:7:resolution" in src.replies()[0]["body"]


def test_file_source_missing_file_is_a_source_error(tmp_path: Path) -> None:
    with pytest.raises(SourceError):
        FileSource(tmp_path / "nope.yaml").fetch(None)


# --- structured logs --------------------------------------------------------------------------------

def test_logs_carry_thread_and_round() -> None:
    log = logging.getLogger("pbp.test.logs")
    log.propagate = False
    log.setLevel(logging.INFO)
    kv, js = io.StringIO(), io.StringIO()
    for stream, fmt in ((kv, KeyValueFormatter()), (js, JsonFormatter())):
        h = logging.StreamHandler(stream)
        h.setFormatter(fmt)
        h.addFilter(ContextFilter())
        log.addHandler(h)
    with log_context(thread_id=12):
        with log_context(round_id=4):
            log.info("resolved round", extra={"replies": 1})
        log.warning("poll failed")
    lines = kv.getvalue().splitlines()
    assert "thread_id=12 round_id=4" in lines[0] and 'msg="resolved round"' in lines[0]
    assert "thread_id=12 round_id=-" in lines[1]
    first = json.loads(js.getvalue().splitlines()[0])
    assert first["thread_id"] == 12 and first["round_id"] == 4 and first["replies"] == 1
