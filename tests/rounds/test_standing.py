"""STALL-1 (absences) and STALL-2 (standing orders) through the round service: open a round,
post, pass the deadline, resolve; on SQLite and PostgreSQL, with words read in en, pt, ru.

The oracle is the rules' text. PBP-2 (RULES.md): "a post after the deadline, or none, gets
the ruleset's latency penalty". STALL-1 (issue 15): while away the character follows its
standing order or the ruleset's default "without a latency penalty". So in the same round
a silent player who is not away is penalised and one who is away is not. The world is
forum-d20 (FD-2: the penalty is ``latency.penalty``, total defense) in America/Sao_Paulo
(UTC-3): a date ends at 00:00 there, 03:00 UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from pbp.rounds import service
from pbp.rules.model import Action, ActionKind, Combatant, Weapon
from pbp.store import models as m
from pbp.store.db import session_scope
from pbp.store.standing import Absence, StandingOrder
from tests.conftest import shared_path

from .world import at, heroes_and_goblins, make_world, post

#: 2026-12-10 00:00 in America/Sao_Paulo
DEC_10 = datetime(2026, 12, 10, 3, 0, tzinfo=UTC)


def _events(engine, round_id: int) -> set[tuple[str, str | None]]:
    with session_scope(engine) as s:
        return {(e.code, e.actor) for e in s.scalars(select(m.EventRecord)
                                                     .where(m.EventRecord.round_id == round_id))}


def _round(engine, number: int) -> int:
    with session_scope(engine) as s:
        return s.scalar(select(m.Round.id).where(m.Round.number == number))


def _absences(engine) -> list[Absence]:
    with session_scope(engine) as s:
        rows = list(s.scalars(select(Absence).order_by(Absence.id)))
        for r in rows:
            s.expunge(r)
        return rows


def test_pbp2_text_is_the_oracle() -> None:
    """The penalty the tests below expect for a silent player who is not away."""
    rules = shared_path("rules", "RULES.md").read_text(encoding="utf-8")
    assert "PBP-2 Latency: a post after the deadline, or none, gets the ruleset's latency penalty" in rules


AWAY = {
    "en": (".away until 2026-12-10",
           "Aria is away until 2026-12-10: the ruleset's default for a missing character (defend), "
           "with no latency penalty (STALL-1)", "absence noted: away until 2026-12-10 (STALL-1)"),
    "pt": (".ausente até 10/12",
           "Aria está ausente até 2026-12-10: o padrão das regras para um personagem ausente "
           "(defender), sem penalidade de atraso (STALL-1)",
           "ausência registrada: ausente até 2026-12-10 (STALL-1)"),
    "ru": (".отсутствую до 10.12",
           "Aria отсутствует до 2026-12-10: действие по правилам для отсутствующего персонажа "
           "(защита), без штрафа за опоздание (STALL-1)", "отсутствие отмечено: до 2026-12-10 (STALL-1)"),
}


@pytest.mark.parametrize("lang", sorted(AWAY))
def test_stall1_away_command_means_no_latency_penalty(engine, lang: str) -> None:
    """STALL-1: ``.away``/``.ausente``/``.отсутствую`` in the campaign's language; at the
    deadline Aria (away) defends without the penalty, Bram (silent, not away) pays it."""
    line, said, noted = AWAY[lang]
    w = make_world(engine, language=lang)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), line),
              post("p2", "carol", at(2), "I attack Goblin Snag with my sword")], now=at(2))
    assert "aria" not in w.declarations(rid)          # a standing line declares nothing
    [absence] = _absences(engine)
    assert (absence.player, absence.until, absence.source) == ("alice", DEC_10, "post")
    w.resolve(rid, at(24, 1))
    codes = _events(engine, rid)
    assert ("latency.penalty", "bram") in codes        # PBP-2: no post, not away
    assert ("latency.penalty", "aria") not in codes    # STALL-1: away
    assert ("standing.away", "aria") in codes and ("defend", "aria") in codes
    body = w.reply(f"{rid}:resolution").body
    assert said in body and noted in body
    with session_scope(engine) as s:
        applied = s.scalar(select(m.AuditEntry).where(m.AuditEntry.action == "standing.apply",
                                                      m.AuditEntry.entity_id == "aria"))
        assert applied.after == {"source": "ruleset", "text": "defend", "away": True, "order": None}
        assert s.scalar(select(m.AuditEntry.action).where(m.AuditEntry.entity_id == "alice")) \
            == "absence.start"


FREE = [  # (lang, text, until): posted Monday 2026-11-30 10:00 in São Paulo (13:00 UTC)
    ("en", "Sorry all, I'll be away until Friday.", datetime(2026, 12, 4, 3, 0, tzinfo=UTC)),
    ("pt", "Pessoal, estarei fora até sexta.", datetime(2026, 12, 4, 3, 0, tzinfo=UTC)),
    ("ru", "Меня не будет до пятницы.", datetime(2026, 12, 4, 3, 0, tzinfo=UTC)),
    ("en", "I'm away for 3 days", at(1) + timedelta(days=3)),
    ("pt", "Fico ausente por 3 dias", at(1) + timedelta(days=3)),
    ("ru", "Отсутствую 3 дня", at(1) + timedelta(days=3)),
]


@pytest.mark.parametrize(("lang", "text", "until"), FREE)
def test_stall1_free_forms_are_read_in_the_campaigns_zone(engine, lang: str, text: str,
                                                          until: datetime) -> None:
    """STALL-1: free forms in the three languages; a day ends at midnight in the campaign's
    zone, a length counts from the post's time."""
    w = make_world(engine, language=lang)
    w.open(at(0))
    w.ingest([post("p1", "alice", at(1), text)], now=at(1))
    [absence] = _absences(engine)
    assert absence.until == until and absence.starts_at == at(1)


def test_stall1_free_form_in_an_in_character_post_counts_both(engine) -> None:
    """A declaration with "(OOC: away until Friday)" declares and starts the absence."""
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag with my sword. "
                                          "(OOC: away until Friday, folks)")], now=at(1))
    assert [d.actions[0]["kind"] for d in w.declarations(rid)["aria"]] == ["attack"]
    assert _absences(engine)[0].until == datetime(2026, 12, 4, 3, 0, tzinfo=UTC)


def test_stall1_absence_ends_at_the_players_next_post(engine) -> None:
    """STALL-1: "the absence ends ... at the player's next post" (in character)."""
    w = make_world(engine)
    r1 = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ".away for 3 days")], now=at(1))
    w.resolve(r1, at(24, 1))
    r2 = _round(engine, 2)
    w.ingest([post("p2", "alice", at(26), "I attack Goblin Rot with my sword")], now=at(26))
    [absence] = _absences(engine)
    assert (absence.ended_by, absence.ended_at) == ("post", at(26))
    w.resolve(r2, at(49))
    codes = _events(engine, r2)
    assert ("standing.away", "aria") not in codes and ("latency.penalty", "aria") not in codes
    assert any(code.startswith("attack.") and actor == "aria" for code, actor in codes)


def test_stall1_absence_ends_at_its_date(engine) -> None:
    """STALL-1: away for one day covers round 1 (deadline 24 h after opening, before the
    absence ends 1 day after the post) but not round 2: PBP-2's penalty again there."""
    w = make_world(engine)
    r1 = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ".away for 1 day")], now=at(1))
    w.resolve(r1, at(24, 1))
    assert ("standing.away", "aria") in _events(engine, r1)
    assert ("latency.penalty", "aria") not in _events(engine, r1)
    r2 = _round(engine, 2)
    w.resolve(r2, at(49))
    assert ("latency.penalty", "aria") in _events(engine, r2)
    assert ("standing.away", "aria") not in _events(engine, r2)


def test_stall1_an_unreadable_absence_is_said_and_changes_nothing(engine) -> None:
    w = make_world(engine)
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ".away until the dragon sleeps")], now=at(1))
    w.resolve(rid, at(24, 1))
    assert ("latency.penalty", "aria") in _events(engine, rid)
    assert ("absence not understood (no date or length found): until the dragon sleeps (STALL-1)"
            in w.reply(f"{rid}:resolution").body)


DEFAULTS = {
    "en": ("I attack Goblin Snag with my sword\n.default defend", "defend",
           "standing order noted: defend (STALL-2)",
           "no post this round: standing order followed: defend (STALL-2)"),
    "pt": ("Eu ataco Goblin Snag com a espada\n.padrão defender", "defender",
           "ordem permanente registrada: defender (STALL-2)",
           "sem postagem nesta rodada: ordem permanente seguida: defender (STALL-2)"),
    "ru": ("Атакую Goblin Snag мечом\n.поумолчанию защита", "защита",
           "постоянный приказ принят: защита (STALL-2)",
           "нет поста в этом раунде: выполнен постоянный приказ: защита (STALL-2)"),
}


@pytest.mark.parametrize("lang", sorted(DEFAULTS))
def test_stall2_default_is_what_a_missing_character_does(engine, lang: str) -> None:
    """STALL-2: the default set in round 1 (its attack still counts) is what Bram does in
    round 2 when Bob is silent, marked "standing order", without PBP-2's penalty."""
    text, words, noted, followed = DEFAULTS[lang]
    w = make_world(engine, language=lang)
    r1 = w.open(at(0))
    w.ingest([post("p1", "bob", at(1), text)], now=at(1))
    w.resolve(r1, at(24, 1))
    codes = _events(engine, r1)
    assert any(c.startswith("attack.") and a == "bram" for c, a in codes)
    assert ("defend", "bram") not in codes          # the default waits for a silent round
    assert noted in w.reply(f"{r1}:resolution").body
    r2 = _round(engine, 2)
    w.resolve(r2, at(49))
    codes = _events(engine, r2)
    assert ("defend", "bram") in codes and ("standing.order", "bram") in codes
    assert ("latency.penalty", "bram") not in codes
    assert ("latency.penalty", "aria") in codes     # silent, no order: PBP-2
    assert followed in w.reply(f"{r2}:resolution").body
    with session_scope(engine) as s:
        [order] = s.scalars(select(StandingOrder)).all()
        assert (order.kind, order.text, order.state) == ("default", words, "active")


@pytest.mark.parametrize(("lang", "line", "said"), [
    ("en", ".default cast fireball at Goblin Snag",
     "standing order refused: a default may not spend a limited resource (a spell): "
     "cast fireball at Goblin Snag (STALL-2)"),
    ("pt", ".padrão conjuro uma magia em Goblin Snag",
     "ordem permanente recusada: um padrão não pode gastar um recurso limitado (uma magia): "
     "conjuro uma magia em Goblin Snag (STALL-2)"),
    ("ru", ".поумолчанию колдую заклинание на Goblin Snag",
     "постоянный приказ отклонён: действие по умолчанию не может тратить ограниченный ресурс "
     "(заклинание): колдую заклинание на Goblin Snag (STALL-2)"),
])
def test_stall2_a_default_spending_a_spell_is_refused_and_never_applied(engine, lang: str,
                                                                       line: str, said: str) -> None:
    """STALL-2: "A default never spends a limited resource ... refuse such a default when
    set, with a clear message, and never apply it": Cyd stays missing, PBP-2 applies."""
    w = make_world(engine, language=lang)
    r1 = w.open(at(0))
    w.ingest([post("p1", "carol", at(1), line)], now=at(1))
    w.resolve(r1, at(24, 1))
    assert said in w.reply(f"{r1}:resolution").body
    codes = _events(engine, r1)
    assert ("latency.penalty", "cyd") in codes and ("cast", "cyd") not in codes
    with session_scope(engine) as s:
        assert s.scalar(select(StandingOrder.reason)) == "limited:spell"


def test_stall2_a_stored_default_that_spends_a_resource_is_never_applied(engine) -> None:
    """Even an active row (stored before a rule changed, or by hand) is not applied."""
    w = make_world(engine)
    rid = w.open(at(0))
    with session_scope(engine) as s:
        cyd = s.scalar(select(m.Combatant).where(m.Combatant.key == "cyd"))
        s.add(StandingOrder(combatant_id=cyd.id, kind="default", text="drink the potion",
                            actions=[Action(ActionKind.QUICK, options={"item": "potion"}).to_dict()],
                            state="active", source="panel", created_at=at(0)))
    w.resolve(rid, at(24, 1))
    codes = _events(engine, rid)
    assert ("latency.penalty", "cyd") in codes and ("standing.order", "cyd") not in codes


IFS = {
    "en": ".if Goblin Rot attacks me, I attack it",
    "pt": ".se o Goblin Rot me atacar, eu ataco ele",
    "ru": ".если Goblin Rot атакует меня, атакую его",
}


@pytest.mark.parametrize("lang", sorted(IFS))
def test_stall2_conditional_fires_only_when_its_condition_happens(engine, lang: str) -> None:
    """STALL-2: round 1 Goblin Rot attacks Cyd: the order fires (Cyd attacks Goblin Rot,
    "it"), no penalty. Round 2 it attacks Bram: the condition did not happen, Cyd is
    simply missing (PBP-2)."""
    w = make_world(engine, language=lang)
    r1 = w.open(at(0))
    w.ingest([post("p1", "carol", at(1), IFS[lang]),
              post("p2", "GM", at(2), "Goblin Rot: attacks Cyd with the dagger")], now=at(2))
    w.resolve(r1, at(24, 1))
    with session_scope(engine) as s:
        cyd_attacks = [(e.code, e.target) for e in s.scalars(select(m.EventRecord).where(
            m.EventRecord.round_id == r1, m.EventRecord.actor == "cyd"))
            if e.code.startswith("attack.")]
    assert cyd_attacks and {t for _c, t in cyd_attacks} == {"gob2"}
    codes = _events(engine, r1)
    assert ("standing.if", "cyd") in codes and ("latency.penalty", "cyd") not in codes
    body = w.reply(f"{r1}:resolution").body
    marked = {"en": "the condition of a standing order happened, so it is followed",
              "pt": "a condição de uma ordem permanente aconteceu, então ela é seguida",
              "ru": "условие постоянного приказа наступило, приказ выполнен"}[lang]
    assert marked in body
    with session_scope(engine) as s:   # the trial run's rolls were thrown away: no gap
        assert service.verify_round(s, r1).ok
    r2 = _round(engine, 2)
    w.ingest([post("p3", "GM", at(26), "Goblin Rot: attacks Bram with the dagger")], now=at(26))
    w.resolve(r2, at(49))
    codes = _events(engine, r2)
    assert ("standing.if", "cyd") not in codes and ("latency.penalty", "cyd") in codes
    assert not any(c.startswith("attack.") and a == "cyd" for c, a in codes)


def test_stall2_sheet_default_action_is_followed_and_kept(engine) -> None:
    """STALL-2: the sheet field ``default_action`` is a default like ``.default``; the
    sheet keeps it after the round is resolved."""
    roster = heroes_and_goblins()
    roster[1] = Combatant(key="bram", name="Bram", player="bob", hp=20, max_hp=20,
                          stats=dict(roster[1].stats), weapons=(Weapon("sword", "1d8"),),
                          default_action="defend")
    w = make_world(engine, combatants=roster)
    rid = w.open(at(0))
    w.resolve(rid, at(24, 1))
    codes = _events(engine, rid)
    assert ("defend", "bram") in codes and ("latency.penalty", "bram") not in codes
    assert "no post this round: standing order followed: defend (STALL-2)" in \
        w.reply(f"{rid}:resolution").body
    with session_scope(engine) as s:
        bram = s.scalar(select(m.Combatant).where(m.Combatant.key == "bram"))
        assert bram.sheet.get("default_action") == "defend"


def test_stall1_an_absence_in_a_setup_post_counts_for_round_one(engine) -> None:
    """STALL-1: "away until Friday" posted before the first round opens (a setup post)."""
    w = make_world(engine)
    w.ingest([post("p0", "alice", at(0, 10), "Heads up: away until Friday")], now=at(0, 10))
    rid = w.open(at(1))
    w.resolve(rid, at(25, 1))
    codes = _events(engine, rid)
    assert ("standing.away", "aria") in codes and ("latency.penalty", "aria") not in codes


def test_stall1_stall2_an_edit_replaces_what_the_post_said_and_a_repeat_changes_nothing(engine) -> None:
    """Nothing lost or doubled: the same post seen twice stores one absence and one order;
    an edit before the deadline replaces them with what it says now."""
    w = make_world(engine)
    w.open(at(0))
    first = post("p1", "alice", at(1), ".away until 2026-12-10\n.default defend")
    w.ingest([first], now=at(1))
    w.ingest([first], now=at(2))
    assert [a.until for a in _absences(engine)] == [DEC_10]
    w.ingest([post("p1", "alice", at(1), ".away until 2026-12-12\n.default attack Goblin Snag",
                   change="edited", edited_at=at(3))], now=at(3))
    assert [a.until for a in _absences(engine)] == [DEC_10 + timedelta(days=2)]
    with session_scope(engine) as s:
        assert [(o.text, o.state) for o in s.scalars(select(StandingOrder))] == \
            [("attack Goblin Snag", "active")]


def test_stall1_a_reminder_does_not_name_a_player_who_is_away(engine) -> None:
    """STALL-1: Bob said he is away; the 12-hour reminder names only Cyd, and with Carol
    posted too, nobody it should nag is left: no reminder."""
    w = make_world(engine, reminder_hours=(12, 2))
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), "I attack Goblin Snag"),
              post("p2", "bob", at(1), ".away for 3 days")], now=at(1))
    with session_scope(engine) as s:
        body = s.get(m.Reply, service.send_reminder(s, rid, at(12))).body
    nag, status = body.split("[b]Status", 1)      # the STALL-8 status block says who is away
    assert "Still to post:\nCyd (@carol)\n" in nag and "Bram" not in nag
    assert "Away: Bram" in status and "Owes a post: Cyd" in status
    w.ingest([post("p3", "carol", at(13), "#defend")], now=at(13))
    with session_scope(engine) as s:
        assert service.send_reminder(s, rid, at(22)) is None
