"""Issue 11 item 7: replies players can check. Every sum a reply shows is recomputed here
from the parts it shows (the dice faces, each named modifier, the multiplier, what was
subtracted, the minimum) and must reach the total the engine reached, in the three
languages and both markups.

The recomputation is this file's own reading of the printed text, not the renderer's:
a dice group ``2d20kh1 (15, 15)`` is its kept faces, a term is ``+ N name``, a chain
``a = b = c`` must agree link by link, ``(...) × m`` multiplies, ``x → f (minimum f)``
raises to the minimum.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pbp.render import EventLine, ReplyView, event_text, render_reply
from pbp.render.arithmetic import damage, shown_rolls, with_mods

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = ROOT / "tests" / "rounds" / "expected"
RULESETS = ("forum-d20", "beyonders", "dnd5e", "resistance", "two-action")
DICE = re.compile(r"^(\d*)d(\d+)(?:k([hl])(\d+))?\s*\(([^)]*)\)")
OPERATOR = re.compile(r"\s([+-])\s")


def _top_split(text: str, sep: str) -> list[str]:
    """*text* split on *sep* outside parentheses."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and text.startswith(sep, i):
            out.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    out.append(text[start:])
    return out


def _term(term: str) -> tuple[int, int]:
    """(the value written first, the value it stands for): a narrator's ``-> n`` replaces it."""
    term = term.strip()
    if (m := DICE.match(term)) is not None:
        faces = [int(f) for f in m[5].split(",")]
        if m[3]:
            keep = int(m[4])
            faces = sorted(faces, reverse=m[3] == "h")[:keep]
        value = sum(faces)
    else:
        value = int(re.match(r"-?\d+", term)[0])  # type: ignore[index]
    narrator = re.search(r"-> (-?\d+) \(narrator\)", term)
    return value, int(narrator[1]) if narrator else value


def value(expr: str) -> tuple[int, int]:
    """(leading value, value) of one link of a chain."""
    expr = expr.strip()
    if "→" in expr:   # raised to a minimum: "x → f (minimum f)"
        left, right = expr.split("→")
        lead, got = value(left)
        floor = int(re.match(r"\s*(-?\d+)", right)[1])  # type: ignore[index]
        assert f"{floor}" in right.split("(", 1)[1], expr
        assert got < floor, expr
        return lead, floor
    if expr.startswith("(") and ") × " in expr:
        close = expr.rindex(") × ")
        inner = chain(expr[1:close])
        lead = _term(expr[1:close])[0]
        rest = expr[close + 4:]
        times, _ = _term(rest)
        total = inner * times
        for sign, term in _terms(rest)[1:]:
            total += sign * _term(term)[1]
        return lead, total
    if " × " in expr:
        head, rest = expr.split(" × ", 1)
        lead, base = _term(head)
        parts = _terms(rest)
        total = base * _term(parts[0][1])[1]
        for sign, term in parts[1:]:
            total += sign * _term(term)[1]
        return lead, total
    parts = _terms(expr)
    lead, total = _term(parts[0][1])
    for sign, term in parts[1:]:
        total += sign * _term(term)[1]
    return lead, total


def _terms(expr: str) -> list[tuple[int, str]]:
    pieces = OPERATOR.split(" " + expr.strip())
    out = [(1, pieces[0])]
    for sign, term in zip(pieces[1::2], pieces[2::2], strict=True):
        out.append((1 if sign == "+" else -1, term))
    return out


def chain(text: str) -> int:
    """The value a shown sum reaches, every ``=`` checked against the link after it."""
    links = _top_split(text, " = ")
    got = value(links[0])[1]
    for link in links[1:]:
        lead, nxt = value(link)
        assert lead == got, f"{text!r}: {got} is shown as {lead}"
        got = nxt
    return got


def test_the_checker_reads_sums_the_way_a_player_would() -> None:
    assert chain("1d20 (19) = 19 + 3 Fortitude + 10 armor = 32") == 32
    assert chain("2d20kh1 (15, 9) = 15 + 4 Dex - 2 flat-footed (feint) (FD-14) = 17") == 17
    assert chain("(1d6 (5) = 5 + 2 half level (FD-7) + 2 Str modifier) × 2 = 18") == 18
    assert chain("1d4 (1) = 1 - 5 reduction = -4 → 1 (minimum 1)") == 1
    assert chain("1d20 (12) = 12 -> 15 (narrator) + 3 armor = 18") == 18
    with pytest.raises(AssertionError):
        chain("1d20 (19) = 19 + 3 Fortitude = 23")


def _events(rid: str) -> list[tuple[EventLine, dict]]:
    data = json.loads((ROOT / "examples" / f"{rid}.events.json").read_text(encoding="utf-8"))
    out = []
    for rnd in data["rounds"]:
        for e in rnd["events"]:
            out.append((EventLine(e["code"], e["params"], e["rule"],
                                  tuple(r["breakdown"] for r in e["rolls"])), e))
    return out


#: which engine total each roll of an event stands for, by the params the engine gave
def _stated(ev: EventLine, index: int) -> int | None:
    p = ev.params
    if ev.code == "damage":
        return p["amount"] if index == 0 else None
    for key, total, at in (("mods", "total", 0), ("opposed_mods", "opposed", 1),
                           ("dc_mods", "dc", 0), ("resist_mods", "total", 1),
                           ("defense_mods", "defense", 1)):
        if key in p and at == index:
            return p[total]
    return None


@pytest.mark.parametrize("lang", ["en", "pt", "ru"])
@pytest.mark.parametrize("rid", RULESETS)
def test_every_shown_sum_reaches_the_engines_total(rid: str, lang: str) -> None:
    """issue 11 item 7: recompute each shown total from its shown parts; where the engine
    named the parts, the sum printed is the engine's total (attack, defense, damage)."""
    named = 0
    for ev, raw in _events(rid):
        for i, text in enumerate(shown_rolls(ev, lang)):
            got = chain(text.split(": ", 1)[1] if text.startswith(("defense", "defesa", "защита"))
                        else text)
            want = _stated(ev, i)
            if i < len(raw["rolls"]) and text == raw["rolls"][i]["breakdown"]:
                continue   # shown as rolled: nothing was added to it
            named += 1
            if want is not None:
                assert got == want, (rid, ev.code, text)
    assert named or rid in ("resistance", "two-action"), rid


def test_forum_d20_names_every_part_of_its_sums() -> None:
    """FD-3/FD-4/FD-7/FD-9: skill, armor, situational modifiers, half level, ability
    modifier and the critical multiplier all appear by name."""
    said = [t for ev, _ in _events("forum-d20") for t in shown_rolls(ev, "en")]
    assert "1d20 (3) = 3 + 2 reflexos + 3 armor = 8" in said
    assert "1d20 (16) = 16 + 6 pontaria - 4 shooting into melee (FD-11) = 18" in said
    assert "1d10 (6) = 6 + 2 half level + 3 Dex modifier = 11" in said
    assert "(1d6 (5) = 5 + 2 half level (FD-7) + 2 Str modifier (FD-7)) × 2 = 18" in said


def test_a_static_defense_is_summed_from_its_parts() -> None:
    """BEY-13: a defense nobody rolled is shown as base + armor + Dex + Dodge."""
    said = [t for ev, _ in _events("beyonders") for t in shown_rolls(ev, "pt")]
    assert "defesa: 10 base + 3 Des + 3 Esquiva = 16" in said


def test_damage_itemised_with_reduction_and_minimum() -> None:
    """FD-19 reduction subtracted by name, FD-7 minimum damage said, in each language."""
    params = {"amount": 1, "parts": [{"value": 2, "reason": "str_mod", "rule": "FD-7"}],
              "reduction": [{"value": 5, "reason": "reduction", "rule": "FD-19"}], "floor": 1}
    assert damage("1d4 (1) = 1", params, "en", "FD-7") == \
        "1d4 (1) = 1 + 2 Str modifier - 5 reduction (FD-19) = -2 → 1 (minimum 1)"
    assert damage("1d4 (1) = 1", params, "pt", "FD-7") == \
        "1d4 (1) = 1 + 2 mod. de Força - 5 redução (FD-19) = -2 → 1 (mínimo 1)"
    assert damage("1d4 (1) = 1", params, "ru", "FD-7") == \
        "1d4 (1) = 1 + 2 мод. Силы - 5 снижение (FD-19) = -2 → 1 (минимум 1)"
    assert chain(damage("1d4 (1) = 1", params, "en", "FD-7")) == 1
    crit = {"amount": 17, "parts": [{"value": 5, "reason": "str_mod"}], "multiplier": 2,
            "multiply_bonuses": False}
    assert damage("1d6 (6) = 6", crit, "en", "FD-9") == "1d6 (6) = 6 × 2 + 5 Str modifier = 17"


def test_a_sum_that_does_not_add_up_is_never_shown() -> None:
    """A total the parts do not reach (a narrator's total the event did not follow) keeps
    the roll as rolled instead of printing wrong arithmetic."""
    mods = [{"value": 3, "reason": "fortitude"}]
    assert with_mods("1d20 (19) = 19", mods, 25, "en", None) == "1d20 (19) = 19"
    assert with_mods("1d20 (19) = 19 -> 12 (narrator)", mods, 15, "en", None) == \
        "1d20 (19) = 19 -> 12 (narrator) + 3 fortitude = 15"
    assert damage("1d8 (5) = 5", {"amount": 9, "parts": mods}, "en", None) == "1d8 (5) = 5"


@pytest.mark.parametrize("path", sorted(EXPECTED.glob("*.txt")), ids=lambda p: p.name)
def test_every_sum_in_the_rendered_thread_replies_adds_up(path: Path) -> None:
    """issue 11 item 7 on the committed replies (pt/ru/en, BBCode and Markdown): every roll
    after the em dash recomputes to the total it prints, and the modifiers are there."""
    text = path.read_text(encoding="utf-8").replace("\\-", "-").replace("\\>", ">")
    sums = [s for line in text.splitlines() if " — " in line and "=" in line
            for s in line.split(" — ", 1)[1].split("; ")]
    assert len(sums) >= 10
    for s in sums:
        chain(s.strip())
    named = [s for s in sums if s.count(" = ") >= 2]
    assert len(named) >= 8, path.name


@pytest.mark.parametrize("platform, escaped", [("bbcode", "[\u200bb]x[\u200b/b] *y*"),
                                               ("markdown", "\\[b\\]x\\[/b\\] \\*y\\*")])
def test_names_are_escaped_for_the_platform(platform: str, escaped: str) -> None:
    """A sheet's own modifier name is the narrator's text: it reaches the reply escaped."""
    line = EventLine("defense.rolled", {"kind": "will", "total": 8,
                                        "mods": [{"value": 4, "reason": "[b]x[/b] *y*"}]},
                     "FD-4", ("1d20 (4) = 4",), actor="a", target="b")
    view = ReplyView(kind="resolution", platform=platform, language="en", timezone="UTC",
                     encounter="E", round_number=1, header=[line], names={"a": "A", "b": "B"})
    out = render_reply(view)
    assert "1d20 (4) = 4 + 4" in out and "= 8" in out
    assert f"1d20 (4) = 4 + 4 {escaped} = 8" in out
    assert event_text(line, "en", {"a": "A"}).endswith("1d20 (4) = 4 + 4 [b]x[/b] *y* = 8")
