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
              hits: Sequence[tuple[bool, bool]] | None = None) -> list[_Mention]:
    """Roster names among the words *plain* (starting at *positions*), longest first."""
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
        infos = [inf or info(w) for w, inf in zip(plain, infos)]
    verb_at = list(compress(range(len(infos)), map(_FIRST, infos)))
    if not verb_at:
        return
    generic: list[tuple[int, str]] = [
        (i, infos[i][1]) for i in compress(range(len(infos)), map(_SECOND, infos))]
    folded = list(map(_THIRD, infos))
    positions = list(accumulate(map(len, parts)))[0:-1:2]
    bounds = list(map(re.Match.start, _BOUNDARY.finditer(masked)))

    def sentence(pos: int) -> tuple[int, int]:
        k = bisect_left(bounds, pos)
        start = bounds[k - 1] if k > 0 else 0
        end = bounds[k] if k < len(bounds) else len(masked)
        return start, end

    mentions: list[_Mention] = []
    weapons: list[tuple[int, str]] = []
    if roster is not None:
        hits = roster.start_hits(plain, lex)
        mentions = _mentions(plain, positions, lex, roster, actor, hits)
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
                    weapons.append((positions[i], sheet_of(canon, lex, actor) or canon))
            weapons.sort()
    else:
        weapons = [(positions[i], canon) for i, canon in generic]
    mention_pos = list(map(_POS, mentions))
    weapon_pos = list(map(_FIRST, weapons))
    kept: list[tuple[int, str, str, float, int, int]] = []  # + the verb's sentence
    determiners, negations, objects_before = lex.determiners, lex.negations, lex.objects_before
    conditionals, temporals, blockers = lex.conditionals, lex.temporals, lex.blockers
    n_words, n_bounds = len(folded), len(bounds)
    for i in verb_at:
        inf = infos[i]                                # (verb hit, weapon, folded, confidence)
        verb, kind = inf[0][0], inf[0][1]
        conf = inf[3]
        pos = positions[i]
        k = bisect_left(bounds, pos)                  # the sentence: as sentence(pos)
        s_start = bounds[k - 1] if k > 0 else 0
        s_end = bounds[k] if k < n_bounds else len(masked)
        first = bisect_left(positions, s_start, 0, i)   # the sentence's first word
        before = folded[first:i]
        last_word = before[-1] if before else None
        if last_word in determiners:
            continue                                  # "a strike", "nice hit": a noun
        if not blockers.isdisjoint(before):          # a negation, "if" or "when" before it
            if not negations.isdisjoint(before[-2:]):
                continue                              # "não ataco", "I don't attack"
            if not conditionals.isdisjoint(before) and any(
                    p in conditionals and not _reflexive(p, plain, first + k + 1, lex)
                    for k, p in enumerate(before)):
                continue                              # "if it moves, I shoot": a trigger
            if not temporals.isdisjoint(before) and any(
                    p in temporals and not _clause_break(masked, positions[first + k], pos)
                    for k, p in enumerate(before)):
                continue                              # "until it lands": not declared
        if kind not in ("move", "defend") and last_word in objects_before:
            continue                                  # "o goblin me ataca"
        if i + 1 < n_words and positions[i + 1] < s_end:
            nxt = folded[i + 1]
            if nxt in lex.objects_after or nxt in lex.unless_next.get(verb, ()):
                continue                              # "it attacks me", "ready to"
        if actor is not None and mentions:
            k = bisect_left(mention_pos, pos) - 1
            if k >= 0 and mentions[k].j == i and mentions[k].pos >= s_start and \
                    mentions[k].keys != (actor,) and (
                        mentions[k].i == 0 or folded[mentions[k].i - 1] not in _PREPOSITIONS):
                continue                              # "the goblin attacks": its subject
        if kept and kept[-1][0] == i - 1 and kept[-1][2] in ("ready", "delay"):
            continue                                  # "готовлюсь ударить": what is readied
        kept.append((i, verb, kind, conf, s_start, s_end))
    n_kept = len(kept)
    for n, (i, verb, kind_name, conf, s_start, s_end) in enumerate(kept):
        pos = positions[i]
        clause_end = s_end                            # up to the next verb of the sentence
        if n + 1 < n_kept and positions[kept[n + 1][0]] < s_end:
            clause_end = positions[kept[n + 1][0]]
        kind = _KIND[kind_name]
        target_m = None
        if kind in _TARGETED:
            target_m = _first_in(mentions, mention_pos, pos, clause_end) or \
                _first_in(mentions, mention_pos, pos, s_end) or \
                _last_in(mentions, mention_pos, s_start, pos) or \
                _last_clear(mentions, mention_pos, pos)
        elif kind is ActionKind.MOVE:
            m = _first_in(mentions, mention_pos, pos, clause_end)
            if m is not None and any(folded[k] in lex.destinations
                                     for k in range(max(i + 1, m.i - 3), m.i)):
                target_m = m
        weapon = None
        if kind in _ARMED:
            weapon = _first_weapon(weapons, weapon_pos, pos, clause_end)
            if weapon is None and kind is ActionKind.ATTACK:
                weapon = _first_weapon(weapons, weapon_pos, s_start, s_end)
        if out.actions and out.actions[-1].options.source == "prose":
            last = out.actions[-1]
            if last.kind is kind and sentence(last.position)[0] == s_start and (
                    target_m is None or (target_m.keys and target_m.keys[0] == last.target)):
                continue                              # "ataco o goblin, golpeando": one attack
        target = None
        candidates: tuple[str, ...] = ()
        target_text = None
        if target_m is not None:
            target_text = target_m.text
            if len(target_m.keys) == 1:
                target = target_m.keys[0]
            else:
                candidates = target_m.keys
                out.issues.append(("target.ambiguous", target_m.pos, {
                    "text": target_m.text, "candidates": ", ".join(target_m.keys),
                    "keys": list(target_m.keys)}))
        snippet = masked[s_start:s_end].strip(" .!?;…\n\t*_")
        # positional, in field order (kind, position, text, target, target_text,
        # candidates, weapon, explicit, confidence, source, verb): a cheaper call
        out.actions.append(declared(
            kind, pos, " ".join(snippet.split())[:200], target, target_text, candidates,
            weapon, False, conf, "prose", verb))


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
