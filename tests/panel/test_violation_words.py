"""The encounter page's Violations list says the engine's refusals, and the problems stored
with a declaration, in the panel's language (the narrator's, as the rest of the page), by
their codes (FD-10 budget refusals, PBP-4 roll tags): a Portuguese or Russian narrator read
the engine's English. The campaign's language is set to another one each time: the list
follows the reader, so one line is never half in each.

The expected sentences are the reply catalogs' translations of the engine's reasons
(``messages.REASONS["budget.exceeded"]``: "no action left for this" when the event names
no slot) and of the dice's refusal "'{word}' in '{expression}' is not a stat on this
sheet", so the list and the reply say a refusal in the same words."""

from __future__ import annotations

import html
from typing import Any

import pytest
from sqlalchemy import update

from pbp.store.campaigns import Narrator
from pbp.store.db import make_engine, session_scope
from pbp.store.models import Campaign, Declaration, EventRecord

OTHER = {"en": "pt", "pt": "ru", "ru": "en"}   # a campaign language unlike the narrator's

#: what forum-d20 stores for an attack after the combat action is spent (FD-10)
SPENT = "your combat action is already spent this turn"


def _with_refusal(db_url: str, ids: dict[str, Any], lang: str, *, problem: str = "budget.exceeded",
                  reason: str = SPENT) -> None:
    with session_scope(make_engine(db_url)) as s:
        s.execute(update(Narrator).values(language=lang))
        s.execute(update(Campaign).values(language=OTHER[lang]))
        s.add(EventRecord(round_id=ids["round"], seq=900, code="action.rejected", actor="aria",
                          rule="FD-10", message=f"Aria: {reason}",
                          params={"problem": problem, "reason": reason, "action_index": 1}))


def _violations(client: Any, ids: dict[str, Any]) -> str:
    r = client.get(f"/encounters/{ids['encounter']}")
    assert r.status_code == 200
    return html.unescape(r.text.split('id="h-violations"')[1].split("</section>")[0])


@pytest.mark.parametrize(("lang", "said"), [
    ("pt", "<strong>Aria</strong>: não resta ação para isso neste turno"),
    ("ru", "<strong>Aria</strong>: на это в этом ходу не осталось действий"),
])
def test_fd_10_a_refused_action_is_said_in_the_narrators_language(
        alice: Any, ids: dict[str, Any], db_url: str, lang: str, said: str) -> None:
    _with_refusal(db_url, ids, lang)
    section = _violations(alice, ids)
    assert said in section
    assert SPENT not in section
    assert "(FD-10)" in section


def test_fd_10_english_keeps_the_engines_own_more_specific_reason(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """In English the list names the combatant once, then the engine's reason (before, the
    key and the whole sentence: "aria: Aria: your combat action...")."""
    _with_refusal(db_url, ids, "en")
    section = _violations(alice, ids)
    assert f"<strong>Aria</strong>: {SPENT} <span" in section


def test_fd_10_a_refusal_with_no_translation_keeps_the_engines_english(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """An unknown problem code (a ruleset newer than the catalogs) is not dropped: the
    engine's English reason stands."""
    _with_refusal(db_url, ids, "pt", problem="made.up", reason="the moon is out of reach")
    assert "<strong>Aria</strong>: the moon is out of reach" in _violations(alice, ids)


def test_pbp_4_a_refused_roll_tag_is_said_in_the_narrators_language(
        alice: Any, ids: dict[str, Any], db_url: str) -> None:
    """The dice's refusal stored with the declaration (only its English sentence is
    stored) is said by its code: dice.unknown_stat in Portuguese."""
    with session_scope(make_engine(db_url)) as s:
        s.execute(update(Narrator).values(language="pt"))
        s.execute(update(Campaign).values(language=OTHER["pt"]))
        d = s.get(Declaration, ids["declarations"][0])
        d.errors = [{"code": "roll.refused", "position": 40,
                     "message": "'Charm' in '1d20+Charm' is not a stat on this sheet"}]
    section = _violations(alice, ids)
    assert "'Charm' em '1d20+Charm' não é um atributo desta ficha" in section
    assert "is not a stat on this sheet" not in section
