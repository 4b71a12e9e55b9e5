"""``/healthz`` and the service's health for the dashboard (issue 18).

Why an endpoint without login: systemd, a container orchestrator or an uptime monitor
asks it, and none of them has a narrator's password. It says only states and ages (no
host names, no ids, no settings): ``200`` with ``{"panel": "ok", "worker": "ok", "beat":
"ok", ...}`` when a worker and beat answered within ``heartbeat_stale`` seconds, ``503``
when either did not (or the database cannot be read), so a health check restarts or
alerts. The verdict is :func:`pbp.store.health.health`, the same ``pbp status`` and
``pbp health`` print.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Blueprint, Flask, current_app, jsonify
from sqlalchemy.exc import SQLAlchemyError

from ..store.health import Health, health
from .db import session

bp = Blueprint("health", __name__)


def stale_after() -> float:
    """Seconds without a heartbeat after which a process is stale (``heartbeat_stale``)."""
    return float(current_app.config.get("HEARTBEAT_STALE")
                 or current_app.config["PBP_SETTINGS"].heartbeat_stale)


def verdict() -> Health:
    return health(session(), stale_after=stale_after())


def for_template(v: Health) -> dict[str, Any]:
    """What the dashboard's service card shows: ages as timedeltas (the template words
    them in the narrator's language with ``timedeltaformat``)."""
    def age(seconds: float | None) -> timedelta | None:
        return None if seconds is None else timedelta(seconds=seconds)

    return {"ok": v.ok, "processes": [(p.role, p.state, age(p.age_s)) for p in (v.worker, v.beat)],
            "problems": [(p.code, p.role, age(p.age_s), p.restarts, age(p.window)) for p in v.problems],
            "waiting": v.waiting, "overdue": v.overdue_rounds, "oldest": age(v.oldest_overdue_s)}


@bp.route("/healthz")
def healthz():  # type: ignore[no-untyped-def]
    try:
        v = verdict()
    except SQLAlchemyError:
        return jsonify(panel="ok", database="unreachable", worker="unknown", beat="unknown"), 503
    body = v.as_json()
    for p in body["processes"].values():
        p.pop("name", None)          # a host name is nobody's business here
    return jsonify(panel="ok", database="ok", **body), 200 if v.ok else 503


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
