"""The real Celery app with faults injected from the environment (tests only).

Started as ``celery -A tests.workers.fault_app worker`` so production code carries no
test hooks:

* ``PBP_FAULT_SLOW_RESOLVE=<s>`` — after the service has resolved a round (inside the
  task's transaction, before the commit), write ``PBP_FAULT_MARK`` and sleep: the test
  kills the worker with -9 in that window.
* ``PBP_FAULT_FILE=<path>`` — while that file says ``500`` or ``timeout``, the scenario
  file source fails like a forum that answers 500 or does not answer: ``fetch`` and
  ``reply`` raise a retryable :class:`SourceError` (``timeout`` after a 2 s stall).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from pbp.sources.base import SourceError
from pbp.sources.scenario_file import FileSource
from workers.celery_app import app  # noqa: F401  (the app celery -A loads)

if os.environ.get("PBP_FAULT_SLOW_RESOLVE"):
    from pbp.rounds import service

    _resolve = service.resolve_round

    def _slow_resolve(session: Any, round_id: int, now: Any) -> Any:
        out = _resolve(session, round_id, now)
        session.flush()
        Path(os.environ["PBP_FAULT_MARK"]).write_text(str(os.getpid()))
        time.sleep(float(os.environ["PBP_FAULT_SLOW_RESOLVE"]))
        return out

    service.resolve_round = _slow_resolve

if os.environ.get("PBP_FAULT_FILE"):
    _fault = Path(os.environ["PBP_FAULT_FILE"])

    def _check(where: str) -> None:
        mode = _fault.read_text().strip() if _fault.exists() else ""
        if mode == "500":
            raise SourceError("the forum answered HTTP 500", where=where, retryable=True)
        if mode == "timeout":
            time.sleep(2)
            raise SourceError("the forum did not answer in time (read timeout)", where=where,
                              retryable=True)

    _fetch, _reply, _find = FileSource.fetch, FileSource.reply, FileSource.find_reply

    def fetch(self: FileSource, cursor: Any) -> Any:
        _check(str(self.path))
        return _fetch(self, cursor)

    def reply(self: FileSource, text: str, marker: str, *, in_reply_to: str | None = None) -> str:
        _check(str(self.path))
        return _reply(self, text, marker, in_reply_to=in_reply_to)

    def find_reply(self: FileSource, marker: str) -> str | None:
        _check(str(self.path))
        return _find(self, marker)

    FileSource.fetch = fetch  # type: ignore[method-assign]
    FileSource.reply = reply  # type: ignore[method-assign]
    FileSource.find_reply = find_reply  # type: ignore[method-assign]
