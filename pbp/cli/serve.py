"""``pbp serve``: the narrator panel, a worker and beat, in one command.

With no settings this is the embedded default: SQLite for the data
(``<data_dir>/pbp.sqlite``) and for the broker (kombu's SQLAlchemy transport on
``<data_dir>/broker.sqlite``), nothing else to install. The worker and beat run as
child processes (the same ``celery`` commands production runs, see README), the panel
in this process. The children are supervised (workers/supervisor.py, issue 18): one that
exits is restarted with a backoff, a crash loop is stopped and shown as a problem in the
panel and ``pbp status``; Ctrl-C or SIGTERM stops all three within a few seconds. ``--demo`` seeds a demo campaign whose thread
is a local file (pbp/demo/), so a round is declared, resolved and shown within
a minute, and runs the demo's scripted players and narrator (workers/demo_players.py)
so the fight goes on round after round.
"""

from __future__ import annotations

import os
import shlex
import signal
import sys
import threading
from pathlib import Path

import click

from workers.demo import demo_replies_path, demo_thread_path, seed_demo
from workers.demo_players import start_demo_players
from workers.hang import hung
from workers.health import SUPERVISOR_ENV
from workers.supervisor import Child, Policy, Supervisor

from ..jobs import health
from ..logs import configure_logging
from ..panel import create_app
from ..settings import Settings, load_settings
from ..store.db import make_engine, upgrade

#: Demo timing: poll every 4 s, sweep deadlines every 5 s, a heartbeat every 5 s (stale
#: after 20 s: a round lasts half a minute).
DEMO_OVERRIDES = {"deadline_sweep_interval": 5, "poll_interval": 4, "heartbeat_interval": 5.0,
                  "heartbeat_stale": 20.0}
#: Seconds a child has to stop after SIGTERM before it is killed.
STOP_GRACE = 5.0


def child_env(settings: Settings) -> dict[str, str]:
    """Environment that makes a child ``celery`` process load exactly *settings*."""
    env = dict(os.environ)
    env.update({
        "PBP_DATA_DIR": str(settings.data_path.resolve()),
        "PBP_DATABASE_URL": settings.database_url,
        "PBP_BROKER_URL": settings.broker_url,
        "PBP_RESULT_BACKEND": settings.result_backend,
        "PBP_TIMEZONE": settings.timezone,
        "PBP_POLL_INTERVAL": str(settings.poll_interval),
        "PBP_DEADLINE_SWEEP_INTERVAL": str(settings.deadline_sweep_interval),
        "PBP_HEARTBEAT_INTERVAL": str(settings.heartbeat_interval),
        "PBP_HEARTBEAT_STALE": str(settings.heartbeat_stale),
        SUPERVISOR_ENV: str(os.getpid()),
    })
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def worker_argv(concurrency: int = 1, loglevel: str = "info", hostname: str | None = None) -> list[str]:
    argv = [sys.executable, "-m", "celery", "-A", "workers.celery_app", "worker", "-E",
            "-l", loglevel, "--without-gossip", "--without-mingle"]
    argv += ["-P", "solo"] if concurrency <= 1 else ["-P", "prefork", "-c", str(concurrency)]
    if hostname:
        argv += ["-n", hostname]
    return argv


def beat_argv(settings: Settings, loglevel: str = "info") -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "workers.celery_app", "beat", "-l", loglevel,
            "-s", str(settings.data_path.resolve() / "celerybeat-schedule")]


def prepare(settings: Settings, demo: bool) -> int | None:
    """Migrate the database to head and, with *demo*, seed the demo campaign."""
    settings.data_path.mkdir(parents=True, exist_ok=True)
    upgrade(settings.database_url)
    if demo:
        return seed_demo(settings)
    return None


def children(settings: Settings, concurrency: int, loglevel: str, beat: bool) -> list[Child]:
    """The supervised commands: the ``serve_worker_command`` / ``serve_beat_command``
    settings when set (tests inject a crashing worker so), else the celery commands."""
    worker = shlex.split(settings.serve_worker_command) or worker_argv(concurrency, loglevel)
    out = [Child("worker", worker)]
    if beat:
        out.append(Child("beat", shlex.split(settings.serve_beat_command) or beat_argv(settings, loglevel)))
    return out


def supervisor(settings: Settings, kids: list[Child]) -> Supervisor:
    """A supervisor whose give-ups and beat watch are written where the panel reads them."""
    engine = make_engine(settings.database_url)
    watch = health.Watch(engine, settings.heartbeat_stale)

    def gave_up(child: Child) -> None:
        health.record(engine, f"serve:{child.name}", child.name, state="given_up",
                      detail={"restarts": len(child.restarts), "window": settings.restart_window})

    def started(child: Child) -> None:
        if child.started == 1:
            health.forget(engine, f"serve:{child.name}")   # an earlier run's give-up is history

    made: list[Supervisor] = []

    def look() -> None:
        """The heartbeat watch, then a worker alive but stuck is stopped to be restarted."""
        verdict = watch.check()
        why = hung(verdict, made[0].running_for("worker")) if made else None
        if why is not None:
            made[0].kill("worker", why)

    policy = Policy(settings.restart_max, settings.restart_window, settings.restart_backoff)
    made.append(Supervisor(kids, child_env(settings), policy, on_give_up=gave_up,
                           on_start=started, watch=look,
                           watch_every=max(1.0, settings.heartbeat_interval / 2)))
    return made[0]


@click.command(name="serve")
@click.option("--demo", is_flag=True, help="Seed a demo campaign whose thread is a local file.")
@click.option("--host", default=None, help="Panel address (default: settings.panel_host).")
@click.option("--port", type=int, default=None, help="Panel port (default: settings.panel_port).")
@click.option("--concurrency", type=int, default=1, show_default=True,
              help="Worker processes (1: a single solo worker).")
@click.option("--no-panel", is_flag=True, help="Run the worker and beat only.")
@click.option("--no-beat", is_flag=True, help="Do not run beat (another machine runs it).")
@click.option("--loglevel", default="info", show_default=True)
def command(demo: bool, host: str | None, port: int | None, concurrency: int, no_panel: bool,
            no_beat: bool, loglevel: str) -> None:
    """Run the panel, a worker and beat (embedded SQLite broker unless PBP_BROKER_URL)."""
    configure_logging(level=loglevel)
    settings = load_settings()
    if demo:
        settings = settings.with_overrides(**DEMO_OVERRIDES)
    campaign = prepare(settings, demo)
    sup = supervisor(settings, children(settings, concurrency, loglevel, beat=not no_beat))
    stopped = threading.Event()

    def terminate(*_: object) -> None:
        """SIGTERM: stop the children (bounded by STOP_GRACE), then exit 0. Once only: a
        signal repeated while stopping ran the stop again inside the first one, which
        waited forever on the supervisor's lock (pbp serve alive, its port open, its
        children zombies); and installed before any child starts, so an early SIGTERM
        cannot kill pbp serve and leave them behind."""
        if stopped.is_set():
            return
        stopped.set()
        sup.stop(STOP_GRACE)
        sys.exit(0)

    signal.signal(signal.SIGTERM, terminate)
    sup.start()
    click.echo(f"pbp: data directory {settings.data_path}", err=True)
    click.echo(f"pbp: database {settings.database_url}; broker {settings.broker_url}", err=True)
    if demo:
        click.echo(f"pbp: demo campaign #{campaign}; append posts to {demo_thread_path(settings)}; "
                   "panel login demo/demo", err=True)
        click.echo(f"pbp: replies are written to {demo_replies_path(settings)}", err=True)
        start_demo_players(settings)

    try:
        if no_panel:
            while sup.alive() and not stopped.wait(1):
                pass
            if not sup.alive():
                raise click.ClickException("pbp serve gave up restarting the worker and beat; see the log above")
            return
        app = create_app(settings=settings)
        app.run(host=host or settings.panel_host, port=port or settings.panel_port,
                use_reloader=False, threaded=True)
    except KeyboardInterrupt:
        pass
    finally:
        sup.stop(STOP_GRACE)
