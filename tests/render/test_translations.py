"""One source of truth for what players read: every English message id (the engine's event
sentences by code and their variants, refusal reasons, condition and other words, action
kinds, and the replies' own texts) has a non-empty Portuguese and Russian translation in
the committed catalogs, with the same ``{placeholders}``; replies and ``pbp bench --lang``
say an event the same way."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbp.cli import cli
from pbp.render import EventLine, event_sentence, event_text
from pbp.render.catalog import load, message_ids, split
from pbp.rules import messages

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LANGS = ("pt", "ru")


def _fields(text: str) -> set[str]:
    return set(re.findall(r"{(\w+)}", text))


def _entries() -> list[tuple[str | None, str]]:
    ids = [split(m) for m in message_ids()]
    # the engine's templates must be among them, whatever the catalog tool collects
    wanted = [(None, t) for t in messages.EN.values()] + \
        [(None, t) for t in messages.VARIANTS.values()] + \
        [(None, r) for rs in messages.REASONS.values() for r in rs] + \
        [(None, w) for w in messages.WORDS] + \
        [(None, w) for w in messages.NAMED_CONDITIONS.values()] + \
        [(messages.KIND_CONTEXT, k) for k in messages.ACTION_KINDS]
    return ids + [w for w in wanted if w not in ids]


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_id_is_translated_with_the_same_placeholders(lang: str) -> None:
    cat = load(lang)
    problems = []
    for context, msgid in _entries():
        msg = cat.get(msgid, context=context)
        # a plural (STALL-3's counts): every form of the language, each with the ids' fields
        ids = msgid if isinstance(msgid, tuple) else (msgid,)
        forms = msg.string if msg is not None and isinstance(msg.string, tuple) else (
            (msg.string,) if msg is not None else ("",))
        if msg is None or not all((f or "").strip() for f in forms):
            problems.append(f"untranslated: {context or ''}|{msgid}")
        elif any(_fields(f) != _fields(i) for f in forms for i in ids):
            problems.append(f"placeholders differ: {msgid!r} -> {msg.string!r}")
    assert problems == [], f"{lang}:\n" + "\n".join(problems)


def test_every_event_code_has_an_english_template_and_its_variants_are_reachable() -> None:
    for code, text in messages.EN.items():
        assert messages.template(code, {}) is not None, code
        assert text.strip(), code
    for key in messages.VARIANTS:
        assert key.split("/")[0] in messages.EN, key


@pytest.mark.parametrize("code, params, ru", [
    ("surprise", {"surprised": ["gob"]}, "Захвачены врасплох: Goblin."),
    ("opposed.won", {"total": 4, "opposed": 9}, "против 4"),
    ("wear", {"resistance": "will", "amount": 3, "die_before": 8, "wear_before": 0,
              "die_after": 6, "wear_after": 1, "steps": 1, "broken": False}, "Воля d8"),
    ("action.noted", {"kind": "quick", "text": "x"}, "«быстрое»"),
    ("condition.added", {"condition": "far:gob"}, "«далеко от Goblin»"),
    ("action.rejected", {"problem": "budget.exceeded", "slot": "bonus", "reason": "no"},
     "«бонусное»"),
])
def test_new_rulesets_events_are_said_in_russian(code: str, params: dict, ru: str) -> None:
    names = {"ana": "Ana", "gob": "Goblin"}
    text = event_sentence(code, params, "ru", names, actor="ana", target="gob")
    assert ru in text
    assert not re.search(r"\b(the|and|against|wear|steps)\b", text), text


def test_english_keeps_the_engines_specific_reason() -> None:
    line = EventLine("action.rejected", {"problem": "surprised", "reason": "Ana is surprised: x"},
                     actor="ana")
    assert event_text(line, "en", {"ana": "Ana"}) == "Ana: Ana is surprised: x"
    assert "захвачен врасплох" in event_text(line, "ru", {"ana": "Ana"})


#: reasons a ruleset builds in English with no problem code to say them by (left as they are)
UNCODED = ("a second object interaction costs",)


@pytest.mark.parametrize("rid", ["dnd5e", "resistance", "two-action"])
def test_bench_says_the_new_rulesets_in_portuguese_and_russian(rid: str) -> None:
    runner = CliRunner()
    english = runner.invoke(cli, ["bench", str(EXAMPLES / f"{rid}.yaml")]).stdout.splitlines()
    for lang in LANGS:
        result = runner.invoke(cli, ["bench", str(EXAMPLES / f"{rid}.yaml"), "--lang", lang])
        assert result.exit_code == 0, result.output
        said = result.stdout.splitlines()
        assert len(said) == len(english)
        same = [s for s, e in zip(said, english, strict=True)
                if s == e and s.startswith("  ") and not s.startswith("      ")
                and not s.startswith("  HP:") and not any(u in s for u in UNCODED)]
        assert same == [], f"{rid} {lang}: still English: {same}"
        assert "?" not in "\n".join(s for s in said if not s.startswith("      "))
