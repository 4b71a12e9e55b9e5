"""Read a dice expression at the start of some text, in linear time, without rolling it.

Tags and commands mix an expression with words: ``1d20+5 attack``, ``1d20+Dex``,
``{Fire} 1d20``, ``2d6 + 1d4 fogo``. :func:`read` takes the longest prefix that is a
whole expression (dice, numbers, stat names after an operator, parentheses, one
trailing comparison such as ``>=3``) and leaves the rest as a label. Cyrillic ``к``
(``1к20``) reads as ``d``. Limits are those of :mod:`pbp.dice` and are checked here
so that a dice bomb is reported, never rolled.

>>> read("1d20+Dex ataque")
Expr(expression='1d20+Dex', rest='ataque', problem=None, detail=None)
>>> read("1к20 + 3").expression
'1d20 + 3'
>>> read("999999d6").problem
'dice.too_many'
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .. import dice
from ..errors import DiceError

_TOKEN = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<dice>\d{0,9}[dDкК](?:\d{1,9}|%|[fF](?![^\W\d_]))"
    r"(?:(?:kh|kl|ph|pl|rr|ro|ra|mi|ma|k|p|e|r)[<>]?\d{1,9})*)"
    r"|(?P<num>\d{1,12})"
    r"|(?P<op>[-+*/×−–])"
    r"|(?P<cmp>[<>]=?|=)"
    r"|(?P<lp>\()|(?P<rp>\))"
    r"|(?P<word>[^\W\d_]{1,40})"
)
_OPS = {"×": "*", "−": "-", "–": "-"}
_DICE = re.compile(r"(\d*)[dDкК](\d+|%|[fF])")
#: Longest text examined for one expression.
SCAN_LIMIT = dice.MAX_EXPRESSION_LENGTH + 64


class Expr(NamedTuple):
    """The expression read (d20 notation), what followed it, and a problem code if any."""

    expression: str | None
    rest: str
    problem: str | None = None
    detail: str | None = None


_CACHE: dict[tuple[str, bool], Expr] = {}


def read(text: str, *, allow_leading_word: bool = False) -> Expr:
    """Read the expression at the start of *text* (leading spaces skipped); cached, since
    the same few expressions come back in every round."""
    if len(text) > 2 * SCAN_LIMIT:
        return _read(text, allow_leading_word)
    key = (text, allow_leading_word)
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 20_000:
            _CACHE.clear()
        hit = _CACHE[key] = _read(text, allow_leading_word)
    return hit


def _read(text: str, allow_leading_word: bool) -> Expr:
    stripped = text.lstrip()
    if len(stripped) > SCAN_LIMIT and _looks_like_one_expression(stripped):
        return Expr(None, text, "dice.too_long", str(len(stripped)))
    pos = 0
    depth = deepest = 0
    expect_operand = True
    good_end = 0
    good_parts: list[str] = []
    parts: list[str] = []
    operands = 0
    has_value = False
    compared = False
    n = len(stripped)
    while pos < n and pos < SCAN_LIMIT:
        m = _TOKEN.match(stripped, pos)
        if m is None:
            break
        kind = m.lastgroup
        tok = m.group()
        if kind == "ws":
            parts.append(" ")
            pos = m.end()
            continue
        if expect_operand:
            if kind == "dice":
                tok = _DICE.sub(lambda d: f"{d.group(1)}d{d.group(2)}", tok, count=1)
                has_value = True
            elif kind == "num":
                has_value = True
            elif kind == "word":
                if operands == 0 and not allow_leading_word:
                    break
            elif kind == "lp":
                depth += 1
                deepest = max(deepest, depth)
                parts.append(tok)
                pos = m.end()
                continue
            elif kind == "op" and tok in "+-−–" and parts[-1:] != ["-"]:
                parts.append(_OPS.get(tok, tok))
                pos = m.end()
                continue
            else:
                break
            parts.append(tok)
            operands += 1
            expect_operand = False
        else:
            if kind == "op":
                parts.append(_OPS.get(tok, tok))
                expect_operand = True
                pos = m.end()
                continue
            if kind == "rp" and depth > 0:
                depth -= 1
                parts.append(tok)
            elif kind == "cmp" and not compared and depth == 0:
                nxt = _TOKEN.match(stripped, m.end())
                if nxt is None or nxt.lastgroup != "num":
                    break
                parts.append(tok + nxt.group())
                compared = True
                pos = nxt.end()
                good_end, good_parts = pos, parts[:]
                continue
            else:
                break
        pos = m.end()
        if depth == 0 and not expect_operand:
            good_end, good_parts = pos, parts[:]
    if not good_end or not has_value:
        return Expr(None, text, "dice.syntax")
    expression = "".join(good_parts).strip()
    rest = stripped[good_end:].strip()
    problem, detail = _check(expression, deepest)
    return Expr(expression if problem is None else None, rest, problem, detail) if problem else \
        Expr(expression, rest)


def _looks_like_one_expression(text: str) -> bool:
    head = text[:SCAN_LIMIT]
    return not any(ch.isspace() for ch in head) or head.count(" ") * 8 < len(head)


def _check(expression: str, deepest: int) -> tuple[str | None, str | None]:
    if len(expression) > dice.MAX_EXPRESSION_LENGTH:
        return "dice.too_long", str(len(expression))
    if deepest > dice.MAX_NESTING:
        return "dice.too_deep", None
    total = 0
    for count, size in _DICE.findall(expression):
        if size not in ("%", "f", "F") and int(size) == 0:
            return "dice.zero_sided", None
        total += int(count) if count else 1
        if total > dice.MAX_DICE:
            return "dice.too_many", None
    try:
        dice.check_expression(expression)
    except DiceError as exc:
        return "dice.invalid", exc.message
    return None, None
