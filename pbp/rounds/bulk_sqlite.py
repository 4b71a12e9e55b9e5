"""Quicker bind processors for the values an ingest batch writes to SQLite (SCALE-6).

Why a module of its own: SQLAlchemy's processor of a column type handles every value the
type may take (markers, conversions, checks); a batch's rows hold a few kinds of value
over and over (aware UTC times, mostly the batch's one ``now``; empty JSON lists; small
JSON lists and dicts; booleans). Each quick processor gives the text the column's own
processor gives, is checked against it on a sample when it is made (else the column's
own stays), and hands any other value to it. :func:`pbp.rounds.bulk.insert_rows` uses
them for its plain SQLite INSERT.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Boolean

from ..store.types import UTCDateTime, last_kept

_SAMPLE = datetime(2026, 12, 2, 9, 5, 7, 1234, tzinfo=UTC)


def quicker(kind: Any, processor: Any, dialect: Any) -> Any:
    """*processor*, or a quicker function giving the same text for the values an ingest
    writes most (checked here on a sample, else *processor* stays): a UTC datetime as
    SQLite's storage format (two layers of processing and a ``%`` format of a dict, as one
    ``isoformat``), and an empty JSON list (the usual ``errors``, ``notes``, ``tables``)."""
    if processor is None:
        return None
    if isinstance(kind, UTCDateTime):
        naive = kind.process_bind_param

        def convert(value: Any) -> Any:
            if value is None:
                return None
            if value.tzinfo is UTC:   # the usual: no conversion to make
                return value.replace(tzinfo=None).isoformat(" ", "microseconds")
            return naive(value, dialect).isoformat(" ", "microseconds")

        utc = last_kept(convert)   # the same time object converted once (SCALE-6)
        return utc if utc(_SAMPLE) == processor(_SAMPLE) else processor
    if isinstance(kind, JSON) and processor([]) == "[]":
        return _quick_json(kind, processor, dialect)
    if isinstance(kind, Boolean) and (processor(True), processor(False)) == (1, 0):
        return lambda value: 1 if value is True else 0 if value is False else processor(value)
    return processor


def _quick_json(kind: Any, processor: Any, dialect: Any) -> Any:
    """A JSON column's processor for a batch's values: an empty list as its text, a list
    or dict straight to the dialect's serializer (SQLAlchemy's processor tests each value
    for its NULL markers first); anything else through *processor*."""
    serializer = dialect._json_serializer
    if serializer is None or kind._str_impl.bind_processor(dialect) is not None:
        return lambda value: "[]" if value.__class__ is list and not value else processor(value)

    def json_value(value: Any) -> Any:
        kind_of = value.__class__
        if kind_of is list:
            return serializer(value) if value else "[]"
        return serializer(value) if kind_of is dict else processor(value)

    return json_value if json_value(_JSON_SAMPLE) == processor(_JSON_SAMPLE) else processor


_JSON_SAMPLE = {"code": "late", "values": [1, 2.5, "é", None, True]}
