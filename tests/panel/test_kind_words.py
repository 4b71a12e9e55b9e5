"""Issue 17 i18n leftover: the encounter page said a declared action's kind and the budget
slots of the "Actions left" column as the engine's codes ("attack → Goblin 1", "combat 0")
to a narrator reading the panel in Portuguese or Russian. They are words now
(:mod:`pbp.panel.kind_words`), the forms still posting the codes.

The expected words are the catalogs' entries as written (context "action kind (panel)"),
not read back from the program. The sample (pbp.panel.sample) is a forum-d20 fight: its
heroes attack goblins in round 2 ("I attack ... and then I move towards the gate"), and
its budget limits the combat, move and free slots (FD-10).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask_babel import force_locale

from pbp.panel import audit_words, kind_words
from pbp.rules import messages
from pbp.rules.model import ActionKind

ROOT = Path(__file__).resolve().parents[2]

#: per language: a declared attack, a declared move, the three limited slots of forum-d20
WORDS = {
    "en": ("attack", "move", ("combat action", "move", "free action")),
    "pt": ("ataque", "movimento", ("ação de combate", "movimento", "ação livre")),
    "ru": ("атака", "перемещение", ("боевое действие", "перемещение", "свободное действие")),
}


def _page(alice: Any, ids: dict[str, Any], lang: str) -> str:
    assert alice.post("/language", {"language": lang}).status_code == 302
    r = alice.get(f"/encounters/{ids['encounter']}")
    assert r.status_code == 200
    return str(r.text)


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_encounter_page_says_kinds_and_slots_in_the_narrators_language(
        alice: Any, ids: dict[str, Any], lang: str) -> None:
    attack, move, slots = WORDS[lang]
    html = _page(alice, ids, lang)
    kinds = set(re.findall(r'<li class="[^"]*"><strong>([^<]*)</strong>', html))
    assert {attack, move} <= kinds
    badges = re.findall(r'<span class="badge" data-slot="([a-z-]+)">([^<]*) (\d+)</span>', html)
    assert badges, "no Actions left badges on the open round"
    shown = {code: word for code, word, _n in badges}
    assert shown == dict(zip(("combat", "move", "free"), slots, strict=True))
    if lang != "en":
        # the raw codes are gone: neither the "combat 0" badge text nor a bare <strong>attack</strong>
        assert not re.search(r">(?:combat|move|free) \d+<", html)
        assert "<strong>attack</strong>" not in html and "<strong>move</strong>" not in html


def test_action_forms_show_words_and_post_codes(alice: Any, ids: dict[str, Any]) -> None:
    """The correction and add forms' kind list: the option values stay the codes the
    routes read (:func:`pbp.panel.overrides.judge_action`), the text is the word."""
    _page(alice, ids, "pt")
    did = ids["declarations"][0]
    add = alice.get(f"/encounters/{ids['encounter']}/form/add?id={did}").text
    options = dict(re.findall(r'<option value="([a-z-]+)"(?: selected)?>([^<]*)</option>', add))
    assert {k.value for k in ActionKind} <= set(options)
    assert options["attack"] == "ataque" and options["cast"] == "conjuração"
    assert options["full-round"] == "ação completa" and options["bonus"] == "ação bônus"
    assert '<option value="attack" selected>ataque</option>' in add
    judge = alice.get(f"/encounters/{ids['encounter']}/form/action?id={did}&index=0").text
    assert re.search(r'<option value="attack" selected>ataque</option>', judge)
    # a correction posted from this form still carries the code
    r = alice.post(f"/encounters/{ids['encounter']}/override/action",
                   {"declaration_id": did, "index": 0, "verdict": "correct", "kind": "move",
                    "target": "", "reason": "he only walks"})
    assert r.status_code in (302, 303)
    audit = alice.get(f"/encounters/{ids['encounter']}").text.split('id="audit"')[1]
    assert re.search(r"ataque → goblin-\d → movimento", audit)   # the audit says it in words too


def test_audit_action_is_said_in_words(app: Any) -> None:
    with app.test_request_context(), force_locale("pt"):
        assert audit_words._action({"kind": "attack", "target": "goblin-2"}) == "ataque → goblin-2"
    with app.test_request_context(), force_locale("ru"):
        assert audit_words._action({"kind": "quick"}) == "быстрое действие"
    with app.test_request_context(), force_locale("en"):
        assert audit_words._action({"kind": "attack", "target": "goblin-2"}) == "attack → goblin-2"


def test_unknown_code_is_shown_as_itself(app: Any) -> None:
    with app.test_request_context(), force_locale("pt"):
        assert kind_words.kind_word("teleport") == "teleport"
        assert kind_words.kind_word(None) == ""
        assert kind_words.kind_word(ActionKind.ATTACK.value) == "ataque"
        assert kind_words.kind_word(ActionKind.FULL_ROUND) == "ação completa"   # the enum too


def test_every_kind_and_slot_has_a_word() -> None:
    """Every ActionKind, every kind or slot the replies name, and every slot a ruleset's
    budget holds (read from pbp/rules) is in the table: a new one is not left a code."""
    budgets = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "pbp" / "rules").glob("*.py"))
    slots = {k for body in re.findall(r"Budget\(\{(.*?)\}", budgets, re.S)
             for k in re.findall(r'"([a-z-]+)":', body)}
    assert {"combat", "extra-attack", "interaction"} <= slots   # the scan reads them
    assert {k.value for k in ActionKind} | set(messages.ACTION_KINDS) | slots <= set(kind_words.WORDS)
