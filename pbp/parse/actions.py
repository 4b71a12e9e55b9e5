"""Actions inferred from prose with a verb lexicon (explicit ones: :mod:`.explicit`).

Inference reads the prose that is left once quotes, OOC, tags, commands and speech are
blanked. Each word is looked up in the lexicon (exact form, then snowball stem). A verb
is not a declaration after a negation (``não ataco``), after a strong conditional in its
sentence (``if it moves, I shoot``), after a temporal word in its own clause (``until
it lands``), after a determiner (``a strike``), after an object pronoun that makes
someone else its subject (``o goblin me ataca``), before ``me`` (``it attacks me``),
right after another combatant's name when the actor is known, or right after a readying
verb. Attacks, casts and maneuvers take the first roster name in their clause, else in
their sentence, else the last clear name before them; a move only a name after a
destination word. A name that fits several combatants is reported and the target left
empty, with the candidates attached. docs/parse.md has the whole picture.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, compress
from operator import attrgetter, itemgetter
from typing import Any

from ..rules.model import Action, ActionKind
from .lexicon import Lexicon
from .model import IssueList, declared
from .roster import WORD, Roster

_SPLIT = re.compile(f"({WORD.pattern})").split
_BOUNDARY = re.compile(r"[.!?;…\n]+")
_WEAPON_CONNECT = frozenset(("with", "using", "com", "usando", "c", "w", "с", "используя"))
_TARGET_CONNECT = frozenset(("at", "on", "against", "to", "em", "no", "na", "nos", "nas", "contra",
                             "sobre", "ao", "à", "a", "o", "os", "as", "the", "в", "на", "по",
                             "против", "um", "uma", "an"))
_KIND = {k.value: k for k in ActionKind}
_PREPOSITIONS = frozenset(("к", "в", "на", "по", "до", "ao", "até", "no", "na", "em", "contra",
                           "to", "at", "toward", "towards", "against", "on", "para"))
_TARGETED = (ActionKind.ATTACK, ActionKind.CAST, ActionKind.MANEUVER)
_ARMED = (ActionKind.ATTACK, ActionKind.DEFEND, ActionKind.QUICK, ActionKind.READY,
          ActionKind.MANEUVER)


@dataclass(slots=True, init=False)
class ActionScan:
    actions: list[Action]
    issues: IssueList

    def __init__(self, actions: list[Action] | None = None) -> None:
        self.actions = [] if actions is None else actions
        self.issues = IssueList()


@dataclass(slots=True)
class _Mention:
    i: int
    j: int            # one past the last word
    pos: int
    end: int
    keys: tuple[str, ...]
    text: str


_FIRST = itemgetter(0)
_SECOND = itemgetter(1)
_THIRD = itemgetter(2)
_POS = attrgetter("pos")


def _mentions(plain: Sequence[str], positions: Sequence[int], lex: Lexicon,
              roster: Roster | None, actor: str | None,
              hits: Sequence[tuple[bool, bool]] | None = None,
              mine: list[int] | None = None) -> list[_Mention]:
    """Roster names among the words *plain* (starting at *positions*), longest first;
    the word indices where the actor's own name stands go to *mine* when given."""
    if roster is None:
        return []
    if hits is None:
        hits = roster.start_hits(plain, lex)
    found: list[_Mention] = []
    taken = -1
    # only the words that can begin a name are tried (compress: the scan stays in C)
    for i in compress(range(len(hits)), map(_FIRST, hits)):
        if i <= taken:
            continue
        length, keys = roster.match_at(plain, i, lex)
        if not length:
            continue
        j = i + length
        taken = j - 1
        if actor is not None and keys == (actor,):
            if mine is not None:
                mine.append(i)
            continue
        end = positions[j - 1] + len(plain[j - 1])
        found.append(_Mention(i, j, positions[i], end, keys,
                              plain[i] if length == 1 else " ".join(plain[i:j])))
    return found


def infer(masked: str, lex: Lexicon, roster: Roster | None, actor: str | None,
          out: ActionScan) -> None:
    """Actions inferred from the prose left in *masked*.

    Most words of a post are neither verbs, weapons nor names: the per-word work is a
    cached lookup (:meth:`Lexicon.info`) and C-level filters (``compress``); the rules
    below only run around the few verbs found.
    """
    parts = _SPLIT(masked)          # [gap, word, gap, word, ..., gap]: all at C speed
    plain: list[str] = parts[1::2]
    if not plain:
        return
    infos: list[Any] = list(map(lex._info.get, plain))  # cache hits at C speed; misses below
    if not all(infos):                       # a word not seen before
        info = lex.info
        infos = [inf or info(w) for w, inf in zip(plain, infos, strict=True)]
    verb_at = list(compress(range(len(infos)), map(_FIRST, infos)))
    if not verb_at:
        return
    prose = _Prose(masked, parts, plain, infos, lex, roster, actor)
    for i in verb_at:
        v = prose.verb(i)
        if v is not None:
            prose.keep(v)
    prose.declare(prose.kept, out)


# a kept verb: (word index, verb, kind, confidence, its sentence's start and end)
_Verb = tuple[int, str, str, float, int, int]


class _Prose:
    """The words of the prose, where they are, the names and weapons among them: what the
    steps of :func:`infer` share (built once per post)."""

    def __init__(self, masked: str, parts: list[str], plain: list[str], infos: list[Any],
                 lex: Lexicon, roster: Roster | None, actor: str | None) -> None:
        self.masked, self.plain, self.infos = masked, plain, infos
        self.lex, self.actor = lex, actor
        self.folded: list[str] = list(map(_THIRD, infos))
        self.positions: list[int] = list(accumulate(map(len, parts)))[0:-1:2]
        self.bounds: list[int] = list(map(re.Match.start, _BOUNDARY.finditer(masked)))
        self.mine: list[int] = []                 # word indices of the actor's own name
        generic = [(i, infos[i][1]) for i in compress(range(len(infos)), map(_SECOND, infos))]
        self.mentions, self.weapons = self._names(roster, generic)
        self.mention_pos = list(map(_POS, self.mentions))
        self.weapon_pos = list(map(_FIRST, self.weapons))
        self.kept: list[_Verb] = []

    def _names(self, roster: Roster | None, generic: list[tuple[int, str]]
               ) -> tuple[list[_Mention], list[tuple[int, str]]]:
        """Roster names, and weapons: the sheets' own names, then the lexicon's generic
        words not already inside one (a generic word takes the actor's sheet weapon)."""
        positions, plain, lex = self.positions, self.plain, self.lex
        if roster is None:
            return [], [(positions[i], canon) for i, canon in generic]
        hits = roster.start_hits(plain, lex)
        mentions = _mentions(plain, positions, lex, roster, self.actor, hits, self.mine)
        weapons: list[tuple[int, str]] = []
        taken = -1
        for i in compress(range(len(hits)), map(_SECOND, hits)):
            if i <= taken:
                continue
            length, names = roster.match_at(plain, i, lex, weapons=True)
            if length:
                weapons.append((positions[i], names[0]))
                taken = i + length - 1
        if generic:
            sheet_of = roster.sheet_weapon
            named = {p for p, _ in weapons}
            for i, canon in generic:
                if not named or positions[i] not in named and not any(
                        p <= positions[i] < p + 40 for p in named):
                    weapons.append((positions[i], sheet_of(canon, lex, self.actor) or canon))
            weapons.sort()
        return mentions, weapons

    def sentence(self, pos: int) -> tuple[int, int]:
        bounds = self.bounds
        k = bisect_left(bounds, pos)
        start = bounds[k - 1] if k > 0 else 0
        end = bounds[k] if k < len(bounds) else len(self.masked)
        return start, end

    def verb(self, i: int) -> _Verb | None:
        """The verb at word *i* with its sentence, None when what precedes it in the
        sentence says it is not declared (a determiner, a negation, a condition...)."""
        inf = self.infos[i]                           # (verb hit, weapon, folded, confidence)
        verb, kind = inf[0][0], inf[0][1]
        s_start, s_end = self.sentence(self.positions[i])
        first = bisect_left(self.positions, s_start, 0, i)   # the sentence's first word
        before = self.folded[first:i]
        last_word = before[-1] if before else None
        lex = self.lex
        if last_word in lex.determiners:
            return None                               # "a strike", "nice hit": a noun
        if lex.perfect and not lex.perfect.isdisjoint(before[-2:]):
            return None                               # "had struck": told of before
        if not lex.blockers.isdisjoint(before) and self._blocked(before, first, i):
            return None
        if kind not in ("move", "defend") and last_word in lex.objects_before:
            return None                               # "o goblin me ataca"
        return i, verb, kind, inf[3], s_start, s_end

    def _blocked(self, before: list[str], first: int, i: int) -> bool:
        """A negation, "if" or "when" before the verb in its sentence."""
        lex, plain, pos = self.lex, self.plain, self.positions[i]
        if not lex.negations.isdisjoint(before[-2:]):
            return True                               # "não ataco", "I don't attack"
        if not lex.conditionals.isdisjoint(before) and any(
                p in lex.conditionals and not _reflexive(p, plain, first + k + 1, lex)
                for k, p in enumerate(before)):
            return True                               # "if it moves, I shoot": a trigger
        return not lex.temporals.isdisjoint(before) and any(
            p in lex.temporals and not _clause_break(self.masked, self.positions[first + k], pos)
            for k, p in enumerate(before))            # "until it lands": not declared

    def keep(self, v: _Verb) -> bool:
        """What follows the verb, the name before it and the verb before it: whether the
        verb is the actor's (kept verbs are remembered for the next one)."""
        i, verb, _, _, s_start, s_end = v
        folded, lex, mentions = self.folded, self.lex, self.mentions
        if i + 1 < len(folded) and self.positions[i + 1] < s_end:
            nxt = folded[i + 1]
            if nxt in lex.objects_after or nxt in lex.unless_next.get(verb, ()):
                return False                          # "it attacks me", "ready to"
        if self.actor is not None and mentions:
            k = bisect_left(self.mention_pos, self.positions[i]) - 1
            if k >= 0 and mentions[k].j == i and mentions[k].pos >= s_start and \
                    mentions[k].keys != (self.actor,) and (
                        mentions[k].i == 0 or folded[mentions[k].i - 1] not in _PREPOSITIONS):
                return False                          # "the goblin attacks": its subject
        if self.actor is not None and mentions and self._other_subject(i, s_start):
            return False                              # "Mog roared and swung at her"
        if self.kept and self.kept[-1][0] == i - 1 and self.kept[-1][2] in ("ready", "delay"):
            return False                              # "готовлюсь ударить": what is readied
        self.kept.append(v)
        return True

    def _other_subject(self, i: int, s_start: int) -> bool:
        """Whether the sentence of verb *i* opens with another combatant's name (after only
        lead words: "then", "and", determiners) and the poster does not take over before
        the verb (their own name, "I"): narration of what someone else does, the weak spot
        of long third-person posts (issue 13 item 5)."""
        mentions, positions = self.mentions, self.positions
        k = bisect_left(self.mention_pos, s_start)
        if k >= len(mentions) or mentions[k].i >= i or self.actor in mentions[k].keys:
            return False
        m = mentions[k]
        first = bisect_left(positions, s_start, 0, i)
        lex, folded = self.lex, self.folded
        if m.i - first > 3 or any(w not in lex.lead_words and w not in lex.determiners
                                  for w in folded[first:m.i]):
            return False
        if any(m.j <= j < i for j in self.mine):
            return False
        return lex.first_person.isdisjoint(folded[m.j:i])

    def declare(self, kept: list[_Verb], out: ActionScan) -> None:
        """One action per kept verb, with its target and weapon; a second verb of the same
        kind in the sentence, on the same target, is the same action."""
        for n, (i, verb, kind_name, conf, s_start, s_end) in enumerate(kept):
            pos = self.positions[i]
            clause_end = s_end                        # up to the next verb of the sentence
            if n + 1 < len(kept) and self.positions[kept[n + 1][0]] < s_end:
                clause_end = self.positions[kept[n + 1][0]]
            kind = _KIND[kind_name]
            target_m = self._target(kind, i, pos, clause_end, s_start, s_end)
            weapon = None
            if kind in _ARMED:
                weapon = _first_weapon(self.weapons, self.weapon_pos, pos, clause_end)
                if weapon is None and kind is ActionKind.ATTACK:
                    weapon = _first_weapon(self.weapons, self.weapon_pos, s_start, s_end)
            if out.actions and out.actions[-1].options.source == "prose":
                last = out.actions[-1]
                if last.kind is kind and self.sentence(last.position or 0)[0] == s_start and (
                        target_m is None or (target_m.keys and target_m.keys[0] == last.target)):
                    continue                          # "ataco o goblin, golpeando": one attack
            target, target_text, candidates = _resolved(target_m, out)
            snippet = self.masked[s_start:s_end].strip(" .!?;…\n\t*_")
            # positional, in the order of declared(): a cheaper call
            out.actions.append(declared(
                kind, pos, " ".join(snippet.split())[:200], target, target_text, candidates,
                weapon, False, conf, "prose", verb))

    def _target(self, kind: ActionKind, i: int, pos: int, clause_end: int, s_start: int,
                s_end: int) -> _Mention | None:
        """Attacks, casts and maneuvers: the first name in the clause, else the sentence,
        else the last clear name before; a move: a name after a destination word."""
        mentions, at = self.mentions, self.mention_pos
        if kind in _TARGETED:
            return _first_in(mentions, at, pos, clause_end) or \
                _first_in(mentions, at, pos, s_end) or \
                _last_in(mentions, at, s_start, pos) or _last_clear(mentions, at, pos)
        if kind is ActionKind.MOVE:
            m = _first_in(mentions, at, pos, clause_end)
            if m is not None and any(self.folded[k] in self.lex.destinations
                                     for k in range(max(i + 1, m.i - 3), m.i)):
                return m
        return None


def _resolved(m: _Mention | None, out: ActionScan
              ) -> tuple[str | None, str | None, tuple[str, ...]]:
    """(target, target_text, candidates) of a name: one key, or several reported."""
    if m is None:
        return None, None, ()
    if len(m.keys) == 1:
        return m.keys[0], m.text, ()
    out.issues.append(("target.ambiguous", m.pos, {
        "text": m.text, "candidates": ", ".join(m.keys), "keys": list(m.keys)}))
    return None, m.text, m.keys


def _clause_break(text: str, lo: int, hi: int) -> bool:
    """Whether a comma, colon or dash separates two positions of a sentence."""
    gap = text[lo:hi]
    return "," in gap or ":" in gap or " — " in gap or " - " in gap


def _reflexive(word: str, plain: Sequence[str], nxt: int, lex: Lexicon) -> bool:
    """Portuguese "se" before a verb is reflexive ("se move"), not "if"."""
    return word == "se" and nxt < len(plain) and lex.verb(plain[nxt]) is not None


def mentions_in(text: str, offset: int, lex: Lexicon, roster: Roster | None,
                actor: str | None) -> list[_Mention]:
    """Roster names in a bit of text (a roll's label, say)."""
    parts = _SPLIT(text)
    starts = list(accumulate(map(len, parts), initial=offset))[1:-1:2]
    return _mentions(parts[1::2], starts, lex, roster, actor)


def _last_clear(mentions: list[_Mention], starts: list[int], hi: int) -> _Mention | None:
    """The last unambiguous name before *hi* ("I strike!" after "...toward goblin 2")."""
    k = bisect_left(starts, hi) - 1
    while k >= 0:
        if len(mentions[k].keys) == 1:
            return mentions[k]
        k -= 1
    return None


def _first_in(mentions: list[_Mention], starts: list[int], lo: int, hi: int) -> _Mention | None:
    k = bisect_right(starts, lo)
    if k < len(mentions) and mentions[k].pos < hi:
        return mentions[k]
    return None


def _last_in(mentions: list[_Mention], starts: list[int], lo: int, hi: int) -> _Mention | None:
    k = bisect_left(starts, hi) - 1
    if k >= 0 and mentions[k].pos >= lo:
        return mentions[k]
    return None


def _first_weapon(weapons: list[tuple[int, str]], starts: list[int], lo: int, hi: int) -> str | None:
    k = bisect_right(starts, lo)
    if k < len(weapons) and weapons[k][0] < hi:
        return weapons[k][1]
    return None
