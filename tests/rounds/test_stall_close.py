"""Issue 15 through the round service: early close (STALL-4), clocks and extensions
(STALL-5), the status block (STALL-8). Expected deadlines are worked out by hand in each
test from the rule in :mod:`pbp.rounds.clocks` (quoted where it is used)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from pbp.render.status import wound_word
from pbp.rounds import clocks, extensions, service
from pbp.store import models as m
from pbp.store import queries
from pbp.store.db import session_scope

from .world import at, make_world, post

PT_ATTACK = "Ataco o Goblin Snag com a espada"
RU_ATTACK = "Атакую Goblin Rot мечом"


def _set(engine, world, **campaign):  # type: ignore[no-untyped-def]
    with session_scope(engine) as s:
        c = s.get(m.Campaign, world.campaign_id)
        for k, v in campaign.items():
            setattr(c, k, v)


def _body(world, key: str) -> str:  # type: ignore[no-untyped-def]
    reply = world.reply(key)
    assert reply is not None, key
    return reply.body


# --- STALL-4 early close ------------------------------------------------------------------

def test_STALL4_new_campaigns_close_early_by_default_with_a_ten_minute_grace(engine):
    with session_scope(engine) as s:
        c = m.Campaign(name="New", slug="new", ruleset="forum-d20")
        s.add(c)
        s.flush()
        assert (c.early_close, c.close_grace_minutes) == (True, 10)


def test_STALL4_everyone_declared_closes_after_the_grace_and_an_edit_inside_it_counts(engine):
    """Three players in three languages; Aria edits inside the 10-minute grace: the round
    is not due before the grace ends (counted from the last declaration seen, at 1:02), it
    is due at 1:12, and the resolution reads the edit (she attacks, not defends)."""
    w = make_world(engine, early_close=True)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "#defend"), post("p2", "bob", at(1), PT_ATTACK)], now=at(1))
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(5)) == []                 # Cyd has not posted
    w.ingest([post("p3", "carol", at(1, 2), RU_ATTACK)], now=at(1, 2))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Rot with my sword", change="edited",
                   edited_at=at(1, 8))], now=at(1, 8))
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(1, 11)) == []
        assert service.due_rounds(s, at(1, 12)) == [rid]
        service.resolve_round(s, rid, at(1, 12))
    decl = w.declarations(rid)["aria"][0]
    assert decl.actions[0]["kind"] == "attack" and decl.actions[0]["target"] == "gob2"
    body = _body(w, f"{rid}:resolution")
    assert "Aria hits Goblin Rot" in body or "Aria misses Goblin Rot" in body


def test_STALL4_narrator_run_and_away_players_do_not_hold_the_round_open(engine, monkeypatch):
    """Cyd is played by the narrator (player "GM", a narrator name of the thread); Bram's
    player is away (the STALL-1 hook, here answering what the absences work will): Aria's
    post alone closes the round after the grace, and the status says Bram is away."""
    w = make_world(engine, early_close=True)
    with session_scope(engine) as s:
        cyd = s.scalar(select(m.Combatant).where(m.Combatant.key == "cyd"))
        cyd.player = "GM"
    monkeypatch.setattr(queries, "away_players", lambda session, campaign_id, at: {"Bob"})
    rid = w.open(at(0))
    assert "Away: Bram" in _body(w, f"{rid}:opening")
    w.ingest([post("p1", "alice", at(2), "I attack Goblin Snag")], now=at(2))
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(2, 9)) == []
        assert service.due_rounds(s, at(2, 10)) == [rid]


def test_STALL4_a_player_who_posted_away_does_not_hold_the_round_open(engine):
    """STALL-1 with STALL-4, no stand-in: Bob posts `.away until 2026-12-10` in round 1;
    Alice and Carol declare by 1:05; the round is due 10 minutes (the grace) after the last
    declaration, not at its 24 h deadline, and the status names Bram as away."""
    w = make_world(engine, early_close=True)
    rid = w.open(at(0))
    w.ingest([post("p0", "bob", at(0, 30), ".away until 2026-12-10")], now=at(0, 30))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword"),
              post("p3", "carol", at(1, 5), RU_ATTACK)], now=at(1, 5))
    with session_scope(engine) as s:
        assert queries.away_players(s, w.campaign_id, at(1, 5)) == {"bob"}
        assert service.due_rounds(s, at(1, 14)) == []
        assert service.due_rounds(s, at(1, 15)) == [rid]
        service.resolve_round(s, rid, at(1, 15))
    assert "Bram" in _body(w, f"{rid}:resolution")


def test_STALL4_a_round_everyone_is_away_from_waits_for_its_deadline(engine, monkeypatch):
    w = make_world(engine, early_close=True)
    monkeypatch.setattr(queries, "away_players", lambda session, campaign_id, at: {"alice", "bob", "carol"})
    rid = w.open(at(0))
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(23)) == []
        assert service.due_rounds(s, at(24)) == [rid]


def test_STALL4_early_close_off_waits_for_the_deadline(engine):
    w = make_world(engine, early_close=False)
    rid = w.open(at(0))
    w.ingest([post(f"p{i}", p, at(1), "#defend") for i, p in enumerate(("alice", "bob", "carol"))],
             now=at(1))
    with session_scope(engine) as s:
        assert service.due_rounds(s, at(23, 59)) == []
        assert service.due_rounds(s, at(24)) == [rid]


# --- STALL-5 clocks -----------------------------------------------------------------------

SP = "America/Sao_Paulo"   # UTC-03:00 all year (no DST since 2019)


def test_STALL5_a_deadline_in_quiet_hours_moves_past_them_by_the_time_it_spent_there(engine):
    """The encounter's own 16 h rounds (over the campaign's 24 h): opened Monday
    2026-11-30 09:00 local (12:00 UTC), the naive deadline is Tuesday 01:00 local, 2 h into
    the quiet night that began at 23:00; the night ends at 08:00, so the deadline is
    08:00 + 2 h = 10:00 local (13:00 UTC)."""
    w = make_world(engine, timezone_name=SP)
    _set(engine, w, quiet_hours="23:00-08:00")
    with session_scope(engine) as s:
        s.get(m.Encounter, w.encounter_id).round_hours = 16
    rid = w.open(at(0))
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).deadline == datetime(2026, 12, 1, 13, 0, tzinfo=UTC)
    assert "2026-12-01 10:00 (America/Sao_Paulo, UTC-03:00)" in _body(w, f"{rid}:opening")


def test_STALL5_a_deadline_outside_quiet_hours_keeps_its_length(engine):
    """24 h from Monday 09:00 local is Tuesday 09:00 local: outside 23:00-08:00, unchanged
    (the night inside the window does not lengthen it)."""
    w = make_world(engine, timezone_name=SP)
    _set(engine, w, quiet_hours="23:00-08:00")
    rid = w.open(at(0))
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).deadline == at(24)


def test_STALL5_weekends_and_quiet_hours_join_into_one_span():
    """Friday 2026-12-04 10:00 local + 24 h = Saturday 10:00, inside the span Friday 23:00 to
    Monday 08:00 (the quiet night, the weekend and Sunday night joined); 11 h into it, so
    the deadline is Monday 08:00 + 11 h = 19:00 local = 22:00 UTC on 2026-12-07."""
    clock = clocks.Clock(SP, clocks.parse_quiet("23:00-08:00"), weekends=True)
    opens = datetime(2026, 12, 4, 13, 0, tzinfo=UTC)
    assert clocks.place(clock, opens + timedelta(hours=24)) == datetime(2026, 12, 7, 22, 0, tzinfo=UTC)
    # weekends alone: Saturday 10:00 is 10 h into Saturday 00:00, Monday 00:00 + 10 h
    only_weekends = clocks.Clock(SP, None, weekends=True)
    assert clocks.place(only_weekends, opens + timedelta(hours=24)) == datetime(2026, 12, 7, 13, 0, tzinfo=UTC)


def test_STALL5_quiet_hours_across_a_dst_change_keep_real_lengths():
    """America/New_York leaves DST on Sunday 2026-11-01 at 02:00 EDT (06:00 UTC). A round
    opened Saturday 03:00 EDT (07:00 UTC) for 24 h ends, naively, at 07:00 UTC = 02:00 EST.
    The quiet night began Saturday 23:00 EDT = 03:00 UTC: 4 real hours in. It ends at 08:00
    EST = 13:00 UTC (a 10-hour night), so the deadline is 13:00 + 4 h = 17:00 UTC = 12:00 EST."""
    clock = clocks.Clock("America/New_York", clocks.parse_quiet("23:00-08:00"), weekends=False)
    opens = datetime(2026, 10, 31, 7, 0, tzinfo=UTC)
    assert clocks.span(clock, opens + timedelta(hours=24)) == (
        datetime(2026, 11, 1, 3, 0, tzinfo=UTC), datetime(2026, 11, 1, 13, 0, tzinfo=UTC))
    assert clocks.place(clock, opens + timedelta(hours=24)) == datetime(2026, 11, 1, 17, 0, tzinfo=UTC)


@pytest.mark.parametrize("text", ["25:00-08:00", "23:00", "23:61-08:00", "08:00-08:00", "late"])
def test_STALL5_quiet_hours_that_are_not_times_are_refused(text):
    with pytest.raises(ValueError):
        clocks.parse_quiet(text)


EXTEND = {
    "en": (".extend 12h", ".extend 1d",
           "Bram asked for 12 h more: granted, within the campaign's limit of 12 h a round. "
           "Post your declarations by 2026-12-01 21:00 (America/Sao_Paulo, UTC-03:00).",
           "Cyd asked for 24 h more: that is over the campaign's limit of 12 h a round, so the "
           "narrator decides.",
           "The narrator granted Cyd 24 h more."),
    "pt": (".prorrogar 12h", ".prorrogar 1d",
           "Bram pediu mais 12 h: concedido, dentro do limite da campanha de 12 h por rodada. "
           "Postem suas declarações até 2026-12-01 21:00 (America/Sao_Paulo, UTC-03:00).",
           "Cyd pediu mais 24 h: isso passa do limite da campanha de 12 h por rodada, então o "
           "narrador decide.",
           "O narrador concedeu a Cyd mais 24 h."),
    "ru": (".продлить 12ч", ".продлить 1д",
           "Bram попросил(а) ещё 12 ч: продлено, в пределах лимита кампании 12 ч за раунд. "
           "Присылайте заявки до 2026-12-01 21:00 (America/Sao_Paulo, UTC-03:00).",
           "Cyd попросил(а) ещё 24 ч: это больше лимита кампании 12 ч за раунд, поэтому решает "
           "ведущий.",
           "Ведущий дал Cyd ещё 24 ч."),
}


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_STALL5_extensions_within_the_limit_are_granted_the_rest_wait_for_the_narrator(engine, lang):
    """Limit 12 h a round. The deadline is 2026-12-01 12:00 UTC (09:00 local). Bram asks
    12 h: within the limit, granted at once: 2026-12-02 00:00 UTC = 2026-12-01 21:00 local.
    Cyd asks 1 d = 24 h: 12 + 24 > 12, queued, the deadline stays; the narrator grants it:
    + 24 h = 2026-12-03 00:00 UTC. Each step audited and said in the campaign's language."""
    ask12, ask1d, granted, queued, by_narrator = EXTEND[lang]
    w = make_world(engine, language=lang, timezone_name=SP)
    _set(engine, w, extension_limit_hours=12.0)
    rid = w.open(at(0))
    w.ingest([post("p1", "bob", at(1), f"#defend\n{ask12}")], now=at(1))
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).deadline == at(24 + 12)
    w.ingest([post("p2", "carol", at(2), f"#defend\n{ask1d}")], now=at(2))
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).deadline == at(36)               # unchanged: queued
        reqs = list(s.scalars(select(m.ExtensionRequest).order_by(m.ExtensionRequest.id)))
        assert [(r.player, r.hours, r.state, r.automatic) for r in reqs] == [
            ("bob", 12.0, "granted", True), ("carol", 24.0, "queued", False)]
        narrator = m.Narrator(username="gm", password_hash="x")
        s.add(narrator)
        s.flush()
        extensions.decide(s, reqs[1].id, True, narrator.id, at(3))
        assert s.get(m.Round, rid).deadline == at(60)
        actions = [a.action for a in s.scalars(select(m.AuditEntry).where(
            m.AuditEntry.entity == "extension_request").order_by(m.AuditEntry.id))]
        assert actions == ["round.extension.granted", "round.extension.queued",
                           "round.extension.granted"]
        ids = [r.id for r in reqs]
    assert granted in _body(w, f"{rid}:extension:{ids[0]}")
    assert queued in _body(w, f"{rid}:extension:{ids[1]}")
    assert by_narrator in _body(w, f"{rid}:extension:{ids[1]}:decided")
    # read once per post: a second poll of the same post asks nothing again
    w.ingest([post("p1", "bob", at(1), f"#defend\n{ask12}")], now=at(4))
    assert w.count(m.ExtensionRequest) == 2


@pytest.mark.parametrize(("lang", "ask", "words"), [
    ("en", ".extend soon", 'Bram: "" is not'),
    ("pt", ".prorrogar logo", "não é um pedido que o pbp consiga ler"),
    ("ru", ".продлить скоро", "pbp не понял эту просьбу"),
])
def test_STALL5_an_unreadable_extension_is_answered_in_words_and_asks_nothing(engine, lang, ask, words):
    w = make_world(engine, language=lang)
    rid = w.open(at(0))
    ids = w.ingest([post("p1", "bob", at(1), f"#defend\n{ask}")], now=at(1))
    body = _body(w, f"{rid}:extension:post{ids[0]}")
    assert (words.replace('""', f'"{ask}"') if lang == "en" else words) in body
    assert ask in body
    assert w.count(m.ExtensionRequest) == 0
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).deadline == at(24)


def test_STALL5_a_granted_extension_that_lands_in_quiet_hours_moves_past_them(engine):
    """Deadline Tuesday 09:00 local (12:00 UTC) + 15 h = Wednesday 00:00 local, 1 h into the
    23:00-08:00 night: 08:00 + 1 h = Wednesday 09:00 local = 2026-12-02 12:00 UTC."""
    w = make_world(engine, timezone_name=SP)
    _set(engine, w, quiet_hours="23:00-08:00", extension_limit_hours=24.0)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ".extend 15h")], now=at(1))
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).deadline == datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def test_STALL5_a_refused_extension_keeps_the_deadline_and_says_so(engine):
    w = make_world(engine, language="pt", timezone_name=SP)
    _set(engine, w, extension_limit_hours=0.0)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ".prorrogar 30min")], now=at(1))
    with session_scope(engine) as s:
        req = s.scalars(select(m.ExtensionRequest)).one()
        assert (req.hours, req.state) == (0.5, "queued")
        extensions.decide(s, req.id, False, None, at(2))
        assert s.get(m.Round, rid).deadline == at(24) and req.state == "refused"
        rid_req = req.id
    assert ("O narrador recusou o pedido de Aria de mais 0.5 h. O prazo continua "
            "2026-12-01 09:00 (America/Sao_Paulo, UTC-03:00).") in _body(w, f"{rid}:extension:{rid_req}:decided")


# --- STALL-8 status block -----------------------------------------------------------------

STATUS = {
    "en": ["Status — round 1", "Deadline: 2026-12-01 09:00 (America/Sao_Paulo, UTC-03:00), in 23 h",
           "Declared: Aria", "Owes a post: Bram", "Players' HP: Aria 20/20, Bram 11/20, Cyd 0/20, down",
           "Enemies: Goblin Snag unhurt, Goblin Rot wounded",
           "Conditions: Aria: frightened (3 rounds left), prone"],
    "pt": ["Situação — rodada 1", "Prazo: 2026-12-01 09:00 (America/Sao_Paulo, UTC-03:00), em 23 h",
           "Declararam: Aria", "Falta postar: Bram",
           "PV dos jogadores: Aria 20/20, Bram 11/20, Cyd 0/20, caído",
           "Inimigos: Goblin Snag ileso, Goblin Rot ferido"],
    "ru": ["Состояние — раунд 1", "Срок: 2026-12-01 09:00 (America/Sao_Paulo, UTC-03:00), через 23 ч",
           "Заявились: Aria", "Должны пост: Bram",
           "ОЗ игроков: Aria 20/20, Bram 11/20, Cyd 0/20, выбыл",
           "Противники: Goblin Snag невредим, Goblin Rot ранен"],
}


@pytest.mark.parametrize("platform", ["bbcode", "markdown", "text"])
@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_STALL8_the_reminder_ends_with_the_status_block(engine, lang, platform):
    """A reminder 23 h before the deadline (opened at 12:00 UTC, deadline 24 h later): "in
    23 h". Bram 11/20 and Cyd 0/20 (down) as numbers; Goblin Rot at 5/9 is above half:
    wounded; Goblin Snag at 9/9 unhurt; Aria frightened for 3 rounds from round 1: in round
    1 it covers rounds 1-3, "3 rounds left"; prone has no duration. Cyd is down: a
    character down owes no post (PBP-2's "missing" never names one), so only Bram owes."""
    w = make_world(engine, language=lang, timezone_name=SP, reminder_hours=(23,),
                   platform=platform)
    with session_scope(engine) as s:
        rows = {c.key: c for c in s.scalars(select(m.Combatant))}
        rows["bram"].hp = 11
        rows["cyd"].hp, rows["cyd"].down = 0, True
        rows["gob2"].hp = 5
        rows["aria"].conditions = [{"name": "frightened", "rounds": 3, "started_round": 1},
                                   {"name": "prone"}]
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(0, 30), "#defend")], now=at(0, 30))
    with session_scope(engine) as s:
        reply_id = service.send_reminder(s, rid, at(1))
        body = s.get(m.Reply, reply_id).body
    tail = body[body.index(STATUS[lang][0]):]
    # each on its own line, markup aside (plain text once read "round 1Deadline: ...")
    lines = [re.sub(r"\[/?[a-z]+[^\]]*\]|\*\*|^[-*] ", "", x.strip()).replace("\\_", "_").strip()
             for x in tail.splitlines()]
    for line in STATUS[lang]:
        assert line in lines, (line, lines)
    assert tail.index(STATUS[lang][-1]) < tail.index("pbp-reply:")   # at the end, before the marker


def test_STALL8_the_resolution_status_speaks_of_the_next_round_and_the_fight_end(engine):
    """After round 1 resolves at its deadline (2026-12-01 12:00 UTC), round 2 opens then with
    24 h: "round 2", "in 24 h", nobody has declared and all three owe a post."""
    w = make_world(engine, language="en", timezone_name=SP)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "#defend")], now=at(1))
    w.resolve(rid, at(24))
    body = _body(w, f"{rid}:resolution")
    tail = body[body.index("Status — round 2"):]
    assert "Deadline: 2026-12-02 09:00 (America/Sao_Paulo, UTC-03:00), in 24 h" in tail
    assert "Declared: nobody" in tail and "Owes a post: Aria, Bram, Cyd" in tail


@pytest.mark.parametrize(("hp", "max_hp", "word"), [
    (9, 9, "unhurt"), (10, 9, "unhurt"), (8, 9, "wounded"), (11, 20, "wounded"),
    (10, 20, "badly wounded"), (1, 20, "badly wounded"), (0, 20, "down"), (-3, 20, "down")])
def test_STALL8_enemy_descriptors_follow_the_documented_thresholds(hp, max_hp, word):
    assert wound_word(hp, max_hp) == word


def test_STALL5_the_round_service_opens_across_a_dst_change_with_the_documented_deadline(engine):
    """The DST case above through ``open_round`` and the opening reply: America/New_York,
    quiet 23:00-08:00, a 24 h round opened Saturday 2026-10-31 03:00 EDT (07:00 UTC): the
    deadline is 17:00 UTC = 12:00 EST on Sunday 2026-11-01, printed in the zone as UTC-05:00."""
    w = make_world(engine, timezone_name="America/New_York")
    _set(engine, w, quiet_hours="23:00-08:00")
    opened = datetime(2026, 10, 31, 7, 0, tzinfo=UTC)
    with session_scope(engine) as s:
        s.get(m.Encounter, w.encounter_id).started_at = opened - timedelta(minutes=1)
    rid = w.open(opened)
    with session_scope(engine) as s:
        assert s.get(m.Round, rid).deadline == datetime(2026, 11, 1, 17, 0, tzinfo=UTC)
    assert "2026-11-01 12:00 (America/New_York, UTC-05:00)" in _body(w, f"{rid}:opening")
