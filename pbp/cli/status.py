"""``pbp status``: what the workers are doing, read from the database.

Per source: last poll, how late its next poll is (lag), errors and the last cause.
Per open round: deadline, time left, who has posted and who has not.
Per outbox: replies waiting, failed (with the cause). Per process (worker, beat): the last
heartbeat, the queues' depth, the oldest deadline not yet resolved, and anything stale as
a problem in words (issue 18). ``--json`` for scripts.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import click
from sqlalchemy import func, inspect, select
from sqlalchemy.orm import Session

from ..jobs.health import ago, describe
from ..settings import Settings
from ..store.db import session_scope
from ..store.health import health
from ..store.infra import watch_table
from ..store.models import Combatant, Declaration, Encounter, Post, Reply, Round, Thread
from .common import open_database, settings


def _age(then: datetime | None, now: datetime) -> str:
    if then is None:
        return "never"
    secs = (now - then).total_seconds()
    sign = "" if secs >= 0 else "in "
    secs = abs(secs)
    text = f"{secs:.0f}s" if secs < 120 else f"{secs / 60:.0f}m" if secs < 7200 else f"{secs / 3600:.1f}h"
    return f"{sign}{text}" + (" ago" if sign == "" else "")


def collect(session: Session, now: datetime | None = None, *,
            stale_after: float = Settings.heartbeat_stale) -> dict[str, Any]:
    """The status as plain data (the CLI prints it; tests and the panel can read it)."""
    now = now or datetime.now(UTC)
    verdict = health(session, now, stale_after=stale_after)
    sources = []
    for t in session.scalars(select(Thread).order_by(Thread.id)):
        lag = (now - t.next_poll).total_seconds() if t.next_poll and t.active else 0.0
        latest = session.execute(
            select(Post.posted_at, Post.first_seen_at).where(Post.thread_id == t.id)
            .order_by(Post.id.desc()).limit(20)).all()
        delays = sorted(max(0.0, (seen - posted).total_seconds()) for posted, seen in latest)
        sources.append({
            "thread": t.id, "kind": t.kind, "url": t.url, "active": t.active,
            "last_poll": t.last_poll.isoformat() if t.last_poll else None,
            "last_poll_age": _age(t.last_poll, now),
            "poll_lag_s": round(max(0.0, lag), 1),
            "ingest_delay_median_s": round(delays[len(delays) // 2], 1) if delays else None,
            "errors": t.error_count, "last_error": t.last_error,
        })
    rounds = []
    for r in session.scalars(select(Round).where(Round.state == "open").order_by(Round.deadline)):
        enc = session.get(Encounter, r.encounter_id)
        players = list(session.scalars(select(Combatant).where(
            Combatant.encounter_id == r.encounter_id, Combatant.player.is_not(None),
            Combatant.down.is_(False))))
        posted_ids = set(session.scalars(select(Declaration.combatant_id).where(
            Declaration.round_id == r.id, Declaration.deleted.is_(False))))
        rounds.append({
            "round": r.id, "number": r.number, "encounter": r.encounter_id,
            "thread": enc.thread_id if enc else None,
            "deadline": r.deadline.isoformat(), "due_in": _age(r.deadline, now),
            "overdue": r.deadline <= now,
            "posted": [c.name for c in players if c.id in posted_ids],
            "missing": [c.name for c in players if c.id not in posted_ids],
        })
    counts = dict(session.execute(select(Reply.state, func.count()).group_by(Reply.state)).all())
    failed = [{"reply": r.id, "thread": r.thread_id, "round": r.round_id, "kind": r.kind,
               "attempts": r.attempts, "last_error": r.last_error}
              for r in session.scalars(select(Reply).where(Reply.state == "failed").limit(50))]
    retrying = [{"reply": r.id, "attempts": r.attempts, "last_error": r.last_error}
                for r in session.scalars(select(Reply).where(Reply.state.in_(("pending", "sending")),
                                                             Reply.attempts > 0).limit(50))]
    return {"now": now.isoformat(), "health": {**verdict.as_json(),
                                               "said": [describe(p) for p in verdict.problems]},
            "sources": sources, "listings": _listings(session, now),
            "rounds": rounds, "outbox": {"counts": counts, "failed": failed, "retrying": retrying}}


def _listings(session: Session, now: datetime) -> list[dict[str, Any]]:
    """Forum topic lists the workers watch (pbp/jobs/listings.py), when any are."""
    if not inspect(session.connection()).has_table(watch_table.name):
        return []
    out = []
    for row in session.execute(select(watch_table)).mappings():
        last = datetime.fromtimestamp(row["last_check"], UTC) if row["last_check"] else None
        out.append({"listing": row["key"], "last_check_age": _age(last, now),
                    "errors": row["error_count"], "last_error": row["last_error"]})
    return out


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value}s"


@click.command(name="status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--database-url", envvar="PBP_DATABASE_URL", default=None, help="Default: the settings'.")
def command(as_json: bool, database_url: str | None) -> None:
    """Per source: last poll, lag, errors. Per round: deadline, who has posted. The outbox."""
    conf = settings()
    engine = open_database(database_url)
    with session_scope(engine) as s:
        data = collect(s, stale_after=conf.heartbeat_stale)
    engine.dispose()
    data["data_dir"] = str(conf.data_path)
    if as_json:
        click.echo(json.dumps(data, indent=2, default=str))
        return
    click.echo(f"data directory {conf.data_path}")
    _print_health(data["health"])
    click.echo(f"sources ({len(data['sources'])})")
    for src in data["sources"]:
        err = f"  errors={src['errors']} last: {src['last_error']}" if src["errors"] else ""
        click.echo(f"  #{src['thread']:<5} {src['kind']:<6} last poll {src['last_poll_age']:<10} "
                   f"lag {src['poll_lag_s']}s  ingest delay {_seconds(src['ingest_delay_median_s'])}  "
                   f"{src['url']}{err}")
    for li in data["listings"]:
        err = f"  errors={li['errors']} last: {li['last_error']}" if li["errors"] else ""
        click.echo(f"  topic list {li['listing']} read {li['last_check_age']}{err}")
    click.echo(f"open rounds ({len(data['rounds'])})")
    for r in data["rounds"]:
        click.echo(f"  round #{r['round']} (n.{r['number']}, thread #{r['thread']}) deadline "
                   f"{r['deadline']} ({r['due_in']})  posted: {', '.join(r['posted']) or '-'}  "
                   f"missing: {', '.join(r['missing']) or '-'}")
    ob = data["outbox"]
    click.echo("outbox " + (", ".join(f"{k}={v}" for k, v in sorted(ob["counts"].items())) or "empty"))
    for f in ob["failed"]:
        click.echo(f"  FAILED reply #{f['reply']} ({f['kind']}, round #{f['round']}) after "
                   f"{f['attempts']} tries: {f['last_error']}")
    for f in ob["retrying"]:
        click.echo(f"  retrying reply #{f['reply']} ({f['attempts']} tries): {f['last_error']}")


def _print_health(h: dict[str, Any]) -> None:
    """``processes``: each one's last heartbeat, then every problem in words."""
    click.echo("processes")
    for role in ("worker", "beat"):
        p = h["processes"][role]
        seen = f"last heartbeat {ago(p['age_s'])} ago ({p['name']})" if p["age_s"] is not None \
            else "no heartbeat yet"
        click.echo(f"  {role:<7} {p['state']:<6} {seen}")
    waiting = "-" if h["waiting"] is None else str(h["waiting"])
    queues = ", ".join(f"{k}={v}" for k, v in sorted((h["queues"] or {}).items()))
    click.echo(f"  tasks waiting {waiting}" + (f" ({queues})" if queues else ""))
    if h["oldest_overdue_s"] is not None:
        n = h["overdue_rounds"]
        click.echo(f"  {n} open round{'s' if n != 1 else ''} past the deadline, the oldest by "
                   f"{ago(h['oldest_overdue_s'])}")
    for said in h["said"]:
        click.echo(f"  PROBLEM: {said}")
