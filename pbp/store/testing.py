"""Throwaway databases for tests and benchmarks: a SQLite file, or a PostgreSQL schema.

Why a schema per use: several test runs (and several engineers) share one PostgreSQL
database; a fresh schema, selected through ``search_path`` in the URL, keeps them apart
and is dropped afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine


def with_search_path(url: str, schema: str) -> str:
    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}"


@contextmanager
def temporary_database(kind: str, *, directory: Path | str, postgres_url: str | None = None
                       ) -> Iterator[str]:
    """Yield the URL of an empty database of *kind* (``sqlite`` or ``postgresql``)."""
    if kind == "sqlite":
        path = Path(directory) / f"pbp-{uuid.uuid4().hex[:8]}.sqlite"
        yield f"sqlite:///{path}"
        return
    if not postgres_url:
        raise ValueError("a PostgreSQL URL is needed")
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        yield with_search_path(postgres_url, schema)
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()
