"""Infrastructure tables of the workers: leases and topic-list watch state.

Why here and not in ``workers/``: every table of the database is described by one
metadata (``Base.metadata``) and created by the Alembic migrations, so
``alembic upgrade head`` gives workers what they need and the drift test covers these
tables too. They hold nothing a narrator would miss: a lost lease row is an expired
lease, a lost watch row costs one full walk of a forum's topic list. Workers still call
``create_all(checkfirst=True)`` on them, so a bare engine (tests, doctests) works.
"""

from __future__ import annotations

import sqlalchemy as sa

from .base import Base

#: One row per held lease (``poll:<thread id>``, ``watch:<listing url>``).
leases_table = sa.Table(
    "pbp_leases", Base.metadata,
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("holder", sa.String(64), nullable=False),
    sa.Column("expires_at", sa.Float, nullable=False),  # unix time, seconds
)

#: One row per watched topic list: its last-post-per-topic state and ETag, next check.
watch_table = sa.Table(
    "pbp_watch_state", Base.metadata,
    sa.Column("key", sa.String(500), primary_key=True),
    sa.Column("state", sa.Text, nullable=False, default="{}"),
    sa.Column("next_check", sa.Float, nullable=False, default=0.0),
    sa.Column("last_check", sa.Float),
    sa.Column("last_error", sa.Text),
    sa.Column("error_count", sa.Integer, nullable=False, default=0),
)

#: One row per rate budget shared by every worker process (issue 17, SCALE-1):
#: ``host:<forum host>`` and ``reddit:<client id>``. ``next_at`` is when the next request
#: may go (unix seconds); ``spacing`` is the interval learnt from the server (Reddit's
#: ``x-ratelimit-*`` headers), NULL to use the caller's; ``window_*`` count the requests of
#: the current minute for the panel. A lost row is one request sent a little early.
budgets_table = sa.Table(
    "pbp_budgets", Base.metadata,
    sa.Column("key", sa.String(300), primary_key=True),
    sa.Column("next_at", sa.Float, nullable=False, default=0.0),
    sa.Column("spacing", sa.Float),
    sa.Column("window_start", sa.Float, nullable=False, default=0.0),
    sa.Column("window_calls", sa.Integer, nullable=False, default=0),
    sa.Column("calls", sa.Integer, nullable=False, default=0),
)

#: One row per process that proves it is alive (issue 18): ``beat:<host>`` written on beat's
#: tick, ``worker:<celery hostname>`` by the heartbeat task a worker runs, and ``serve:<child>``
#: where ``pbp serve`` gave up restarting a child (``state = "given_up"``). Read by
#: :mod:`pbp.store.health`; ``detail`` is JSON (queue depth measured by beat, the give-up's
#: counts). A lost row is one missed heartbeat.
heartbeats_table = sa.Table(
    "pbp_heartbeats", Base.metadata,
    sa.Column("name", sa.String(200), primary_key=True),
    sa.Column("role", sa.String(20), nullable=False),          # worker | beat
    sa.Column("state", sa.String(20), nullable=False, default="alive"),  # alive | given_up
    sa.Column("seen_at", sa.Float, nullable=False),            # unix time, seconds
    sa.Column("pid", sa.Integer),
    sa.Column("host", sa.String(200)),
    sa.Column("detail", sa.Text, nullable=False, default="{}"),
)


def create_tables(engine: sa.Engine, tables: list[sa.Table]) -> None:
    """``create_all(checkfirst=True)`` of *tables* on a bare engine, safe when another
    process creates them at the same moment.

    Why: every worker of ``pbp serve`` makes its rate budget at start; on a fresh
    PostgreSQL database two of them both found ``pbp_budgets`` missing and both created it,
    and the second died on ``pg_type_typname_nsp_index`` (seen in a CI run): PostgreSQL
    refuses the same table twice even with ``IF NOT EXISTS``. A creation that fails is
    all right when the tables exist afterwards; anything else is raised."""
    try:
        Base.metadata.create_all(engine, tables=tables, checkfirst=True)
    except (sa.exc.IntegrityError, sa.exc.ProgrammingError, sa.exc.OperationalError):
        present = sa.inspect(engine)
        if not all(present.has_table(t.name, schema=t.schema) for t in tables):
            raise
