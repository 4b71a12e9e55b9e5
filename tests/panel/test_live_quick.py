"""SCALE-5: the live refresh's "nothing changed" answered from one statement
(pbp/panel/live_quick.py): 204 without a body and without the session cookie, and no
weaker than the full path: the login session's row is read on every refresh (no cache),
so a logout, "log out everywhere" or a deactivated narrator in any process refuses the
very next one; another narrator's encounter stays 404; the idle lifetime still ends it.

Two apps on one database stand for two gunicorn workers (two processes, each with its
own memory): what one ends, the other refuses.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sqlalchemy import event, select, update

from pbp.panel import create_app, live_quick, sample
from pbp.store import logins, page_version
from pbp.store.db import make_engine, session_scope, upgrade
from pbp.store.models import Narrator, NarratorSession
from pbp.store.testing import temporary_database
from tests.conftest import POSTGRES_URL, require_port

from .conftest import Client

COOKIE = "pbp_session"


def _version(c: Client, eid: int, query: str = "") -> str:
    """The version the encounter page hands its live refresh."""
    m = re.search(r'data-live-version="([^"]+)"', c.get(f"/encounters/{eid}{query}").text)
    assert m, "no live version on the page"
    return m.group(1)


def _worker(db_url: str, **config: Any) -> Any:
    """Another panel process on the same database (its own app, its own memory)."""
    return create_app({"TESTING": True, "SECRET_KEY": "test-secret", "DATABASE_URL": db_url, **config})


def _copy(client: Client, app: Any) -> Client:
    """The same browser's cookie, sent to *app* (the next request lands on another worker)."""
    other = Client(app.test_client())
    other.c.set_cookie(COOKIE, client.c.get_cookie(COOKIE).value)
    return other


def _db(db_url: str, statement: Any) -> None:
    """A write made elsewhere (the CLI, another worker), straight to the database."""
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        s.execute(statement)
    engine.dispose()


def test_scale5_unchanged_refresh_is_204_without_body_or_cookie(alice: Client, ids: dict[str, Any]) -> None:
    eid = ids["encounter"]
    version = _version(alice, eid)
    r = alice.get(f"/encounters/{eid}/live?v={version}", headers={"Accept-Encoding": "br, gzip",
                                                                  "X-Live-Have": "posts:00000000"})
    assert r.status_code == 204 and r.data == b""
    assert r.headers.getlist("Set-Cookie") == []          # the session cookie is not signed again
    assert "Content-Encoding" not in r.headers            # nothing compressed
    assert r.headers["X-Frame-Options"] == "DENY"         # the security headers are still there
    # the same tab's page still refreshes its permanent session's cookie (Flask's default)
    assert alice.get(f"/encounters/{eid}").headers.getlist("Set-Cookie")
    # an outdated version is the full answer
    changed = alice.get(f"/encounters/{eid}/live?v=0123456789abcdef")
    assert changed.status_code == 200 and changed.get_json()["changed"] is True


def test_scale5_unchanged_refresh_is_one_select(alice: Client, ids: dict[str, Any], app: Any) -> None:
    """Counted by SQLite itself (the quick answer runs on the driver's connection, below
    SQLAlchemy's statement events): one SELECT, no BEGIN, nothing written."""
    eid = ids["encounter"]
    live = f"/encounters/{eid}/live?v={_version(alice, eid)}"
    engine = app.extensions["pbp_engine"]
    seen: list[str] = []
    event.listen(engine, "connect", lambda dbapi, _record: dbapi.set_trace_callback(seen.append))
    engine.dispose()            # the connections opened from here on are traced
    assert alice.get(live).status_code == 204
    seen.clear()
    assert alice.get(live).status_code == 204
    assert len(seen) == 1 and seen[0].lstrip().upper().startswith("SELECT"), seen
    seen.clear()
    assert alice.get(f"/encounters/{eid}/live?v=0123456789abcdef").status_code == 200
    assert len(seen) > 3        # the full answer, for contrast: the login check, the page's reads


def test_scale5_logout_in_one_worker_refuses_the_next_refresh_in_another(alice: Client, ids: dict[str, Any],
                                                                          db_url: str) -> None:
    eid = ids["encounter"]
    version = _version(alice, eid)
    elsewhere = _copy(alice, _worker(db_url))
    assert elsewhere.get(f"/encounters/{eid}/live?v={version}").status_code == 204
    assert alice.post("/logout", {}).status_code == 302
    r = elsewhere.get(f"/encounters/{eid}/live?v={version}")   # the very next refresh
    assert r.status_code == 401 and r.get_json()["error"] == "login required"


def test_scale5_revoked_sessions_and_a_deactivated_narrator_are_refused_at_once(
        alice: Client, ids: dict[str, Any], db_url: str) -> None:
    eid = ids["encounter"]
    live = f"/encounters/{eid}/live?v={_version(alice, eid)}"
    assert alice.get(live).status_code == 204
    _db(db_url, NarratorSession.__table__.delete().where(NarratorSession.narrator_id == ids["alice"]))
    assert alice.get(live).status_code == 401             # "log out everywhere" / a password change
    assert alice.login().status_code == 302
    live = f"/encounters/{eid}/live?v={_version(alice, eid)}"
    assert alice.get(live).status_code == 204
    _db(db_url, update(Narrator).where(Narrator.id == ids["alice"]).values(active=False))
    assert alice.get(live).status_code == 401


def test_scale5_another_narrators_encounter_is_404_even_with_its_version(alice: Client, ids: dict[str, Any],
                                                                         db_url: str) -> None:
    """The version of bob's encounter, worked out from the database, opens nothing for alice."""
    other = ids["other_encounter"]
    engine = make_engine(db_url)
    with engine.connect() as conn:
        rid = conn.scalar(select(page_version.Round.id).where(page_version.Round.encounter_id == other)
                          .order_by(page_version.Round.number.desc()).limit(1))
        version = page_version.version(conn, other, rid)
    engine.dispose()
    assert alice.get(f"/encounters/{other}/live?v={version}").status_code == 404


def test_scale5_quick_version_is_the_pages_for_an_earlier_round(alice: Client, ids: dict[str, Any]) -> None:
    eid = ids["encounter"]
    earlier = _version(alice, eid, "?round=1")
    assert earlier != _version(alice, eid)
    assert alice.get(f"/encounters/{eid}/live?round=1&v={earlier}").status_code == 204
    assert alice.get(f"/encounters/{eid}/live?round=99&v={earlier}").status_code == 404
    for hostile in ("-1", "0", "99999999999999999999999"):   # no round the database can hold
        assert alice.get(f"/encounters/{eid}/live?round={hostile}&v={earlier}").status_code == 404
        assert alice.get(f"/encounters/{eid}?round={hostile}").status_code == 404   # the page too (was a 500)


def test_scale5_idle_lifetime_and_last_seen_still_kept(db_url: str, ids: dict[str, Any]) -> None:
    """The quick answer never writes: when the session's last-seen time is due (every
    logins.TOUCH_EVERY seconds) the full path writes it and sends the cookie again; past
    the idle lifetime the refresh is refused."""
    now = [1_000_000.0]
    app = _worker(db_url, LOGIN_CLOCK=lambda: now[0], SESSION_IDLE=3600)
    a = Client(app.test_client())
    assert a.login().status_code == 302
    eid = ids["encounter"]
    live = f"/encounters/{eid}/live?v={_version(a, eid)}"
    now[0] += logins.TOUCH_EVERY - 1
    r = a.get(live)
    assert r.status_code == 204 and r.headers.getlist("Set-Cookie") == []
    now[0] += 2                                           # last seen more than TOUCH_EVERY ago
    r = a.get(live)
    assert r.status_code == 204 and r.headers.getlist("Set-Cookie")   # written, cookie renewed
    engine = make_engine(db_url)
    with session_scope(engine) as s:
        assert s.scalar(select(NarratorSession.seen_at).where(NarratorSession.narrator_id == ids["alice"])) == now[0]
    engine.dispose()
    assert a.get(live).headers.getlist("Set-Cookie") == []
    now[0] += 3601                                        # idle past the hour
    assert a.get(live).status_code == 401


def test_scale5_unchanged_refresh_on_postgresql_and_logout_refuses_the_next(tmp_path: Any) -> None:
    """SCALE-5 on PostgreSQL: the fast path's one statement runs on the raw psycopg
    connection (named parameters); an unchanged refresh is 204 without a body or cookie,
    a new version is not, and after a logout the very next refresh is refused."""
    require_port("PostgreSQL", "127.0.0.1", 5432)
    with temporary_database("postgresql", directory=Path(tmp_path), postgres_url=POSTGRES_URL) as url:
        upgrade(url)
        engine = make_engine(url)
        with session_scope(engine) as s:
            ids = sample.seed(s)
        engine.dispose()
        app = _worker(url)
        alice = Client(app.test_client())
        assert alice.login().status_code == 302
        eid = ids["encounter"]
        version = _version(alice, eid)
        r = alice.get(f"/encounters/{eid}/live?v={version}", headers={"X-Live-Have": "posts:00000000"})
        assert r.status_code == 204 and r.data == b"" and "Set-Cookie" not in r.headers
        cookie = alice.c.get_cookie(COOKIE).value
        with app.test_request_context(f"/encounters/{eid}/live?v={version}",
                                      headers={"Cookie": f"{COOKIE}={cookie}"},
                                      environ_base=alice.c.environ_base):   # the same browser
            quick = live_quick.answer(eid)      # the fast path itself answered, not the full one
        assert quick is not None and quick.status_code == 204
        stale = alice.get(f"/encounters/{eid}/live?v=0-0", headers={"X-Live-Have": "posts:00000000"})
        assert stale.status_code == 200 and stale.data
        elsewhere = _copy(alice, _worker(url))
        assert elsewhere.get(f"/encounters/{eid}/live?v={version}").status_code == 204
        assert alice.post("/logout", {}).status_code == 302
        r = elsewhere.get(f"/encounters/{eid}/live?v={version}")
        assert r.status_code == 401
