"""STALL-1 / STALL-2 as players write them: the compact date reader (en/pt/ru, the
campaign's zone, the post's time), the command lines blanked so they declare nothing, and
the orders' conditions. Expected dates worked out on a calendar: 2026-12-01 is a Tuesday."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbp.parse import parse_post
from pbp.parse import standing as S
from pbp.rules.model import Combatant
from pbp.rules.standing import StandingCondition

TUE = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)          # Tuesday 12:00 in São Paulo
SP = "America/Sao_Paulo"                                 # UTC-3, no DST in 2026


def local_midnight(y: int, mo: int, d: int) -> datetime:
    return datetime(y, mo, d, 3, 0, tzinfo=UTC)


@pytest.mark.parametrize(("text", "lang", "until"), [
    ("until 2026-12-10", "en", local_midnight(2026, 12, 10)),
    ("até 10/12", "pt", local_midnight(2026, 12, 10)),
    ("до 10.12", "ru", local_midnight(2026, 12, 10)),
    ("until 12/10", "en", local_midnight(2026, 12, 10)),        # English numeric: month/day
    ("until 10 Dec", "en", local_midnight(2026, 12, 10)),
    ("até 10 de dezembro", "pt", local_midnight(2026, 12, 10)),
    ("до 10 декабря", "ru", local_midnight(2026, 12, 10)),
    ("até 05/01", "pt", local_midnight(2027, 1, 5)),            # no year: the next 5 January
    ("until Friday", "en", local_midnight(2026, 12, 4)),
    ("até sexta", "pt", local_midnight(2026, 12, 4)),
    ("до пятницы", "ru", local_midnight(2026, 12, 4)),
    ("until Tuesday", "en", local_midnight(2026, 12, 8)),       # said on a Tuesday: next week's
    ("until tomorrow", "en", local_midnight(2026, 12, 2)),
    ("até amanhã", "pt", local_midnight(2026, 12, 2)),
    ("до завтра", "ru", local_midnight(2026, 12, 2)),
    ("for 3 days", "en", TUE + timedelta(days=3)),
    ("por 3 dias", "pt", TUE + timedelta(days=3)),
    ("3 дня", "ru", TUE + timedelta(days=3)),
    ("for a week", "en", TUE + timedelta(weeks=1)),
    ("por uma semana", "pt", TUE + timedelta(weeks=1)),
    ("на неделю", "ru", TUE + timedelta(weeks=1)),
    ("for 12 hours", "en", TUE + timedelta(hours=12)),
])
def test_stall1_dates_in_three_languages(text: str, lang: str, until: datetime) -> None:
    assert S.until_from(text, lang, TUE, SP) == until


def test_stall1_a_day_already_begun_names_nothing_and_bad_zone_is_utc() -> None:
    assert S.until_from("until 2026-12-01", "en", TUE, SP) is None   # today began already
    assert S.until_from("until 2026-12-10", "en", TUE, "Nowhere/Atlantis") == \
        datetime(2026, 12, 10, tzinfo=UTC)
    spec = S.away_command("until the dragon sleeps", "en", TUE, SP, 0)
    assert spec.until is None and spec.problem == "standing.away-unread"


def test_stall1_free_forms_need_a_date_and_ignore_prose() -> None:
    assert S.free_absences("The guard was away until dawn.", "en", TUE, SP) == []
    # a story's "rode away for 3 days" is not the poster's absence; "I'm away" is
    assert S.free_absences("We rode away for 3 days and then", "en", TUE, SP) == []
    assert S.free_absences("Ficamos fora por 3 dias na floresta", "pt", TUE, SP) == []
    assert [a.until for a in S.free_absences("I'm away for 3 days", "en", TUE, SP)] == \
        [TUE + timedelta(days=3)]
    [spec] = S.free_absences("OOC: estarei fora até sexta, gente", "pt", TUE, SP)
    assert spec.until == local_midnight(2026, 12, 4) and spec.form == "free"


@pytest.mark.parametrize(("text", "lang", "name"), [
    (".away until 2026-12-10", "en", "standing.away"),
    (".ausente até 10/12", "pt", "standing.away"),
    (".отсутствую до 10.12", "ru", "standing.away"),
    (".default defend", "en", "standing.default"),
    (".padrão defender", "pt", "standing.default"),
    (".поумолчанию защита", "ru", "standing.default"),
    (".if the orc charges, I shoot it", "en", "standing.if"),
    (".se o orco atacar, eu atiro nele", "pt", "standing.if"),
    (".если орк атакует, стреляю в него", "ru", "standing.if"),
])
def test_stall_command_lines_are_read_and_declare_nothing(text: str, lang: str, name: str) -> None:
    """A standing line is a command: kept for the rounds layer, blanked for the round (so
    ``.default defend`` is not a defend action this round)."""
    p = parse_post(text, lang=lang)
    assert [c.name for c in p.commands] == [name]
    assert p.actions == ()


def test_other_dot_words_stay_as_they_were() -> None:
    assert [c.name for c in parse_post(".ri +2").commands] == ["initiative.roll"]
    assert [r.expression for r in parse_post(".r 1d20").rolls] == ["1d20"]
    assert parse_post(".rest of the line").commands == ()


ROSTER = [Combatant(key="orc", name="Orc", side="orcs", aliases=("orco", "орк")),
          Combatant(key="bram", name="Bram", player="bob"),
          Combatant(key="lyra", name="Lyra", player="lp")]


@pytest.mark.parametrize(("text", "lang", "cond"), [
    ("the orc charges, I shoot it", "en", StandingCondition("attacks", "orc")),
    ("o orco atacar, eu atiro nele", "pt", StandingCondition("attacks", "orc")),
    ("орк атакует, стреляю в него", "ru", StandingCondition("attacks", "orc")),
    ("the orc attacks me, I shoot it", "en", StandingCondition("attacks", "orc", me=True)),
    ("орка атакует меня, стреляю", "ru", StandingCondition("attacks", "orc", me=True)),
    ("Bram falls, I shoot the orc", "en", StandingCondition("falls", "bram")),
    ("Bram cair, eu atiro no orco", "pt", StandingCondition("falls", "bram")),
    ("Bram упадёт, стреляю в орка", "ru", StandingCondition("falls", "bram")),
    ("I am hit, I shoot back", "en", StandingCondition("hit", me=True)),
    ("eu for atingida, eu atiro", "pt", StandingCondition("hit", me=True)),
    ("меня ранят, стреляю", "ru", StandingCondition("hit", me=True)),
])
def test_stall2_conditions_in_three_languages(text: str, lang: str, cond: StandingCondition) -> None:
    spec = S.if_order(text, lang, ROSTER, "lyra", 0)
    assert spec.problem is None and spec.condition == cond
    assert spec.actions[0].kind.value == "attack"


def test_stall2_unreadable_orders_say_why() -> None:
    assert S.if_order("the moon is full", "en", ROSTER, "lyra", 0).problem == "standing.if-unread"
    assert S.if_order("the moon rises, I shoot", "en", ROSTER, "lyra", 0).problem == \
        "standing.condition-unread"
    assert S.default_order("ponder the stars", "en", ROSTER, "lyra", 0).problem == \
        "standing.action-unread"
    assert S.default_order("nenhum", "pt", ROSTER, "lyra", 0).kind == "clear"
