"""``pbp health``: one line and an exit status, for systemd, a container or a monitor.

Exit 0 when a worker and beat have both answered within ``heartbeat_stale`` seconds,
1 when either has not (the line says which, and for how long), 2 when the database
cannot be read (like every ``pbp`` error). The panel's ``/healthz`` answers the same
question over HTTP (pbp/panel/health.py); both read :mod:`pbp.store.health`.
"""

from __future__ import annotations

import json
import sys

import click

from ..jobs.health import ago, describe
from ..store.db import session_scope
from ..store.health import Health, health
from .common import open_database, settings


def one_line(verdict: Health) -> str:
    """``ok: worker answered 3 seconds ago, beat 1 second ago`` or the problems, joined."""
    if verdict.ok:
        line = (f"ok: worker answered {ago(verdict.worker.age_s)} ago, "
                f"beat {ago(verdict.beat.age_s)} ago")
    else:
        line = "problem: " + "; ".join(describe(p) for p in verdict.problems)
    if verdict.oldest_overdue_s is not None:
        n = verdict.overdue_rounds
        line += (f" ({n} round{'s' if n != 1 else ''} past the deadline, the oldest by "
                 f"{ago(verdict.oldest_overdue_s)})")
    return line


@click.command(name="health")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--database-url", envvar="PBP_DATABASE_URL", default=None, help="Default: the settings'.")
def command(as_json: bool, database_url: str | None) -> None:
    """Are the worker and beat alive? Exit 0 (yes) or 1 (no), with one line."""
    conf = settings()
    engine = open_database(database_url)
    try:
        with session_scope(engine) as s:
            verdict = health(s, stale_after=conf.heartbeat_stale)
    finally:
        engine.dispose()
    click.echo(json.dumps(verdict.as_json(), default=str) if as_json else one_line(verdict))
    sys.exit(0 if verdict.ok else 1)
