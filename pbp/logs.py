"""Structured logs: one line per event, with the thread and round it concerns.

Why a context variable: a task sets ``thread_id``/``round_id`` once (``log_context(thread_id=.., round_id=..)``)
and every line logged underneath carries them, including lines from the service layer
and the sources, without threading ids through every call. Lines are ``key=value``
(the default, readable in a terminal and greppable) or JSON (``PBP_LOG_FORMAT=json``,
for a log collector).

>>> import io, logging
>>> buf = io.StringIO()
>>> log = logging.getLogger("pbp.doctest")
>>> h = logging.StreamHandler(buf); h.setFormatter(KeyValueFormatter()); h.addFilter(ContextFilter())
>>> log.addHandler(h); log.setLevel(logging.INFO); log.propagate = False
>>> with log_context(thread_id=7, round_id=3):
...     log.info("polled", extra={"new": 2})
>>> line = buf.getvalue()
>>> "thread_id=7" in line and "round_id=3" in line and "new=2" in line and 'msg=polled' in line
True
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import os
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

#: never mutated: bound() sets a new dict, so the shared empty default stays empty
_CONTEXT: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar(
    "pbp_log_context", default={})  # noqa: B039

#: LogRecord attributes that are not ``extra=`` fields.
_STANDARD = set(vars(logging.LogRecord("x", 0, "x", 0, "x", None, None))) | {"message", "asctime", "taskName"}
#: Fields always printed, in this order, so every line is comparable by eye.
_ALWAYS = ("thread_id", "round_id")


@contextlib.contextmanager
def log_context(**fields: Any) -> Iterator[None]:
    """Add *fields* to every log line written inside the block (nested blocks add up)."""
    token = _CONTEXT.set({**_CONTEXT.get(), **{k: v for k, v in fields.items() if v is not None}})
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def current_context() -> dict[str, Any]:
    return dict(_CONTEXT.get())


class ContextFilter(logging.Filter):
    """Copies the context fields onto each record (``thread_id``/``round_id`` default to ``-``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for key, value in _CONTEXT.get().items():
            if not hasattr(record, key):
                setattr(record, key, value)
        for key in _ALWAYS:
            if not hasattr(record, key):
                setattr(record, key, "-")
        return True


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
        "level": record.levelname.lower(),
        "logger": record.name,
    }
    for key in _ALWAYS:
        out[key] = getattr(record, key, "-")
    out["msg"] = record.getMessage()
    for key, value in vars(record).items():
        if key not in _STANDARD and key not in out and not key.startswith("_"):
            out[key] = value
    if record.exc_info and record.exc_info[0] is not None:
        out["error"] = f"{record.exc_info[0].__name__}: {record.exc_info[1]}"
    return out


def _kv(value: Any) -> str:
    text = str(value)
    if not text or any(c in text for c in ' "=\n\t'):
        return json.dumps(text, ensure_ascii=False)
    return text


class KeyValueFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return " ".join(f"{k}={_kv(v)}" for k, v in _fields(record).items())


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(_fields(record), ensure_ascii=False, default=str)


def configure_logging(level: str | int | None = None, fmt: str | None = None,
                      stream: Any = None) -> logging.Handler:
    """Install one structured handler on the root logger (idempotent).

    *fmt* is ``kv`` or ``json`` (default: ``PBP_LOG_FORMAT`` or ``kv``); *level* defaults
    to ``PBP_LOG_LEVEL`` or INFO.
    """
    fmt = (fmt or os.environ.get("PBP_LOG_FORMAT") or "kv").lower()
    level = level or os.environ.get("PBP_LOG_LEVEL") or "INFO"
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "_pbp", False):
            root.removeHandler(h)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else KeyValueFormatter())
    handler.addFilter(ContextFilter())
    handler._pbp = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(level if isinstance(level, int) else level.upper())
    # Celery and Alembic say a line per task sent, received and finished at INFO: with
    # beat dispatching every few seconds that buries pbp's own lines. DEBUG shows them.
    quiet = logging.WARNING if root.level > logging.DEBUG else logging.NOTSET
    for name in _CHATTY:
        logging.getLogger(name).setLevel(quiet)
    return handler


_CHATTY = ("celery.app.trace", "celery.worker.strategy", "celery.beat",
           "alembic.runtime.plugins", "alembic.runtime.migration")
