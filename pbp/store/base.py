"""The declarative base every table shares: one metadata, one naming convention.

Why a module of its own: the tables are split by topic (:mod:`pbp.store.campaigns`,
:mod:`pbp.store.models`, :mod:`pbp.store.ledger`, :mod:`pbp.store.infra`) and each needs
the base without importing the others.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import ForeignKey, MetaData
from sqlalchemy.orm import DeclarativeBase, mapped_column

from .types import JsonType, UTCDateTime

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime, dict[str, Any]: JsonType, list[Any]: JsonType}


def fk(target: str, nullable: bool = False, ondelete: str = "CASCADE", *, index: bool = True) -> Any:
    """A foreign key column, indexed unless *index* is False: for a column that leads a
    unique constraint or a composite index already, which serves its lookups and the
    key's checks, and a second index is one more B-tree to write on every insert."""
    return mapped_column(ForeignKey(target, ondelete=ondelete), nullable=nullable, index=index)
