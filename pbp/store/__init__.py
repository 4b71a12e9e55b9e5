"""The store: SQLAlchemy models, engine/session helpers, Alembic migrations (docs/store.md)."""

from .db import make_engine, session_scope, upgrade

__all__ = ["make_engine", "session_scope", "upgrade"]
