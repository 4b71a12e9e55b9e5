"""``pbp serve``: the narrator panel, a worker and beat, in one command.

With no settings this is the embedded default: SQLite for the data
(``<data_dir>/pbp.sqlite``) and for the broker (kombu's SQLAlchemy transport on
``<data_dir>/broker.sqlite``), nothing else to install. The worker and beat run as
child processes (the same ``celery`` commands production runs, see README), the panel
in this process; Ctrl-C stops all three. ``--demo`` seeds a demo campaign whose thread
is a local file (examples/demo/), so a round is declared, resolved and shown within
a minute, and runs the demo's scripted players and narrator (workers/demo_players.py)
so the fight goes on round after round.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import click

from workers.demo import demo_replies_path, demo_thread_path, seed_demo
from workers.demo_players import start_demo_players

from ..logs import configure_logging
from ..panel import create_app
from ..settings import Settings, load_settings
from ..store.db import upgrade

#: Demo timing: poll every 4 s, sweep deadlines every 5 s.
DEMO_OVERRIDES = {"deadline_sweep_interval": 5, "poll_interval": 4}


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
    env = child_env(settings)
    children: list[subprocess.Popen[bytes]] = [subprocess.Popen(worker_argv(concurrency, loglevel), env=env)]
    if not no_beat:
        children.append(subprocess.Popen(beat_argv(settings, loglevel), env=env))
    click.echo(f"pbp: data directory {settings.data_path}", err=True)
    click.echo(f"pbp: database {settings.database_url}; broker {settings.broker_url}", err=True)
    if demo:
        click.echo(f"pbp: demo campaign #{campaign}; append posts to {demo_thread_path(settings)}; "
                   "panel login demo/demo", err=True)
        click.echo(f"pbp: replies are written to {demo_replies_path(settings)}", err=True)
        start_demo_players(settings)

    def stop(*_: object) -> None:
        for child in children:
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + 15
        for child in children:
            try:
                child.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()

    def terminate(*_: object) -> None:
        stop()
        sys.exit(0)

    signal.signal(signal.SIGTERM, terminate)
    try:
        if no_panel:
            while all(c.poll() is None for c in children):
                time.sleep(1)
            raise click.ClickException("a worker or beat process stopped; see the log above")
        app = create_app(settings=settings)
        app.run(host=host or settings.panel_host, port=port or settings.panel_port,
                use_reloader=False, threaded=True)
    except KeyboardInterrupt:
        pass
    finally:
        stop()
