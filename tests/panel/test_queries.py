"""How many SQL queries the encounter page and its live endpoint make: a fixed number,
the same for a small fight and one three times its size (an N+1 — a query per post,
declaration, roll or combatant — fails here), and a handful for "nothing changed"."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from pbp.panel import create_app, sample
from pbp.store.db import make_engine, session_scope, upgrade

from .conftest import Client

#: statements of one warm request (the reply preview of this page version already kept)
#: (+1 since DICE-2: the encounter's secret rolls, one query whatever their number;
#:  +2, issue 15: the absences and the standing orders, page only;
#:  +1, STALL-5: the round's extension requests)
PAGE_MAX = 19       # narrator, encounter (access checked), round, version, then the page's reads
#: a past round reads its resolution's snapshots too, in one query (issue 11 item 10)
PAST_PAGE_MAX = PAGE_MAX + 1
LIVE_FULL_MAX = 17  # the same: the version is computed once and handed to the page's reads (+1 DICE-2, +1 STALL-5)
#: SCALE-5: one statement on the driver's connection (pbp.panel.live_quick), below the
#: events counted here: 0 (it was 4: narrator, encounter with access, round, version);
#: tests/panel/test_live_quick.py counts it with SQLite's own trace
LIVE_SAME_MAX = 0


@pytest.fixture(scope="module")
def fights(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Two databases: the sample fight, and one with 3x the combatants and 4x the posts."""
    out = {}
    for name, combatants, posts in (("small", 6, 10), ("large", 18, 40)):
        url = f"sqlite:///{tmp_path_factory.mktemp('queries-' + name) / 'pbp.sqlite'}"
        upgrade(url)
        engine = make_engine(url)
        with session_scope(engine) as s:
            sample.seed(s, combatants=combatants, posts=posts)
        engine.dispose()
        out[name] = url
    return out


@contextmanager
def counting(app: Any) -> Iterator[list[str]]:
    """The SQL statements the app's engine runs inside the block (transaction control left out)."""
    statements: list[str] = []

    def before(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not statement.lstrip().upper().startswith(("BEGIN", "SAVEPOINT", "RELEASE", "ROLLBACK", "COMMIT")):
            statements.append(statement)

    engine = app.extensions["pbp_engine"]
    event.listen(engine, "before_cursor_execute", before)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", before)


from pbp.panel import fragments  # noqa: E402


def _app(url: str) -> Any:
    return create_app({"TESTING": True, "SECRET_KEY": "queries", "DATABASE_URL": url})


def _counts(url: str) -> dict[str, int]:
    app = _app(url)
    c = Client(app.test_client())
    assert c.login().status_code == 302
    live = "/encounters/1/live"
    version = c.get(live).get_json()["version"]
    out = {}
    for name, path in (("page", "/encounters/1"), ("resolved round page", "/encounters/1?round=1"),
                       ("live full", live), ("live unchanged", f"{live}?v={version}")):
        c.get(path)  # warm: the reply preview of this page version is computed once and kept
        fragments._KEPT.clear()   # SCALE-5: count the page built, not its kept rendering
        with counting(app) as statements:
            r = c.get(path)
        assert r.status_code == (204 if name == "live unchanged" else 200), (name, r.status_code)
        out[name] = len(statements)
    assert c.get(f"{live}?v={version}").status_code == 204   # SCALE-5: nothing changed, no body
    return out


def test_query_counts_do_not_grow_with_the_fight(fights: dict[str, str]) -> None:
    small, large = _counts(fights["small"]), _counts(fights["large"])
    assert small == large, (small, large)
    assert small["page"] <= PAGE_MAX, small
    assert small["resolved round page"] <= PAST_PAGE_MAX, small
    assert small["live full"] <= LIVE_FULL_MAX, small
    assert small["live unchanged"] <= LIVE_SAME_MAX, small


def test_a_lazy_load_per_row_would_fail(fights: dict[str, str]) -> None:
    """The counter sees an N+1: a query per declaration makes the large fight differ."""
    from pbp.panel import encounter_view

    original = encounter_view._read

    def n_plus_one(session: Any, encounter: Any, rnd: Any, *args: Any) -> dict[str, Any]:
        from sqlalchemy import select

        from pbp.store.models import Post

        ctx = original(session, encounter, rnd, *args)
        for d in ctx["declarations"]:  # what a lazy load per declaration amounts to
            session.scalars(select(Post).where(Post.id == d.post_id)).first()
        return ctx

    small = _counts(fights["small"])
    encounter_view._read = n_plus_one  # type: ignore[assignment]
    try:
        large = _counts(fights["large"])
    finally:
        encounter_view._read = original  # type: ignore[assignment]
    assert large["page"] > small["page"]


def _records(db_url: str, thread_id: int, edit: str | None = None) -> int:
    """The thread's posts ingested again as a poll sees them (one edited if *edit*);
    returns how many posts the poll saw."""
    from datetime import UTC, datetime

    from sqlalchemy import select

    from pbp.rounds import service
    from pbp.sources.base import PostRecord
    from pbp.store.models import Post

    engine = make_engine(db_url)
    with session_scope(engine) as s:
        posts = list(s.scalars(select(Post).where(Post.thread_id == thread_id, Post.is_ours.is_(False))
                               .order_by(Post.id)))
        records = [PostRecord(platform_id=p.platform_id, author=p.author, posted_at=p.posted_at, body=p.body,
                              text=p.text, fmt=p.fmt, revision=p.content_hash, url=p.url) for p in posts]
        if edit is not None:
            last = records[-1]
            records[-1] = PostRecord(platform_id=last.platform_id, author=last.author, posted_at=last.posted_at,
                                     body=last.body + edit, text=last.text + edit, fmt=last.fmt, url=last.url,
                                     change="edited")
        service.ingest_posts(s, thread_id, records, now=datetime.now(UTC))
    engine.dispose()
    return len(records)


def test_a_poll_that_changes_nothing_keeps_the_page_version(alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """A poll re-seeing the same posts (their last_seen_at moves) is no change: no full
    refresh for every open page, no dry-run preview again. An edit is one."""
    live = f"/encounters/{ids['encounter']}/live"
    version = alice.get(live).get_json()["version"]
    assert _records(db_url, ids["thread"]) > 0
    same = alice.get(f"{live}?v={version}")
    assert same.status_code == 204 and same.data == b""     # SCALE-5: unchanged, no body
    _records(db_url, ids["thread"], edit="\nI also shout a warning.")
    after = alice.get(f"{live}?v={version}").get_json()
    assert after["changed"] is True and after["version"] != version
