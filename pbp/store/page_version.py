"""The encounter page's version: one statement, shared by the page and its live refresh (SCALE-5).

The page carries a fingerprint of everything it shows (:func:`fingerprint` of the
encounter's columns, the round's state and the aggregates of :func:`columns`); the tab's
live refresh sends it back every few seconds, and "nothing changed" is by far its most
common answer. That answer used to cost four ORM queries (the login session, the
encounter with its access check, the round, the version) plus Flask-Login and the session
cookie signed again. :func:`unchanged` is all of it in one statement: the login
session's row (by its token's digest, with its narrator active), the narrator's access to
the encounter's campaign, the encounter's columns, the round asked for and the version's
aggregates. No row: the caller takes the full path, which says why (401, 404).

Both statements are compiled once to the driver's SQL and their rows hashed as the driver
gives them (no SQLAlchemy cache key or type processing per call: for some 70 columns
those cost more than the query); the page and the refresh read the same columns the same
way, so their versions agree (tests/panel/test_live_quick.py).
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Dialect,
    Engine,
    Select,
    bindparam,
    func,
    select,
    true,
)
from sqlalchemy import inspect as sa_inspect

from .models import (
    AuditEntry,
    Campaign,
    CampaignNarrator,
    Combatant,
    Declaration,
    Encounter,
    ExtensionRequest,
    Narrator,
    NarratorSession,
    Override,
    Post,
    Reply,
    RollRecord,
    RollReveal,
    Round,
)

#: every column of the encounter (its settings: round length, initiative mode...) counts
ENCOUNTER_COLUMNS = tuple(sa_inspect(Encounter).column_attrs)


def columns(rid: Any, eid: Any, cid: Any) -> list[ColumnElement[Any]]:
    """The version's aggregates for round *rid*, encounter *eid*, campaign *cid* (bound
    parameters or scalar subqueries)."""
    return [
        select(func.count(Post.id)).where(Post.round_id == rid).scalar_subquery(),
        # not max(last_seen_at): every poll re-seeing an unchanged post moves it, and the
        # page (and its dry-run preview) was built again after each poll for nothing. A
        # post's edits and deletions count up its revisions_seen; ids catch moves.
        select(func.sum(Post.revisions_seen)).where(Post.round_id == rid).scalar_subquery(),
        select(func.sum(Post.id)).where(Post.round_id == rid).scalar_subquery(),
        select(func.count(Declaration.id)).where(Declaration.round_id == rid).scalar_subquery(),
        select(func.max(Declaration.updated_at)).where(Declaration.round_id == rid).scalar_subquery(),
        select(func.count(Reply.id)).where(Reply.round_id == rid).scalar_subquery(),
        select(func.min(Reply.state)).where(Reply.round_id == rid).scalar_subquery(),
        select(func.max(Reply.state)).where(Reply.round_id == rid).scalar_subquery(),
        select(func.max(Reply.approved_at)).where(Reply.round_id == rid).scalar_subquery(),
        select(func.count(Override.id)).where(Override.encounter_id == eid).scalar_subquery(),
        select(func.max(Override.id)).where(Override.encounter_id == eid).scalar_subquery(),
        select(func.sum(Combatant.hp)).where(Combatant.encounter_id == eid).scalar_subquery(),
        select(func.count(Combatant.id)).where(Combatant.encounter_id == eid).scalar_subquery(),
        select(func.max(AuditEntry.id)).where(AuditEntry.encounter_id == eid).scalar_subquery(),
        select(Campaign.ruleset).where(Campaign.id == cid).scalar_subquery(),
        select(Campaign.timezone).where(Campaign.id == cid).scalar_subquery(),
        select(Campaign.houserules).where(Campaign.id == cid).scalar_subquery(),
        # SCALE-5: the page's fragments are kept per version (pbp.panel.fragments), so every
        # setting a fragment shows counts too: the campaign's, and the round's extension requests
        *(select(col).where(Campaign.id == cid).scalar_subquery() for col in (
            Campaign.language, Campaign.approval_mode, Campaign.round_hours, Campaign.quiet_hours,
            Campaign.skip_weekends, Campaign.public_verification, Campaign.private_roll_values,
            Campaign.extension_limit_hours, Campaign.early_close, Campaign.close_grace_minutes)),
        select(func.count(ExtensionRequest.id)).where(ExtensionRequest.round_id == rid).scalar_subquery(),
        select(func.max(ExtensionRequest.id)).where(ExtensionRequest.round_id == rid).scalar_subquery(),
        select(func.count(ExtensionRequest.id)).where(ExtensionRequest.round_id == rid,
                                                      ExtensionRequest.state == "queued").scalar_subquery(),
        # ... the round's rolls (a secret roll has no post) and the encounter's reveals
        select(func.count(RollRecord.id)).where(RollRecord.round_id == rid).scalar_subquery(),
        select(func.max(RollRecord.id)).where(RollRecord.round_id == rid).scalar_subquery(),
        select(func.max(RollReveal.id)).where(RollReveal.encounter_id == eid).scalar_subquery(),
        # ... and every round's replies (the page lists those held of earlier rounds)
        *(select(agg).join(Round, Round.id == Reply.round_id).where(Round.encounter_id == eid).scalar_subquery()
          for agg in (func.count(Reply.id), func.max(Reply.id), func.min(Reply.state), func.max(Reply.state),
                      func.sum(func.length(Reply.state) * Reply.id))),
    ]


def fingerprint(row: tuple[Any, ...]) -> str:
    """The version: 16 hex digits of the SHA-1 of the row's values as the database driver
    gives them (the page's :func:`version` and the live refresh's :func:`unchanged` read
    the same columns the same way, so they agree)."""
    return hashlib.sha1(repr(row).encode()).hexdigest()[:16]


ROUND_COLUMNS = (Round.id, Round.state, Round.deadline, Round.waived, Round.order)
#: the login session's columns in :func:`unchanged`'s row, first
SESSION_COLUMNS = (NarratorSession.created_at, NarratorSession.seen_at, NarratorSession.remember)


def _select(quick: bool, numbered: bool = False) -> Select[Any]:
    """The encounter's columns, the round's :data:`ROUND_COLUMNS` (NULLs without one) and
    the aggregates; *quick*: the login session's :data:`SESSION_COLUMNS` first, and a row
    only when the session ``sid`` (a token's digest) of narrator ``nid`` is open and that
    narrator is active and narrates encounter ``eid``'s campaign. The round: ``rid``, or
    (*quick*) the latest, or number ``number`` when *numbered* (as
    :func:`pbp.store.queries.current_round`)."""
    eid: Any = bindparam("eid")
    nid: Any = bindparam("nid")
    rid: Any = bindparam("rid")
    if quick:
        rq = select(Round.id).where(Round.encounter_id == eid)
        if numbered:
            rq = rq.where(Round.number == bindparam("number"))
        rid = rq.order_by(Round.number.desc()).limit(1).scalar_subquery()
    cid = select(Encounter.campaign_id).where(Encounter.id == eid).scalar_subquery()
    q = select(*(SESSION_COLUMNS if quick else ()), *(a.columns[0] for a in ENCOUNTER_COLUMNS), *ROUND_COLUMNS,
               *columns(rid, eid, cid)).select_from(Encounter)
    if quick:
        q = (q.join(CampaignNarrator, (CampaignNarrator.campaign_id == Encounter.campaign_id)
                    & (CampaignNarrator.narrator_id == nid))
             .join(NarratorSession, (NarratorSession.id == bindparam("sid")) & (NarratorSession.narrator_id == nid))
             .join(Narrator, (Narrator.id == nid) & (Narrator.active == true())))
    return q.outerjoin(Round, Round.id == rid).where(Encounter.id == eid).limit(1)


@functools.cache
def _compiled(dialect: Dialect, quick: bool, numbered: bool) -> tuple[str, tuple[str, ...] | None, dict[str, Any]]:
    """:func:`_select` as the driver's SQL, once per shape: the statement is big enough that
    SQLAlchemy's per-execution cache key cost more than running it (SCALE-5). Returns the
    SQL, the parameter names in order (a positional driver) or None, and the constants."""
    compiled = _select(quick, numbered).compile(dialect=dialect)
    names = tuple(compiled.positiontup or ()) if compiled.positional else None
    consts = {k: b.value for k, b in compiled.binds.items() if b.value is not None}
    return compiled.string, names, consts


def _run(conn: Connection, quick: bool, numbered: bool, params: dict[str, Any]) -> tuple[Any, ...] | None:
    sql, names, consts = _compiled(conn.dialect, quick, numbered)
    values = {**consts, **params}
    row = conn.exec_driver_sql(sql, tuple(values[n] for n in names) if names is not None else values).first()
    return None if row is None else tuple(row)


def version(conn: Connection, encounter_id: int, round_id: int | None) -> str:
    """The page's version for encounter *encounter_id* showing round *round_id* (None: no
    round). One statement."""
    row = _run(conn, False, False, {"eid": encounter_id, "rid": -1 if round_id is None else round_id})
    assert row is not None, encounter_id
    return fingerprint(row)


def unchanged(engine: Engine, encounter_id: int, narrator_id: int, session_digest: str,
              number: int | None) -> tuple[tuple[Any, ...], str, bool] | None:
    """One statement on the driver's own connection of *engine*: ((created, seen, remember)
    of the login session, the page's version, whether there is a round) when the session is
    open, its narrator active and narrating the encounter's campaign; None otherwise. The
    version equals :func:`version`'s."""
    params: dict[str, Any] = {"eid": encounter_id, "nid": narrator_id, "sid": session_digest}
    if number is not None:
        params["number"] = number
    sql, names, consts = _compiled(engine.dialect, True, number is not None)
    values = {**consts, **params}
    # the driver's own connection: one SELECT, no BEGIN/ROLLBACK pair nor result object
    # around it (SQLite runs a lone SELECT in a read snapshot of its own; the pool rolls
    # a PostgreSQL connection back when it returns)
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        cur.execute(sql, tuple(values[n] for n in names) if names is not None else values)
        row = cur.fetchone()
        cur.close()
    finally:
        raw.close()
    if row is None:
        return None
    n = len(SESSION_COLUMNS)
    return row[:n], fingerprint(row[n:]), row[n + len(ENCOUNTER_COLUMNS)] is not None
