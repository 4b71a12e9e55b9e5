"""The Celery app, configured from pbp's :class:`~pbp.settings.Settings`.

``celery -A workers.celery_app worker`` / ``beat`` build it from the environment
(``PBP_*``, ``PBP_CONFIG``); tests and ``pbp serve`` call :func:`make_celery` with
their own settings. What the configuration guarantees, and why:

* **Embedded default**: with no ``PBP_BROKER_URL`` the broker is kombu's SQLAlchemy
  transport on ``<data_dir>/broker.sqlite`` (measured against the filesystem transport
  in docs/operations.md). Its polling interval is a class attribute of the transport
  (passing it as a transport option reaches SQLAlchemy and raises TypeError).
* **Deadlines and poll times are data**: beat only sends small periodic tasks —
  ``dispatch_polls`` (every few seconds: enqueue a poll for each thread whose own
  jittered next-poll time has come) and ``sweep_deadlines`` (every
  ``deadline_sweep_interval``: reminders, due rounds, undelivered replies). A stopped
  beat or a lost message delays work until the next sweep; it never loses it.
* **At-least-once delivery, exactly-once effects**: ``acks_late`` is set per task, only
  where a re-run is harmless (see workers/tasks.py); ``task_reject_on_worker_lost``
  re-queues those when a worker dies; one message at a time per worker process.
* **Health is visible** (issue 18): beat's scheduler writes a heartbeat from its loop and
  sends ``pbp.heartbeat`` every ``heartbeat_interval`` on the rounds queue, which a worker
  answers with its own (workers/health.py, pbp/store/health.py).
* **Flower works**: task events are sent by workers and on publish.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from celery import Celery
from celery.signals import setup_logging
from kombu import Exchange, Queue
from kombu.transport import sqlalchemy as sqla_transport

from pbp.logs import configure_logging
from pbp.settings import Settings, load_settings

from . import health as _health  # noqa: F401  (heartbeats on worker_ready, parent watch)
from . import heap as _heap  # noqa: F401  (the long-lived heap frozen: workers/heap.py)

#: Queues: polling is many small I/O-bound tasks; rounds and delivery must not wait behind it.
QUEUES = ("pbp.poll", "pbp.rounds", "pbp.deliver")
ROUTES = {
    "pbp.poll_thread": {"queue": "pbp.poll"},
    "pbp.dispatch_polls": {"queue": "pbp.poll"},
    "pbp.watch_forum": {"queue": "pbp.poll"},
    "pbp.watch_subreddit": {"queue": "pbp.poll"},
    "pbp.ingest_posts": {"queue": "pbp.rounds"},
    "pbp.sweep_deadlines": {"queue": "pbp.rounds"},
    "pbp.send_reminder": {"queue": "pbp.rounds"},
    "pbp.resolve_round": {"queue": "pbp.rounds"},
    "pbp.deliver_reply": {"queue": "pbp.deliver"},
    "pbp.weekly_owes": {"queue": "pbp.rounds"},
    "pbp.heartbeat": {"queue": "pbp.rounds"},   # proves the queue deadlines use is served
}
#: Seconds between two polls of the SQLite broker (setting ``broker_polling_interval``).
#: 1 s (kombu's default) makes a round trip ~0.6 s; 0.1 s keeps it near 0.1 s for a few ms
#: of CPU a second (docs/operations.md).
DEFAULT_SQLITE_POLLING = Settings.broker_polling_interval


def _embedded_broker(url: str) -> bool:
    return url.startswith("sqla+") or url.startswith("sqlalchemy+")


def dispatch_interval(settings: Settings) -> float:
    """How often beat looks for threads due a poll: a quarter of the poll interval, 1-15 s."""
    return float(min(15.0, max(1.0, settings.poll_interval / 4)))


def make_celery(settings: Settings | None = None, **overrides: Any) -> Celery:
    """A configured Celery app; *overrides* are Celery settings (tests use a few)."""
    settings = settings or load_settings()
    broker = settings.broker_url
    app = Celery("pbp", broker=broker, include=["workers.tasks"])
    conf: dict[str, Any] = {
        "timezone": settings.timezone,
        "enable_utc": True,
        "task_serializer": "json",
        "accept_content": ["json"],
        "result_serializer": "json",
        "task_ignore_result": not settings.result_backend,
        # each queue its own exchange and key: a shared default exchange would bind all three
        # queues to one routing key and copy every task into each of them
        "task_queues": [Queue(q, Exchange(q, type="direct"), routing_key=q) for q in QUEUES],
        "task_default_queue": "pbp.rounds",
        "task_routes": ROUTES,
        "task_acks_late": False,            # per task, where harmless (workers/tasks.py)
        "task_reject_on_worker_lost": True,  # applies to the acks_late tasks only
        "worker_prefetch_multiplier": 1,
        "worker_send_task_events": True,     # Flower
        "task_send_sent_event": True,
        "worker_hijack_root_logger": False,  # pbp.logs formats every line
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,  # a broker outage is waited out, not fatal
        "broker_channel_error_retry": True,
        "beat_schedule_filename": str(settings.data_path / "celerybeat-schedule"),
        "beat_max_loop_interval": 5,
        # Celery's persistent scheduler plus a heartbeat from its loop (workers/health.py)
        "beat_scheduler": "workers.health:HeartbeatScheduler",
        "beat_schedule": {
            "dispatch-polls": {"task": "pbp.dispatch_polls",
                               "schedule": timedelta(seconds=dispatch_interval(settings)),
                               "options": {"expires": dispatch_interval(settings) * 2}},
            "sweep-deadlines": {"task": "pbp.sweep_deadlines",
                                "schedule": timedelta(seconds=settings.deadline_sweep_interval),
                                "options": {"expires": settings.deadline_sweep_interval * 2}},
            # STALL-9: the weekly lists; the key per ISO week makes every tick but one a no-op
            "weekly-owes": {"task": "pbp.weekly_owes", "schedule": timedelta(minutes=10),
                            "options": {"expires": 600}},
            "heartbeat": {"task": "pbp.heartbeat",
                          "schedule": timedelta(seconds=settings.heartbeat_interval),
                          "options": {"expires": settings.heartbeat_interval * 2}},
        },
    }
    if settings.result_backend:
        conf["result_backend"] = settings.result_backend
    scheme = broker.split("://", 1)[0]
    if scheme in {"redis", "rediss"}:
        # Longer than the longest retry countdown, or Redis would hand a waiting retry out twice.
        conf["broker_transport_options"] = {"visibility_timeout": 3600, "socket_timeout": 10,
                                            "socket_connect_timeout": 5}
        prefix = settings.broker_keyprefix
        if prefix:  # several deployments (or test runs) sharing one Redis never see each other's tasks
            conf["broker_transport_options"]["global_keyprefix"] = prefix
    if _embedded_broker(broker):
        sqla_transport.Transport.polling_interval = settings.broker_polling_interval
    settings.data_path.mkdir(parents=True, exist_ok=True)  # broker file, beat schedule
    conf.update(overrides)
    app.conf.update(conf)
    app.pbp_settings = settings  # type: ignore[attr-defined]
    return app


@setup_logging.connect
def _structured_logs(loglevel: Any = None, **_: Any) -> None:
    """Workers and beat log through pbp.logs (key=value or JSON, thread and round ids)."""
    configure_logging(level=loglevel or None)


app = make_celery()
