"""Alembic environment for pbp: runs on the URL given by pbp.store.db.alembic_config."""

from __future__ import annotations

from alembic import context

from pbp.settings import load_settings
from pbp.store.db import make_engine
from pbp.store.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata,
                      literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _url() -> str:
    """The URL given by pbp.store.db, else alembic.ini's, else the settings'."""
    url = config.attributes.get("pbp_url") or config.get_main_option("sqlalchemy.url")
    if not url:
        url = load_settings().database_url
    return url


def run_migrations_online() -> None:
    url = _url()
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata,
                          render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            context.configure(connection=conn, target_metadata=target_metadata,
                              render_as_batch=True)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
