"""STALL-8: the status block also ends the correction and the closing replies (the gaps
left by the first cut: opening, reminder, resolution, notice and extension had it).

Expected values from the rules text: the attack below hits whatever the defense roll
(+40 against FD-4's d20 + skill), so Goblin Snag (9/9) is hurt after round 1; a correction
that sets the tag to -20 makes it a miss, so the corrected state is 9/9, "unhurt" by the
thresholds in pbp/render/status.py. Round 1 resolves at +25 h and round 2 opens then with
the campaign's 24 h (STALL-5), so at +30 h its deadline is 19 h away.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from pbp.panel import overrides as panel_overrides
from pbp.render.status import wound_word
from pbp.rounds import service
from pbp.store import models as m
from pbp.store.db import session_scope

from .world import at, make_world, post

ATTACK = "I attack Goblin Snag with my sword [roll]1d20+40[/roll]"

WORDS = {
    "en": {"status2": "Status — round 2", "in19": "in 19 h", "owes": "Owes a post: Aria, Bram, Cyd",
           "unhurt": "Goblin Snag unhurt", "status": "Status", "deadline": "Deadline:",
           "wounded": "wounded", "badly wounded": "badly wounded"},
    "pt": {"status2": "Situação — rodada 2", "in19": "em 19 h", "owes": "Falta postar: Aria, Bram, Cyd",
           "unhurt": "Goblin Snag ileso", "status": "Situação", "deadline": "Prazo:",
           "wounded": "ferido", "badly wounded": "gravemente ferido"},
    "ru": {"status2": "Состояние — раунд 2", "in19": "через 19 ч", "owes": "Должны пост: Aria, Bram, Cyd",
           "unhurt": "Goblin Snag невредим", "status": "Состояние", "deadline": "Срок:",
           "wounded": "ранен", "badly wounded": "тяжело ранен"},
}


def _resolved(engine, lang: str):  # type: ignore[no-untyped-def]
    w = make_world(engine, language=lang, slug=f"gaps-{lang}")
    rid = w.open(at(0))
    w.ingest([post("p1", "alice", at(1), ATTACK)], now=at(1))
    w.resolve(rid, at(25))
    with session_scope(engine) as s:
        for r in s.scalars(select(m.Reply).where(m.Reply.round_id == rid)):
            r.state = "sent"
    return w, rid


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_STALL8_the_correction_reply_ends_with_the_corrected_status(engine, lang):
    w, rid = _resolved(engine, lang)
    with session_scope(engine) as s:
        tag = s.scalar(select(m.RollRecord).where(m.RollRecord.round_id == rid,
                                                  m.RollRecord.kind == "tag"))
        panel_overrides.set_roll(s, tag.id, -20, "typo", None)
        reply_id = service.correct_round(s, rid, "typo", None, at(30))
        body = s.get(m.Reply, reply_id).body
        assert service.verify_round(s, rid).ok
    words = WORDS[lang]
    tail = body[body.index(words["status2"]):]
    assert words["in19"] in tail and words["owes"] in tail
    assert words["unhurt"] in tail                      # the corrected state, not the posted one
    assert tail.index(words["unhurt"]) < tail.index("pbp-reply:")


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
def test_STALL8_the_closing_reply_ends_with_the_final_state(engine, lang):
    """Round 2 is open when the narrator ends the fight: it closes without a result, so the
    final state is round 1's; no round, deadline or owed post is said any more."""
    w, rid = _resolved(engine, lang)
    with session_scope(engine) as s:
        snag = s.scalar(select(m.Combatant).where(m.Combatant.key == "gob1"))
        hurt, top = snag.hp, snag.max_hp
        reply_id = service.end_encounter(s, w.encounter_id, at(30), None)
        body = s.get(m.Reply, reply_id).body
    assert hurt < top
    words = WORDS[lang]
    word = words[wound_word(hurt, top)] if hurt > 0 else None
    tail = body[body.index(words["status"]):]
    assert words["status2"] not in body and words["deadline"] not in tail
    assert word is None or f"Goblin Snag {word}" in tail
    assert tail.index("Goblin Snag") < tail.index("pbp-reply:")
