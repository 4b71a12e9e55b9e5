"""Health the narrator and the operator can see (issue 18 items 2 and 3): ``/healthz``
answers 200 or 503 without a login, the dashboard and ``pbp status`` say in words that the
worker has stopped answering, and ``pbp health`` exits 0 or 1 with one line.

The heartbeat rows are written as the processes write them (:func:`pbp.jobs.health.record`),
dated back where a test needs a stale one. The threshold is the ``heartbeat_stale``
default, 60 s: a worker last seen 130 s ago is stale ("2 minutes"), one seen now is not.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from pbp.cli import cli
from pbp.jobs.health import record
from pbp.store.db import make_engine, session_scope
from pbp.store.infra import heartbeats_table
from pbp.store.models import Reply, Round
from tests.panel.conftest import Client, browser_login

STALE_AGE = 130
DESKTOP_VIEWPORT = {"width": 1440, "height": 1000}


def _beats(db_url: str, *, worker_age: float | None, beat_age: float = 0.0,
           given_up: dict[str, Any] | None = None) -> None:
    engine = make_engine(db_url)
    try:
        now = time.time()
        if worker_age is not None:
            record(engine, "worker:celery@panel-host", "worker", at=now - worker_age)
        record(engine, "beat:panel-host", "beat", at=now - beat_age,
               detail={"queues": {"pbp.poll": 0, "pbp.rounds": 3, "pbp.deliver": 1}})
        if given_up is not None:
            record(engine, "serve:worker", "worker", state="given_up", detail=given_up, at=now)
    finally:
        engine.dispose()


def test_healthz_is_200_when_the_worker_and_beat_answer(client: Client, db_url: str) -> None:
    """Issue 18 item 3: no login needed; states and figures, no host names."""
    _beats(db_url, worker_age=5)
    r = client.get("/healthz")
    assert r.status_code == 200, r.text
    body = r.json
    assert (body["panel"], body["database"], body["worker"], body["beat"]) == ("ok", "ok", "ok", "ok")
    assert body["waiting"] == 4 and body["queues"]["pbp.rounds"] == 3      # 0 + 3 + 1, beat's count
    assert 4 <= body["processes"]["worker"]["age_s"] <= 30
    assert body["problems"] == []
    assert "panel-host" not in r.text and "celery@" not in r.text


@pytest.mark.parametrize("worker_age,code", [(STALE_AGE, "stale"), (None, "never")])
def test_healthz_is_503_when_the_worker_is_stale_or_never_answered(client: Client, db_url: str,
                                                                   worker_age: float | None,
                                                                   code: str) -> None:
    """Issue 18 item 3: 503 when the worker has not answered within heartbeat_stale (60 s)."""
    _beats(db_url, worker_age=worker_age)
    r = client.get("/healthz")
    assert r.status_code == 503
    assert r.json["worker"] == "stale" and r.json["beat"] == "ok"
    assert [(p["code"], p["role"]) for p in r.json["problems"]] == [(code, "worker")]


def test_healthz_is_503_when_pbp_serve_gave_up_on_the_worker(client: Client, db_url: str) -> None:
    """A give-up newer than the worker's last heartbeat makes it stale at once (issue 18 item 1)."""
    _beats(db_url, worker_age=10, given_up={"restarts": 5, "window": 300})
    r = client.get("/healthz")
    assert r.status_code == 503 and r.json["worker"] == "stale"
    assert {"code": "given_up", "role": "worker", "restarts": 5, "window": 300.0,
            "age_s": None} in r.json["problems"]


def test_healthz_counts_the_rounds_past_their_deadline(client: Client, db_url: str, ids: dict[str, Any]) -> None:
    """The oldest due deadline not yet resolved: the sample's open round, moved 45 s back.
    While its announcement waits for approval its clock does not run (issue 11 item 4), so
    it is not overdue; once the announcement is out, it is."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        s.get(Round, ids["round"]).deadline = datetime.now(UTC) - timedelta(seconds=45)
    _beats(db_url, worker_age=1)
    assert client.get("/healthz").json["overdue_rounds"] == 0
    with session_scope(engine) as s:
        for reply in s.scalars(select(Reply).where(Reply.state == "held")):
            reply.state = "sent"
    engine.dispose()
    body = client.get("/healthz").json
    assert body["overdue_rounds"] == 1 and 45 <= body["oldest_overdue_s"] < 75


@pytest.mark.parametrize("lang,said", [
    ("en", "The worker has not answered for 2 minutes; rounds are not being resolved"),
    ("pt", "O worker não responde há 2 minutos; as rodadas não estão sendo resolvidas"),
    ("ru", "Обработчик (worker) не отвечает уже 2 минуты; раунды не разрешаются"),
])
def test_the_dashboard_says_the_worker_has_stopped(alice: Client, db_url: str, lang: str, said: str) -> None:
    """Issue 18 item 2: the problem in words, in the narrator's language, as an alert."""
    _beats(db_url, worker_age=STALE_AGE)
    if lang != "en":
        alice.get("/")
        assert alice.post("/language", {"language": lang}).status_code == 302
    html = alice.get("/").text
    assert said in html
    assert 'id="service-problems"' in html and 'role="alert"' in html


def test_the_dashboard_is_quiet_when_all_answer(alice: Client, db_url: str) -> None:
    _beats(db_url, worker_age=3)
    html = alice.get("/").text
    assert 'id="service-problems"' not in html
    assert "last heartbeat 3 seconds ago" in html or "last heartbeat 4 seconds ago" in html


def test_pbp_status_and_pbp_health_say_the_worker_is_stale(db_url: str) -> None:
    """``pbp status`` shows each process's last heartbeat and the problem in words;
    ``pbp health`` exits 1 with one line, then 0 once the worker answers again."""
    _beats(db_url, worker_age=STALE_AGE)
    runner = CliRunner()
    out = runner.invoke(cli, ["status", "--database-url", db_url])
    assert out.exit_code == 0, out.output
    assert "worker  stale  last heartbeat 2 minutes ago (worker:celery@panel-host)" in out.output
    assert ("PROBLEM: the worker has not answered for 2 minutes; rounds are not being resolved"
            in out.output)
    assert "tasks waiting 4" in out.output
    done = runner.invoke(cli, ["health", "--database-url", db_url])
    assert done.exit_code == 1
    assert done.output.count("\n") == 1
    assert done.output.startswith("problem: the worker has not answered for 2 minutes")
    _beats(db_url, worker_age=0)
    done = runner.invoke(cli, ["health", "--database-url", db_url])
    assert done.exit_code == 0 and done.output.startswith("ok: worker answered "), done.output


def test_browser_shows_a_stale_worker_on_the_dashboard(browser: Any, live_server: str, db_url: str) -> None:
    """Issue 18: the browser step. A narrator logs in and reads that the worker has stopped."""
    _beats(db_url, worker_age=STALE_AGE)
    ctx = browser.new_context(viewport=DESKTOP_VIEWPORT)
    try:
        page = ctx.new_page()
        browser_login(page, live_server)
        alert = page.locator("#service-problems [role=alert]")
        assert alert.count() == 1
        assert alert.inner_text().startswith("The worker has not answered for 2 minutes")
        assert page.locator("#service-worker").inner_text().startswith("not answering")
        assert page.locator("#service-beat").inner_text().startswith("answering")
    finally:
        ctx.close()


def test_rows_of_processes_gone_for_a_day_are_dropped(db_url: str) -> None:
    """When any process writes, rows older than a day are dropped (FORGET_AFTER): a retired
    machine's worker does not linger in the verdict."""
    engine = make_engine(db_url)
    try:
        record(engine, "worker:old@gone", "worker", at=time.time() - 2 * 86400)
        record(engine, "beat:panel-host", "beat")
        with session_scope(engine) as s:
            names = set(s.scalars(select(heartbeats_table.c.name)))
    finally:
        engine.dispose()
    assert names == {"beat:panel-host"}
