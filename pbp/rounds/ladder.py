"""STALL-3, the escalation ladder: what pbp does, step by step, about a player who has not
posted. Each step is a row in the audit log (``ladder.*``) and shows on the encounter page.

1. T−x: the reminder in the thread (:func:`pbp.rounds.lifecycle.send_reminder`; it writes
   ``ladder.remind`` for each player it names, here).
2. T−y (the campaign's ``notify_hours``): a direct notification to each player who still
   owes a post and is not away (STALL-1) nor run by the narrator — a Reddit private
   message, a forum private conversation (the preset's ``[pm]``), an @mention where the
   engine has no private messages, or "no direct channel" said in the panel. Queued in
   the notifications outbox under the key ``<round>:<player>:notify`` (unique: a second
   sweep or worker cannot queue a double); delivered by :mod:`pbp.jobs.notify`.
3. The deadline: the missing character acts by its standing order (STALL-2) or the
   ruleset's latency rule — the resolution does that; here the miss is counted
   (``ladder.missed``).
4. After the campaign's ``missed_limit`` rounds missed in a row: the narrator is told once
   per streak (an audit row the panel shows as a notice, and a private message to the
   campaign's ``narrator_account`` when it has one), and with ``auto_narrator_run`` the
   character's sheet gets ``run_by_narrator`` (``ladder.narrator_run``).

A post from the player (any post the thread reads, not the narrator's) ends the count;
a narrator-run the ladder set ends with it (``ladder.player_back``), one the narrator set
by hand stays. A round where the player is away does not count as missed.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..render.ladder import deadline_words, ladder_text
from ..sources.direct import channel_of
from ..store import models as m
from ..store import queries
from .early import away_in, expected, run_by_narrator

#: a player's characters' sheet key the ladder sets (the one early close already reads)
NARRATOR_RUN = "run_by_narrator"
#: who set it: the ladder's own narrator-run ends with the player's next post
SET_BY = "run_by_narrator_set_by"


def _audit(session: Session, rnd: m.Round | None, enc: m.Encounter, action: str, entity: str,
           entity_id: str, after: dict[str, object], now: datetime, note: str = "") -> None:
    session.add(m.AuditEntry(at=now, actor="system", campaign_id=enc.campaign_id, encounter_id=enc.id,
                             round_id=rnd.id if rnd is not None else None, action=action,
                             entity=entity, entity_id=entity_id, after=after, note=note))


def _by_player(rows: Sequence[m.Combatant]) -> dict[str, list[m.Combatant]]:
    out: dict[str, list[m.Combatant]] = {}
    for c in rows:
        if c.player:
            out.setdefault(c.player, []).append(c)
    return out


def audit_reminded(session: Session, rnd: m.Round, players: Sequence[m.Combatant],
                   now: datetime, hours: float) -> None:
    """Step 1: one ``ladder.remind`` row per player the thread's reminder names."""
    for player, rows in _by_player(players).items():
        _audit(session, rnd, rnd.encounter, "ladder.remind", "player", player,
               {"player": player, "characters": [c.name for c in rows], "hours": hours}, now)


# --- step 2: the direct notification ----------------------------------------------------

def notify_at(rnd: m.Round) -> datetime | None:
    """When *rnd*'s direct notifications are due (None: the campaign sends none)."""
    hours = rnd.encounter.campaign.notify_hours
    if hours is None or hours <= 0:
        return None
    at = rnd.deadline - timedelta(hours=float(hours))
    return at if at > rnd.opens_at else None


def _notified(session: Session, round_id: int) -> bool:
    return session.scalar(select(m.AuditEntry.id).where(
        m.AuditEntry.round_id == round_id, m.AuditEntry.action == "ladder.notify.round")) is not None


def due_notifications(session: Session, now: datetime) -> list[int]:
    """Open rounds whose T−y has come and whose notifications are not queued yet."""
    out = []
    for rnd in session.scalars(select(m.Round).where(m.Round.state == "open", m.Round.deadline > now)):
        at = notify_at(rnd)
        if at is not None and at <= now and not queries.announcement_held(session, rnd) \
                and not _notified(session, rnd.id):
            out.append(rnd.id)
    return out


def queue_notifications(session: Session, round_id: int, now: datetime) -> list[int]:
    """Queue step 2 for *round_id* (see the module text); the new notifications' ids."""
    rnd = session.get(m.Round, round_id)
    if rnd is None or rnd.state != "open" or now >= rnd.deadline or _notified(session, round_id):
        return []
    at = notify_at(rnd)
    if at is None or at > now or queries.announcement_held(session, rnd):
        return []
    enc = rnd.encounter
    owing = _by_player(expected(session, rnd, now))
    _audit(session, rnd, enc, "ladder.notify.round", "round", str(rnd.id),
           {"players": sorted(owing)}, now)
    ids = []
    for player, rows in owing.items():
        note = _queue(session, rnd, player, rows, now)
        if note is not None:
            ids.append(note.id)
    session.flush()
    return ids


def _params(rnd: m.Round, rows: Sequence[m.Combatant], player: str) -> dict[str, object]:
    enc = rnd.encounter
    return {"player": player, "names": ", ".join(c.name for c in rows), "number": rnd.number,
            "encounter": enc.name or enc.thread.title or f"#{enc.id}",
            "deadline": deadline_words(rnd.deadline, enc.campaign.timezone),
            "link": enc.thread.url}


def _queue(session: Session, rnd: m.Round, player: str, rows: Sequence[m.Combatant],
           now: datetime) -> m.Notification | None:
    enc, thread = rnd.encounter, rnd.encounter.thread
    key = f"{rnd.id}:{player.casefold()}:notify"
    if session.scalar(select(m.Notification.id).where(m.Notification.key == key)) is not None:
        return None
    channel = channel_of(thread.kind, thread.options or {})
    lang = enc.campaign.language
    params = _params(rnd, rows, player)
    body = ladder_text("mention-body" if channel == "mention" else "notify-body", lang, params)
    if channel == "mention":
        body += f"\n\npbp-reply:{key}"
    note = m.Notification(key=key, campaign_id=enc.campaign_id, round_id=rnd.id, thread_id=thread.id,
                          player=player, step="notify", channel=channel, recipient=player,
                          subject=ladder_text("notify-subject", lang, params), body=body,
                          state="skipped" if channel == "none" else "pending", created_at=now,
                          last_error="no direct channel on this platform" if channel == "none" else None)
    session.add(note)
    session.flush()
    _audit(session, rnd, enc, "ladder.notify", "notification", str(note.id),
           {"player": player, "channel": channel, "state": note.state}, now)
    return note


# --- steps 3 and 4: the deadline's misses ---------------------------------------------

def missing_at_deadline(session: Session, rnd: m.Round, now: datetime) -> list[m.Combatant]:
    """Who misses *rnd* (read before its resolution changes who is down): owes a post,
    not away, not run by the narrator."""
    return expected(session, rnd, now)


def _ladder_row(session: Session, campaign_id: int, player: str, now: datetime) -> m.LadderPlayer:
    folded = player.casefold()
    row = session.scalar(select(m.LadderPlayer).where(m.LadderPlayer.campaign_id == campaign_id,
                                                      m.LadderPlayer.player == folded))
    if row is None:
        row = m.LadderPlayer(campaign_id=campaign_id, player=folded, missed_in_row=0,
                             narrator_told=False, updated_at=now)
        session.add(row)
        session.flush()
    return row


def count_misses(session: Session, rnd: m.Round, missed: Sequence[m.Combatant], now: datetime) -> None:
    """At *rnd*'s resolution: one more miss for each player in *missed*; the narrator told
    (and the character narrator-run, if the campaign says so) at the limit."""
    enc, campaign = rnd.encounter, rnd.encounter.campaign
    limit = int(campaign.missed_limit or 0)
    for player, rows in _by_player(missed).items():
        state = _ladder_row(session, campaign.id, player, now)
        if state.last_missed_round_id == rnd.id:
            continue                       # a second resolution counts nothing twice
        state.missed_in_row += 1
        state.last_missed_round_id = rnd.id
        state.updated_at = now
        _audit(session, rnd, enc, "ladder.missed", "player", player,
               {"player": player, "missed_in_row": state.missed_in_row, "limit": limit}, now)
        if limit and state.missed_in_row >= limit and not state.narrator_told:
            _tell_narrator(session, rnd, player, rows, state, now)
    session.flush()


def _tell_narrator(session: Session, rnd: m.Round, player: str, rows: Sequence[m.Combatant],
                   state: m.LadderPlayer, now: datetime) -> None:
    enc, campaign, thread = rnd.encounter, rnd.encounter.campaign, rnd.encounter.thread
    state.narrator_told = True
    auto = bool(campaign.auto_narrator_run)
    if auto:
        for c in rows:
            sheet = dict(c.sheet or {})
            if not sheet.get(NARRATOR_RUN):
                sheet[NARRATOR_RUN] = True
                sheet[SET_BY] = "ladder"
                c.sheet = sheet
        state.narrator_run_since = now
        _audit(session, rnd, enc, "ladder.narrator_run", "player", player,
               {"player": player, "characters": [c.key for c in rows], "on": True}, now)
    lang = campaign.language
    params = {**_params(rnd, rows, player), "count": state.missed_in_row}
    channel = channel_of(thread.kind, thread.options or {}) if campaign.narrator_account else "none"
    if channel == "mention":
        channel = "none"                # an @mention of the narrator in the players' thread: no
    body = ladder_text("narrator-body", lang, params) + " " + ladder_text(
        "narrator-run-on" if auto else "narrator-run-off", lang, params)
    note = m.Notification(key=f"{rnd.id}:{player.casefold()}:narrator", campaign_id=campaign.id,
                          round_id=rnd.id, thread_id=thread.id, player=player, step="narrator",
                          channel=channel, recipient=campaign.narrator_account or "",
                          subject=ladder_text("narrator-subject", lang, params), body=body,
                          state="pending" if channel != "none" else "skipped", created_at=now,
                          last_error=None if channel != "none" else
                          "shown in the panel only (no narrator account, or no direct channel)")
    session.add(note)
    session.flush()
    _audit(session, rnd, enc, "ladder.narrator", "notification", str(note.id),
           {"player": player, "missed_in_row": state.missed_in_row, "channel": channel,
            "narrator_run": auto}, now, note=body)


def player_posted(session: Session, encounter: m.Encounter, author: str, rnd: m.Round | None,
                  now: datetime) -> None:
    """A post from the player: the count ends, and a narrator-run the ladder set with it."""
    state = session.scalar(select(m.LadderPlayer).where(
        m.LadderPlayer.campaign_id == encounter.campaign_id,
        m.LadderPlayer.player == author.casefold()))
    if state is None or (state.missed_in_row == 0 and state.narrator_run_since is None):
        return
    before = state.missed_in_row
    state.missed_in_row = 0
    state.narrator_told = False
    state.updated_at = now
    lifted = []
    if state.narrator_run_since is not None:
        state.narrator_run_since = None
        for c in encounter.combatants:
            if c.player and c.player.casefold() == author.casefold() \
                    and (c.sheet or {}).get(SET_BY) == "ladder":
                sheet = {k: v for k, v in (c.sheet or {}).items() if k not in (NARRATOR_RUN, SET_BY)}
                c.sheet = sheet
                lifted.append(c.key)
    _audit(session, rnd, encounter, "ladder.player_back", "player", author,
           {"player": author, "missed_before": before, "narrator_run_ended": lifted}, now)


__all__ = ["audit_reminded", "away_in", "count_misses", "due_notifications", "missing_at_deadline",
           "notify_at", "player_posted", "queue_notifications", "run_by_narrator"]
