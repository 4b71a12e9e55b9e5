"""Roll tags written inside prose: every BBCode dialect and the inline ``[[...]]``.

Forms read (any letter case):

=========================  ==========  ==========================================
written                    syntax      label
=========================  ==========  ==========================================
``[roll]1d20+5[/roll]``    ``[roll]``  none, or ``{Fire}`` before the expression,
                                       or words after it (``1d20+5 ataque``)
``[roll=Ataque]..[/roll]`` ``[roll=]`` ``Ataque``
``[dice]..[/dice]``        ``[dice]``
``[DICE=Title]..[/DICE]``  ``[dice=]`` ``Title``; ``label="Attack Roll"`` too
``[roll 2d6]``             ``[roll ]`` self-closing
``[dice 10d6>=3]``         ``[dice ]`` self-closing
``[[1d20+5 adv]]``         ``[[]]``    ``adv``/``dis`` (and pt/ru words) set advantage
``[roll hidden]..[/roll]`` ``[roll h]`` a secret roll (DICE-2); ``[roll oculto]``,
                                       ``[dice скрыто]``: the hidden words of the
                                       post's lexicon or English
=========================  ==========  ==========================================

One regular expression with bounded repetitions finds heads, closes and inline tags;
a small state machine pairs them. Every match is O(1) work, so a post of 20,000
unclosed ``[roll]`` tags is read in linear time (a lazy ``(.*?)`` takes seconds).

:func:`read_expression` tells a tag's expression from its label with d20's own grammar
(:func:`pbp.dice.expression_end`): ``1d20+Dex ataque`` -> ``1d20+Dex`` and ``ataque``;
Cyrillic ``к`` (``1к20``) reads as ``d``; stat names after an operator are operands (the
engine substitutes them); the limits of :mod:`pbp.dice` are checked here so that a dice
bomb is reported, never rolled.

>>> read_expression("1d20+Dex ataque")
Expr(expression='1d20+Dex', rest='ataque', problem=None, detail=None)
>>> read_expression("1к20 + 3").expression
'1d20 + 3'
>>> read_expression("999999d6").problem
'dice.too_many'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from .. import dice
from ..errors import DiceError
from .lexicon import Lexicon, get
from .model import IssueList

_TAG = re.compile(
    r"\[\[(?P<inline>[^\[\]\n]{0,300})\]\]"
    r"|\[(?P<close>/)?(?P<name>roll|dice)"
    r"(?:=(?P<arg>[^\[\]\n]{0,200})|[ \t]+(?P<short>[^\[\]\n]{0,300}))?\]"
    r"|(?P<broken>\[/?(?:roll|dice)(?!\w))",
    re.IGNORECASE,
)
# formatting markup ([b], [color=red], [url="..."]): blanked so that its words and quotes are
# never read as prose or speech; what it wraps stays
_FORMAT = re.compile(r"\[/?(?:b|i|u|s|em|strong|color|colour|size|font|url|img|center|left|right|"
                     r"align|justify|indent|list|li|\*|sup|sub|strike|highlight|table|tr|td|th|"
                     r"youtube|media|user|mention|icon|abbr|anchor|h[1-6]|hr)"
                     r"(?:[= ][^\[\]\n]{0,300})?\]", re.IGNORECASE)
_BRACE_LABEL = re.compile(r"\s*\{([^{}\n]{0,100})\}\s*")
_LABEL_KV = re.compile(r"""^\s*(?:label|title|name)\s*=\s*["“']?(.*?)["”']?\s*$""", re.IGNORECASE)


@dataclass
class FoundRoll:
    expression: str
    label: str | None
    syntax: str
    position: int
    end: int
    text: str
    advantage: int = 0
    hidden: bool = False


@dataclass(slots=True, init=False)
class TagScan:
    rolls: list[FoundRoll]
    spans: list[tuple[int, int]]        # every tag, to mask later
    issues: IssueList

    def __init__(self) -> None:         # plain lists: cheaper than dataclass default factories
        self.rolls, self.spans, self.issues = [], [], IssueList()


#: The result for a post with no tag (shared: never mutate a scan result).
EMPTY = TagScan()


def _unquote(s: str) -> str:
    s = s.strip()
    if len(s) >= 2 and s[0] in "\"'“«" and s[-1] in "\"'”»":
        s = s[1:-1].strip()
    return s


def _arg_label(arg: str) -> str | None:
    kv = _LABEL_KV.match(arg) if "=" in arg else None
    label = kv.group(1) if kv else _unquote(arg)
    return label or None


def split_advantage(words: str, lex: Lexicon) -> tuple[int, str]:
    """Pull ``adv``/``dis`` words (any language of *lex*) out of trailing *words*."""
    if not words:
        return 0, words
    adv = 0
    kept = []
    for w in words.split():
        f = lex.fold(w.strip(".,;:!()"))
        if f in lex.advantage:
            adv = 1
        elif f in lex.disadvantage:
            adv = -1
        else:
            kept.append(w)
    return adv, " ".join(kept)


def read_content(content: str, label: str | None, lex: Lexicon,
                 *, inline: bool = False) -> tuple[FoundRoll | None, str | None, dict[str, object]]:
    """Read what is inside a tag: ``{Label}``, the expression, trailing label words."""
    text = content
    m = _BRACE_LABEL.match(text)
    if m:
        label = label or (m.group(1).strip() or None)
        text = text[m.end():]
    if not text.strip():
        return None, "tag.empty", {}
    adv = 0
    if inline:  # [[adv 1d20+5]]
        first, _, after = text.strip().partition(" ")
        a, left = split_advantage(first, lex)
        if a and not left:
            adv, text = a, after
    expr = read_expression(text)
    if expr.problem:
        return None, *refused(expr, text)
    rest = expr.rest
    if rest[:1] in ("+", "-", "*", "/", "(", ")", "×"):
        return None, "dice.syntax", {"text": text.strip()[:60]}
    a, rest = split_advantage(rest, lex)
    adv = adv or a
    rest = rest.lstrip("#:—–- ").strip()
    if rest and not label:
        label = rest
    assert expr.expression is not None
    return FoundRoll(expr.expression, label, "", 0, 0, content, adv), None, {}


def refused(expr: Expr, text: str) -> tuple[str, dict[str, object]]:
    """The issue of a roll tag or command whose expression *text* was not read: its code
    and every value its message names. Why one place: a message missing a value is shown
    to the player with its ``{limit}`` unfilled, and each caller used to pass its own."""
    shown = text.strip()
    problem = expr.problem or "dice.syntax"
    return problem, {"text": shortened(shown), "length": len(shown),
                     "limit": _LIMITS.get(problem, 0), "detail": expr.detail}


def shortened(text: str, most: int = 60) -> str:
    """*text* as a message quotes it: its first *most* characters, then an ellipsis."""
    return text[:most] + ("…" if len(text) > most else "")


#: the limit a refused expression went past, named in its message
_LIMITS = {"dice.too_long": dice.MAX_EXPRESSION_LENGTH, "dice.too_many": dice.MAX_DICE,
           "dice.too_many_terms": dice.MAX_TERMS}


def scan(text: str, lex: Lexicon) -> TagScan:
    """Every roll tag of *text* (already masked), and every problem with one."""
    if "[" not in text:
        return EMPTY
    out = TagScan()
    open_m: re.Match[str] | None = None
    open_hidden = False
    for m in _TAG.finditer(text):
        pos = m.start()
        inline, close, name_, _arg, short, broken = m.groups()
        if inline is not None:
            out.spans.append(m.span())
            _add(out, text, inline, None, "[[]]", pos, m.end(), lex, inline=True)
            continue
        if broken is not None:
            snippet = text[pos:pos + 30].split("\n", 1)[0]
            out.issues.append(("tag.malformed", pos, {"text": snippet}))
            out.spans.append(m.span())
            continue
        name = name_.lower()
        if close:
            if open_m is None:
                out.spans.append(m.span())
                out.issues.append(("tag.stray_close", pos, {"tag": name}))
                continue
            head_end = open_m.end()
            out.spans.append((head_end, m.end()))          # the content and the close tag
            open_name = open_m.group("name").lower()
            if open_name != name:
                out.issues.append(("tag.mismatch", open_m.start(), {"tag": open_name, "other": name}))
            else:
                arg = open_m.group("arg")
                label = _arg_label(arg) if arg is not None else None
                syntax = f"[{name}=]" if arg is not None else f"[{name}]"
                if open_hidden:
                    syntax = f"[{name} h]"
                _add(out, text, text[head_end:pos], label, syntax, open_m.start(), m.end(), lex,
                     hidden=open_hidden)
            open_m = None
            continue
        if short is not None and is_hidden_word(short, lex):   # [roll hidden]...[/roll]
            out.spans.append(m.span())
            if open_m is not None:
                out.issues.append(("tag.unclosed", open_m.start(), {"tag": open_m.group("name")}))
            open_m, open_hidden = m, True
            continue
        if short is not None:
            out.spans.append(m.span())
            _add(out, text, short, None, f"[{name} ]", pos, m.end(), lex)
            continue
        out.spans.append(m.span())
        if open_m is not None:
            out.issues.append(("tag.unclosed", open_m.start(), {"tag": open_m.group("name")}))
        open_m, open_hidden = m, False
    if open_m is not None:
        out.issues.append(("tag.unclosed", open_m.start(), {"tag": open_m.group("name")}))
    out.spans.extend(map(re.Match.span, _FORMAT.finditer(text)))
    return out


_READ_CACHE: dict[tuple[str, str | None, bool, str], tuple[FoundRoll | None, str | None,
                                                             dict[str, object]]] = {}


def is_hidden_word(word: str, lex: Lexicon) -> bool:
    """Whether *word* asks for a secret roll (DICE-2) in the post's language or English.

    >>> from .lexicon import get
    >>> is_hidden_word(" Oculto", get("pt")), is_hidden_word("hidden", get("ru")), is_hidden_word("2d6", get("en"))
    (True, True, False)
    """
    folded = lex.fold(word.strip())
    return folded in lex.hidden or folded in get("en").hidden


def _add(out: TagScan, text: str, content: str, label: str | None, syntax: str, pos: int,
         end: int, lex: Lexicon, *, inline: bool = False, hidden: bool = False) -> None:
    if len(content) > SCAN_LIMIT * 4:
        out.issues.append(("dice.too_long", pos, {"length": len(content), "limit": _LIMITS["dice.too_long"]}))
        return
    key = (content, label, inline, lex.lang)
    cached = _READ_CACHE.get(key)
    if cached is None:
        if len(_READ_CACHE) > 20_000:
            _READ_CACHE.clear()
        cached = _READ_CACHE[key] = read_content(content, label, lex, inline=inline)
    found, problem, params = cached
    if found is None:
        params = dict(params)
        params.setdefault("text", content.strip()[:60])
        out.issues.append((problem or "dice.syntax", pos, params))
        return
    # the cache holds a template: each tag gets its own copy
    out.rolls.append(FoundRoll(found.expression, found.label, syntax, pos, end, found.text,
                               found.advantage, hidden))


# --- the expression at the start of a tag or a command -------------------------------------

#: Longest text examined for one expression.
SCAN_LIMIT = dice.MAX_EXPRESSION_LENGTH + 64
# what an expression is made of; anything else ends it (d20 reads annotations, sets and
# decimals, which a post's roll never meant: "1d20+5, ataque" is labelled "ataque")
_STOP = re.compile(r"[^\w\s+\-*/×−–<>=()%]|_")
_PIECE = re.compile(r"(?P<dice>\d{0,9}[dDкК](?:\d{1,9}|%|[fF](?![^\W\d_]))"
                    r"(?:(?:kh|kl|ph|pl|rr|ro|ra|mi|ma|k|p|e|r)[<>]?\d{1,9})*)"
                    r"|(?P<word>[^\W\d_]{1,40})|(?P<op>[-+*/×−–(])|(?P<value>\d{1,12})"
                    r"|(?P<close>\))|(?P<cmp>[<>]=?|=)|\s+|.")
_OPS = str.maketrans({"×": "*", "−": "-", "–": "-"})
_DICE = re.compile(r"(\d*)[dDкК](\d+|%|[fF])")


class Expr(NamedTuple):
    """The expression read (d20 notation), what followed it, and a problem code if any."""

    expression: str | None
    rest: str
    problem: str | None = None
    detail: str | None = None


_CACHE: dict[tuple[str, bool], Expr] = {}


def read_expression(text: str, *, allow_leading_word: bool = False) -> Expr:
    """Read the expression at the start of *text* (leading spaces skipped); cached, since
    the same few expressions come back in every round. A stat name opens it only with
    *allow_leading_word* (``.ri =Dex+1d20``)."""
    if len(text) > 2 * SCAN_LIMIT:
        return _read_expression(text, allow_leading_word)
    key = (text, allow_leading_word)
    hit = _CACHE.get(key)
    if hit is None:
        if len(_CACHE) > 20_000:
            _CACHE.clear()
        hit = _CACHE[key] = _read_expression(text, allow_leading_word)
    return hit


def _read_expression(text: str, allow_leading_word: bool) -> Expr:
    stripped = text.lstrip()
    if len(stripped) > SCAN_LIMIT and _looks_like_one_expression(stripped):
        return Expr(None, text, "dice.too_long", str(len(stripped)))
    head = stripped[:SCAN_LIMIT]
    stop = _STOP.search(head)
    if stop is not None:
        head = head[:stop.start()]
    shown, probe, values, bounds = _operands(head, allow_leading_word)
    end = dice.expression_end(probe)
    expression = " ".join(shown[:end].split())
    if not end or end not in bounds or not any(at < end for at in values):  # "4dF": d20 reads "4"
        return Expr(None, text, "dice.syntax")
    rest = stripped[end:].strip()
    problem, detail = _check(expression)
    return Expr(None, rest, problem, detail) if problem else Expr(expression, rest)


def _operands(head: str, allow_leading_word: bool) -> tuple[str, str, list[int], set[int]]:
    """*head* in d20's spelling (``к`` -> ``d``, ``×`` -> ``*``) up to where two operands
    meet without an operator; the same with each stat name that stands as an operand
    replaced by zeros of its length, for d20 to parse; where its dice and numbers start
    (an expression of stat names alone is not a roll); where its pieces end."""
    shown: list[str] = []
    probe: list[str] = []
    values: list[int] = []
    bounds = {0}
    expect, operands, compared, at = True, 0, False, 0
    for m in _PIECE.finditer(head):
        piece, kind = m.group(), m.lastgroup
        operand = kind in ("dice", "value", "word")
        if operand and not expect and kind != "close":
            break
        if kind == "dice":
            piece = _DICE.sub(lambda d: f"{d.group(1)}d{d.group(2)}", piece, count=1)
        elif kind == "op":
            piece = piece.translate(_OPS)
        spoken = piece
        if kind == "word":
            if operands or allow_leading_word:
                spoken = "0" * len(piece)
        elif operand and not compared:
            values.append(at)
        if operand:
            operands += 1
            expect = False
        elif kind == "op":
            expect = True
        elif kind == "cmp":
            compared, expect = True, True
        shown.append(piece)
        probe.append(spoken)
        at += len(piece)
        bounds.add(at)
    return "".join(shown), "".join(probe), values, bounds


def _looks_like_one_expression(text: str) -> bool:
    head = text[:SCAN_LIMIT]
    return not any(ch.isspace() for ch in head) or head.count(" ") * 8 < len(head)


def _check(expression: str) -> tuple[str | None, str | None]:
    if len(expression) > dice.MAX_EXPRESSION_LENGTH:
        return "dice.too_long", str(len(expression))
    if dice.nesting(expression) > dice.MAX_NESTING:
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
        # a refusal the lexicon words itself is said in the post's language, not the dice's English
        if exc.code == "dice.too_many_terms":
            return exc.code, None
        return "dice.invalid", exc.message
    return None, None
