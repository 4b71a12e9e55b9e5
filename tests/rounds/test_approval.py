"""Approval mode holds the clock (issue 11 item 4): while a result (or an opening) waits for
the narrator, the round it announces neither opens nor runs; approving starts it with a
fresh deadline; switching approval off releases what is held, in order."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from pbp.errors import PbpError
from pbp.panel import overrides as panel_overrides
from pbp.render import when
from pbp.rounds import service
from pbp.store import models as m
from pbp.store import queries
from pbp.store.db import session_scope

from .world import at, make_world, post

TZ = "America/Sao_Paulo"


def _approve_opening(w, now):  # type: ignore[no-untyped-def]
    """Open round 1 (opening held) and approve it at *now*."""
    w.open(now)
    with session_scope(w.engine) as s:
        rnd = service.current_round(s, w.encounter_id)
        opening = s.scalar(select(m.Reply).where(m.Reply.idempotency_key == f"{rnd.id}:opening"))
        service.approve_reply(s, opening.id, None, now)
        return rnd.id


def test_every_reply_is_held_in_approval_mode_and_a_held_opening_stops_the_clock(engine):
    w = make_world(engine, approval=True, reminder_hours=(2,))
    rid = w.open(at(0))
    assert w.reply(f"{rid}:opening").state == "held"          # "Hold every reply"
    with session_scope(engine) as s:
        assert service.due_reminders(s, at(23)) == []          # no reminder while held
        assert service.due_rounds(s, at(30)) == []             # no resolution: clock not running
        assert service.send_reminder(s, rid, at(23)) is None
    assert _approve_opening(w, at(30)) == rid                  # opening again: the same round
    opening = w.reply(f"{rid}:opening")
    assert opening.state == "pending"
    with session_scope(engine) as s:
        rnd = s.get(m.Round, rid)
        assert rnd.opens_at == at(30) and rnd.deadline == at(54)   # 24 h from the approval
    assert f"Post your declarations by {when(at(54), TZ)}." in opening.body
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(53)) == [] and service.due_rounds(s, at(54)) == [rid]


def test_a_held_result_opens_no_round_until_approved_then_a_fresh_deadline(engine):
    """The bug of issue 11: round 2 opened and ran while round 1's result was held."""
    w = make_world(engine, approval=True, reminder_hours=(12, 2))
    r1 = _approve_opening(w, at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag")], now=at(1))
    held = w.resolve(r1, at(24))
    with session_scope(engine) as s:
        assert s.get(m.Reply, held).state == "held"
        assert service.current_round(s, w.encounter_id).id == r1      # no round 2
        # a day later: nothing opened, nothing due, nobody reminded or penalised
        assert service.due_rounds(s, at(72)) == [] and service.due_reminders(s, at(72)) == []
        assert s.scalar(select(m.Round).where(m.Round.number == 2)) is None
    late = at(80)   # approved long after a round 2 would have closed
    with session_scope(engine) as s:
        service.approve_reply(s, held, None, late)
    with session_scope(engine) as s:
        r2 = service.current_round(s, w.encounter_id)
        assert (r2.number, r2.state, r2.opens_at, r2.deadline) == (2, "open", late, late + timedelta(hours=24))
        r2_id = r2.id
        result = s.scalar(select(m.Reply).where(m.Reply.idempotency_key == f"{r1}:resolution"))
        assert result.state == "pending" and result.approved_at == late
        body = result.body
    assert f"post your declarations by {when(late + timedelta(hours=24), TZ)}." in body
    assert r2.deadline > late                                   # never a deadline already past
    with session_scope(engine) as s:
        assert service.due_reminders(s, late + timedelta(hours=12)) == [r2_id]


def test_holding_an_approved_result_again_pauses_the_next_round_until_approved(engine):
    w = make_world(engine, approval=True)
    r1 = _approve_opening(w, at(0))
    held = w.resolve(r1, at(24))
    with session_scope(engine) as s:
        service.approve_reply(s, held, None, at(25))
    with session_scope(engine) as s:
        r2 = service.current_round(s, w.encounter_id).id
        result = s.scalar(select(m.Reply).where(m.Reply.idempotency_key == f"{r1}:resolution"))
        service.hold(s, result.id)
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(60)) == []              # round 2's clock waits again
        result = s.scalar(select(m.Reply).where(m.Reply.idempotency_key == f"{r1}:resolution"))
        service.approve_reply(s, result.id, None, at(61))
    with session_scope(engine) as s:
        rnd = s.get(m.Round, r2)
        assert (rnd.opens_at, rnd.deadline) == (at(61), at(85))
        assert service.current_round(s, w.encounter_id).id == r2   # not a third round


def test_approving_a_result_with_changes_not_in_it_is_refused(engine):
    w = make_world(engine, approval=True)
    r1 = _approve_opening(w, at(0))
    held = w.resolve(r1, at(24))
    with session_scope(engine) as s:
        goblin = s.scalar(select(m.Combatant).where(m.Combatant.key == "gob1"))
        panel_overrides.set_hp(s, goblin.id, 1, "forgot the trap", None)
    with session_scope(engine) as s:
        with pytest.raises(PbpError, match="re-resolve"):
            service.approve_reply(s, held, None, at(25))


def test_switching_approval_off_releases_every_held_reply_in_order(engine):
    w = make_world(engine, approval=True, reminder_hours=(2,))
    r1 = _approve_opening(w, at(0))
    with session_scope(engine) as s:
        reminder = service.send_reminder(s, r1, at(22))
        panel_overrides.set_deadline(s, r1, at(30), "the forum was down", None)
        notice = s.scalar(select(m.Reply.id).where(m.Reply.kind == "notice"))
    assert w.reply(f"{r1}:reminder:2h").state == "held"
    with session_scope(engine) as s:
        assert [r.id for r, _n in queries.held_queue(s, [w.campaign_id])] == [reminder, notice]
        s.get(m.Campaign, w.campaign_id).approval_mode = False
        released = service.release_held(s, w.campaign_id, None, at(23))
    assert released == [reminder, notice]
    with session_scope(engine) as s:
        assert service.pending_replies(s)[-2:] == [reminder, notice]
        notes = list(s.scalars(select(m.AuditEntry.note).where(m.AuditEntry.action == "override.reply.approve")
                               .order_by(m.AuditEntry.id)))
    assert notes == ["approval mode switched off"] * 2


def test_a_held_result_is_released_by_switching_approval_off_and_opens_the_next_round(engine):
    w = make_world(engine, approval=True)
    r1 = _approve_opening(w, at(0))
    w.resolve(r1, at(24))
    with session_scope(engine) as s:
        s.get(m.Campaign, w.campaign_id).approval_mode = False
        service.release_held(s, w.campaign_id, None, at(40))
    with session_scope(engine) as s:
        r2 = service.current_round(s, w.encounter_id)
        assert (r2.number, r2.deadline) == (2, at(64))
        assert s.scalar(select(func.count()).select_from(m.Reply).where(m.Reply.state == "held")) == 0


def test_a_held_reminder_is_cancelled_when_its_round_closes(engine):
    w = make_world(engine, approval=True, reminder_hours=(2,))
    r1 = _approve_opening(w, at(0))
    with session_scope(engine) as s:
        service.send_reminder(s, r1, at(22))
    w.resolve(r1, at(24))
    assert w.reply(f"{r1}:reminder:2h").state == "cancelled"   # never posted after the fact
