"""The only place randomness lives: d20 rolls on a seeded, recorded generator.

Why: d20 (Avrae's dice engine) rolls through the module-level ``random``. We
route it through a context-local generator instead, so that

* a roll is reproducible from ``(seed, index)``: roll number *index* of a round
  whose secret seed is *seed* always shows the same faces, drawn from SHA-256 in
  counter mode so anyone can recompute them once the seed is revealed
  (docs/verifiable-dice.md; ``pbp verify`` relies on it);
* tests and ``pbp bench --dice 19,4,12`` can force the next faces, then fall back to
  the seeded generator;
* nothing else in the process is affected (the proxy is installed once, and a
  roll outside a :class:`DiceBox` uses a fresh OS-seeded generator).

Limits are enforced before d20 ever sees the text: a bounded length and
nesting (d20 recurses and raises ``RecursionError`` near 500 terms), no 0-sided
dice, and at most 1,000 dice (d20's own ``TooManyRolls``). Every failure is a
:class:`pbp.errors.DiceError` with a message a player understands, by code
(:mod:`pbp.dice_errors`), so a reply says it in the campaign's language.

>>> box = DiceBox(seed="s3cret", forced=[19])
>>> r = box.roll("1d20+5")
>>> r.total, r.natural, str(r)
(24, 19, '1d20 (19) + 5 = 24')
"""

from __future__ import annotations

import contextvars
import hashlib
import random as _random
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import d20
import d20.expression as _d20_expression

from .dice_compile import Node, compiled, first_d20
from .dice_errors import refuse
from .dice_stream import FaceStream as _FaceStream
from .frozen import quick_init

#: Longest expression accepted (NOTES.md: 256 characters is plenty for any real roll).
MAX_EXPRESSION_LENGTH = 256
#: Deepest parenthesis nesting accepted.
MAX_NESTING = 20
#: Most terms (numbers, dice, stat names) in one expression.
MAX_TERMS = 60
#: Most dice in one expression, d20's own TooManyRolls limit.
MAX_DICE = 1000

_current: contextvars.ContextVar[_FaceStream | None] = contextvars.ContextVar(
    "pbp_dice_generator", default=None
)


class _RandomProxy:
    """Stands in for the ``random`` module inside d20; delegates to the current generator."""

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        gen = _current.get()
        if gen is None:  # a roll outside any DiceBox: unseeded, never recorded
            return _random.randrange(start, stop, step) if stop is not None else _random.randrange(start)
        return gen.randrange(start, stop, step)


_d20_expression.random = _RandomProxy()


@quick_init
@dataclass(frozen=True)
class Roll:
    """One resolved roll: what was written, what came up, and where it came from.

    ``index`` is the roll's position in its box; with the box's seed it reproduces
    the faces. ``natural`` is the first d20's kept face (for FD-8/FD-9), or None.
    ``breakdown`` is plain text (``1d20 (19) + 5 = 24``) for BBCode and the panel;
    ``markdown`` is kept for stored rolls that carry one; new rolls leave it empty
    (renderers format ``faces`` and ``breakdown`` themselves).
    """

    expression: str
    total: int
    breakdown: str
    faces: tuple[int, ...]
    index: int
    natural: int | None = None
    label: str | None = None
    markdown: str = ""

    def __str__(self) -> str:
        return self.breakdown


_PLAIN = d20.SimpleStringifier()


def commitment(seed: str) -> str:
    """SHA-256 of a round seed, published before the round and checked after it."""
    return hashlib.sha256(seed.encode()).hexdigest()


#: links of an encounter's dice chain by default (DICE-1): rounds it can roll before it is used up
CHAIN_LENGTH = 1000


def chain_link(anchor: str, length: int, position: int) -> str:
    """Link *position* of the chain ending in the secret *anchor* (DICE-1, PROOF.md):
    ``s_L = anchor`` and ``s_(k-1) = sha256(s_k)``, so ``chain_link(a, L, 0)`` is the
    public chain and round *k* rolls with ``chain_link(a, L, k)``. Why hashing backwards:
    each revealed seed proves the next one was fixed when the encounter began, yet says
    nothing about it. ``L - position`` hashes (1,000 take about a millisecond)."""
    if not 0 <= position <= length:
        raise refuse("dice.chain_link", length=length, position=position)
    link = anchor
    for _ in range(length - position):
        link = commitment(link)
    return link
def hidden_seed(key: str, round_number: int, index: int) -> str:
    """The seed of hidden roll *index* of round *round_number* under an encounter's hidden
    key (DICE-2): ``sha256("<key>:<n>:<i>")`` (hex). Its faces are roll 0 of a box seeded
    with it; once the key is published anyone can recompute every hidden roll.

    >>> hidden_seed("k", 1, 0) == hashlib.sha256(b"k:1:0").hexdigest()
    True
    """
    return hashlib.sha256(f"{key}:{round_number}:{index}".encode()).hexdigest()


def seal(seed: str, expression: str) -> str:
    """What a public reply shows of a hidden roll: ``sha256("<h>:<expression>")`` (DICE-2).
    It binds the expression as well as the seed, so a reveal cannot swap either."""
    return hashlib.sha256(f"{seed}:{expression}".encode()).hexdigest()


_DICE_COUNT = re.compile(r"(\d*)\s*d\s*(\d+|%)", re.IGNORECASE)


@lru_cache(maxsize=1024)
def check_expression(expression: str) -> str:
    """Refuse what must never reach d20: too long, too deep, too many terms or dice, d0.

    Returns the stripped expression. Cheap: runs in linear time on the text.
    """
    text = expression.strip()
    if not text:
        raise refuse("dice.empty")
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise refuse("dice.too_long", length=len(text), most=MAX_EXPRESSION_LENGTH)
    deepest = nesting(text)
    if deepest > MAX_NESTING:
        raise refuse("dice.too_deep", depth=deepest, most=MAX_NESTING)
    terms = len(re.findall(r"\d+|[^\W\d_]+", text))
    if terms > MAX_TERMS:
        raise refuse("dice.too_many_terms", terms=terms, most=MAX_TERMS)
    total_dice = 0
    for count, size in _DICE_COUNT.findall(text):
        n = int(count) if count else 1
        if size != "%" and int(size) == 0:
            raise refuse("dice.zero_sided", expression=text)
        total_dice += n
        if total_dice > MAX_DICE:
            raise refuse("dice.too_many", expression=text, most=MAX_DICE)
    return text


def expression_end(text: str, *, tries: int = 8) -> int:
    """How much of the start of *text* d20's grammar reads as one expression, the rest
    being a comment (``1d20+5 ataque`` -> 6): the post parser tells a roll from its label
    with d20's own grammar, never a second one. 0 when no prefix reads (after *tries*
    shortenings at the place d20 stopped)."""
    end = len(text)
    for _ in range(tries):
        head = text[:end]
        if not head.strip():
            return 0
        try:
            parsed = d20.parse(head, allow_comments=True)
        except d20.RollSyntaxError as exc:
            stop = int(exc.col) - 1
            end = stop if 0 < stop < end else end - 1
            continue
        except (d20.RollError, RecursionError):
            return 0
        if parsed.comment:
            return max(0, head.rfind(parsed.comment))
        return end
    return 0


_TOKEN = re.compile(
    r"(?P<dice>\d*d(?:\d+|%)(?:(?:kh|kl|ph|pl|rr|ro|ra|mi|ma|e|k|p)[<>]?\d+)*)"
    r"|(?P<stat>[^\W\d_]+)",
    re.UNICODE | re.IGNORECASE,
)


@lru_cache(maxsize=1024)
def has_stats(expression: str) -> bool:
    """Whether *expression* names a stat (``1d20+Dex``) besides dice and numbers."""
    return any(m.group("stat") for m in _TOKEN.finditer(expression))


def substitute_stats(expression: str, stats: Mapping[str, int],
                     resolve_name: Callable[[str], str | None] | None = None) -> str:
    """Replace stat names (``Dex``, ``Luta``, ``Destreza``, ``Ловкость``) with their values.

    *resolve_name* maps a written name to a key of *stats* (three languages, any case);
    by default an exact, case-insensitive match. An unknown name is a DiceError naming it.
    """
    lowered = {k.casefold(): v for k, v in stats.items()}

    def replace(match: re.Match[str]) -> str:
        if match.group("dice"):
            return match.group(0)
        word = match.group("stat")
        key = resolve_name(word) if resolve_name else word
        value = lowered.get(key.casefold()) if key is not None else None
        if value is None:
            raise refuse("dice.unknown_stat", word=word, expression=expression)
        return f"({int(value)})" if int(value) < 0 else str(int(value))

    return _TOKEN.sub(replace, expression)


@dataclass
class DiceBox:
    """All the rolls of one scope (a round, a bench run), from one secret seed.

    Roll *i* draws its faces from SHA-256 over ``"<seed>:<i>:<block>"``; forced faces, when
    given, are served first in order, across rolls. ``rolls`` records every roll.
    """

    seed: str
    forced: list[int] = field(default_factory=list)
    rolls: list[Roll] = field(default_factory=list)
    start_index: int = 0

    @property
    def next_index(self) -> int:
        return self.start_index + len(self.rolls)

    def roll(self, expression: str, *, label: str | None = None,
             stats: Mapping[str, int] | None = None,
             resolve_name: Callable[[str], str | None] | None = None,
             turn: str | None = None) -> Roll:
        """Roll *expression* (after stat substitution) and record it. *turn* is whose turn
        asks for the roll: the dice ignore it; a box that hands back rolls already made
        (a correction's, pbp.rounds.overrides.ReplayingBox) matches them by it."""
        text, named, plan = _prepared(expression)
        if named:
            text = substitute_stats(text, stats or {}, resolve_name)
            text = check_expression(text)
            plan = compiled(text, MAX_DICE)
        index = self.start_index + len(self.rolls)
        gen = _FaceStream(self.seed, index, self.forced)
        if plan is not None:  # SCALE-6: the common shapes, without d20's object tree
            natural: list[int] = []
            total, shown = plan(gen, natural)
            breakdown = f"{shown} = {total}"
            first = natural[0] if natural else None
        else:
            total, breakdown, first = _roll_with_d20(expression, text, gen)
        roll = Roll(text, total, breakdown, tuple(gen.faces), index, first, label)
        self.rolls.append(roll)
        return roll

    def replay(self, expression: str, index: int) -> Roll:
        """Recompute roll *index* of this seed, without recording it (for ``pbp verify``)."""
        other = DiceBox(seed=self.seed, start_index=index)
        return other.roll(expression)


def _roll_with_d20(expression: str, text: str, gen: _FaceStream) -> tuple[int, str, int | None]:
    """Roll *text* through d20 itself (every shape the fast path leaves out: ``e``, ``ro``,
    ``mi``, sets, ``/``, annotations...), its faces drawn from *gen*."""
    token = _current.set(gen)
    try:
        result = d20.roll(text, allow_comments=False)
        total = int(result.total)  # d20 evaluates lazily: 0/0 fails here, not above
        breakdown = _PLAIN.stringify(result.expr)
    except d20.TooManyRolls:
        raise refuse("dice.too_many", expression=expression, most=MAX_DICE) from None
    except d20.RollSyntaxError as exc:
        raise refuse("dice.syntax", expression=expression, detail=str(exc)) from None
    except d20.RollError as exc:
        raise refuse("dice.unrollable", expression=expression, detail=str(exc)) from None
    except RecursionError:
        raise refuse("dice.recursion", expression=expression) from None
    except (OverflowError, ValueError) as exc:  # 1e308*1e308 and friends
        raise refuse("dice.unrollable", expression=expression, detail=str(exc)) from None
    finally:
        _current.reset(token)
    return total, breakdown, first_d20(result.expr)


@lru_cache(maxsize=1024)
def _prepared(expression: str) -> tuple[str, bool, Node | None]:
    """What :meth:`DiceBox.roll` needs of *expression*, in one cache: the checked text,
    whether it names stats, and (when it does not) its compiled form (SCALE-6).
    Refusals (:class:`DiceError`) are raised again every time, never cached."""
    text = check_expression(expression)
    named = has_stats(text)
    return text, named, None if named else compiled(text, MAX_DICE)


def force_faces(spec: str | Iterable[int]) -> list[int]:
    """Parse ``--dice 19,4,12`` into faces."""
    items = spec.replace(" ", "").split(",") if isinstance(spec, str) else spec
    return [int(x) for x in items if x != ""]


def nesting(text: str) -> int:
    """How deep *text*'s parentheses nest (d20 recurses once per level: its limit is ours)."""
    depth = deepest = 0
    for ch in text:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    return deepest
