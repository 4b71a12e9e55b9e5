"""SCALE-4: the panel's read requests never write.

Every GET page of the panel is rendered with the read-only guard on (a GET's session is
a deferred SQLite transaction with ``PRAGMA query_only``: any write raises "attempt to
write a readonly database"), and a ``before_cursor_execute`` listener on the app's engine
counts what was sent: no INSERT, UPDATE, DELETE or SAVEPOINT. The encounter page is shown
with its open round holding posts, so its reply preview (a dry-run resolution) runs.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event, select, update
from sqlalchemy.exc import OperationalError

from pbp.panel.db import session as db_session
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Campaign, Encounter, Post
from tests.sql_log import WRITES, statements

from .test_encounter import _preview


def _pages(ids: dict[str, Any], token: str) -> list[str]:
    enc, other = ids["encounter"], ids["other_encounter"]
    combatant = next(iter(ids["combatants"].values()))
    return ["/", "/account/", f"/campaigns/{ids['campaign']}", "/campaigns/new",
            f"/encounters/{enc}",                          # the open round, with posts
            f"/encounters/{enc}?round=1",                  # history: the resolved round
            f"/encounters/{enc}/live", f"/encounters/{enc}/live?round=1",
            f"/encounters/{enc}/combatants/", f"/encounters/{enc}/combatants/{combatant}",
            f"/encounters/{enc}/ladder", f"/encounters/{enc}/ledger",
            f"/encounters/{enc}/ledger.csv", f"/encounters/{enc}/ledger.json",
            f"/encounters/{other}",                        # bob's: a 404, read only too
            "/owes", f"/sources/{ids['thread']}",
            f"/sources/{ids['thread']}/remove", "/healthz", f"/verify/{token}", "/login"]


def test_SCALE_4_every_get_page_renders_read_only_and_writes_nothing(app: Any, alice: Any,
                                                                      ids: dict[str, Any],
                                                                      db_url: str) -> None:
    engine = make_engine(db_url)
    with session_scope(engine) as s:   # a public check page to show too (DICE-4)
        assert s.scalar(select(Post.id).where(Post.round_id == ids["round"])) is not None
        s.execute(update(Encounter).where(Encounter.id == ids["encounter"])
                  .values(verify_token="t" * 32))
        s.execute(update(Campaign).where(Campaign.id == ids["campaign"])
                  .values(public_verification=True))
    engine.dispose()
    app_engine = app.extensions["pbp_engine"]
    for path in _pages(ids, "t" * 32):
        with statements(app_engine) as seen:
            r = alice.get(path)
        want = {f"/encounters/{ids['other_encounter']}": (404,),
                "/healthz": (200, 503)}.get(path, (200, 302))   # no worker runs here: 503
        assert r.status_code in want, (path, r.status_code, r.text[:2000])
        writes = [s for s in seen if WRITES.match(s)]
        assert writes == [], (path, writes)
        assert seen or path in ("/healthz", "/login"), f"{path} read nothing?"
    page = alice.get(f"/encounters/{ids['encounter']}").text
    preview = _preview(page)
    assert "(preview)" in preview and "no preview" not in preview


def test_SCALE_4_a_write_on_a_get_fails_loudly(app: Any) -> None:
    """The guard: a GET request's session cannot write (so the test above would fail on
    any page that tried), a POST request's can."""
    with app.test_request_context("/", method="GET"):
        s = db_session()
        with pytest.raises(OperationalError, match="readonly"):
            s.execute(update(Encounter).values(name="x"))
    with app.test_request_context("/", method="POST"):
        s = db_session()
        s.execute(update(Encounter).where(Encounter.id == -1).values(name="x"))
        s.rollback()


def test_SCALE_4_the_dashboard_and_the_encounter_page_end_their_read_before_rendering(
        app: Any, alice: Any, ids: dict[str, Any]) -> None:
    """The read transaction is committed before the template renders (the dashboard, the
    encounter page and its live refresh with every fragment): after the COMMIT the request
    sends no statement (a lazy load while rendering would begin a new one)."""
    app_engine = app.extensions["pbp_engine"]

    def commit(_conn: Any) -> None:
        seen.append("COMMIT")

    enc = ids["encounter"]
    for path in ("/", f"/encounters/{enc}", f"/encounters/{enc}/live"):
        alice.get(path)   # warm: the preview of this page version is kept
        event.listen(app_engine, "commit", commit)
        try:
            with statements(app_engine) as seen:
                assert alice.get(path).status_code == 200
        finally:
            event.remove(app_engine, "commit", commit)
        assert "COMMIT" in seen, path
        after = seen[seen.index("COMMIT") + 1:]
        assert after == [], (path, len(after), after[:5])
