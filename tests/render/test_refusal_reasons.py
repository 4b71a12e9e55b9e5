"""Every refusal the engine can make is said in the campaign's language: each problem code
a ruleset writes (``Problem("code", ...)``, ``problem="code"``, found by reading pbp/rules)
has a translatable reason in :data:`pbp.rules.messages.REASONS`, else a Portuguese or
Russian reply, and the panel's Violations list, quote the engine's English. FD-18's
unknown condition to inflict was the one left out."""

from __future__ import annotations

import re
from pathlib import Path

from pbp.render import event_sentence
from pbp.rules import messages

RULES = Path(__file__).resolve().parents[2] / "pbp" / "rules"


def _codes() -> set[str]:
    found: set[str] = set()
    for path in RULES.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        found |= set(re.findall(r'(?<![\w.])Problem\(\s*"([a-z][a-z._-]*)"', text))
        found |= set(re.findall(r'\bproblem="([a-z][a-z._-]*)"', text))
    return found


def test_every_problem_code_of_the_rules_has_a_reason_to_translate() -> None:
    codes = _codes()
    assert {"budget.exceeded", "target.missing", "latency.forfeit"} <= codes   # the scan works
    assert sorted(codes - set(messages.REASONS)) == []


def test_fd_18_an_unknown_condition_to_inflict_is_refused_in_the_campaigns_language() -> None:
    params = {"problem": "inflict.unknown", "name": "sleepy", "action_index": 0,
              "reason": "unknown condition 'sleepy' (known: blinded, ...)"}
    names = {"aria": "Aria"}
    assert event_sentence("action.rejected", params, "pt", names, actor="aria") == \
        "Aria: 'sleepy' não é uma condição deste sistema"
    assert event_sentence("action.rejected", params, "ru", names, actor="aria") == \
        "Aria: «sleepy» — не состояние этой системы"
