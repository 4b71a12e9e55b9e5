"""SCALE-1: two workers starting on a fresh database both create the shared budget's table.

Seen in a CI run on a fresh PostgreSQL database: both processes found ``pbp_budgets``
missing and created it, and the second died on ``pg_type_typname_nsp_index``
(``UniqueViolation``), before polling anything. ``infra.create_tables`` accepts a creation
that fails when the table exists afterwards, and raises anything else."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from pbp.store import infra
from pbp.store.budget import DatabaseBudget
from pbp.store.db import make_engine


def test_scale_1_a_table_created_meanwhile_by_another_worker_is_fine(
        empty_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = make_engine(empty_url)
    other = make_engine(empty_url)
    real = infra.Base.metadata.create_all

    def raced(bind, tables=None, checkfirst=True):  # type: ignore[no-untyped-def]
        # the other worker creates it between this one's check and its CREATE TABLE
        real(other, tables=tables, checkfirst=True)
        real(bind, tables=tables, checkfirst=False)

    monkeypatch.setattr(infra.Base.metadata, "create_all", raced)
    try:
        budget = DatabaseBudget(engine)          # raised before: "already exists"
        assert budget.reserve("host:example.org", 2.0) == 0.0
        assert sa.inspect(engine).has_table("pbp_budgets")
    finally:
        engine.dispose()
        other.dispose()


def test_scale_1_a_creation_that_fails_for_another_reason_is_raised(
        empty_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = make_engine(empty_url)

    def refused(bind, tables=None, checkfirst=True):  # type: ignore[no-untyped-def]
        raise sa.exc.ProgrammingError("CREATE TABLE pbp_budgets", {}, Exception("permission denied"))

    monkeypatch.setattr(infra.Base.metadata, "create_all", refused)
    try:
        with pytest.raises(sa.exc.ProgrammingError):
            DatabaseBudget(engine)
    finally:
        engine.dispose()
