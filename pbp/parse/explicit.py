"""Explicit actions: ``#`` lines and structured label lines.

A line starting with ``#`` and an action word in any of the three languages, then an
optional target and weapon (docs/parse.md)::

    #attack Goblin with longsword      #ataque goblin com a espada      #атака гоблин мечом
    #cast Fireball at goblin            #move                             #delay

and structured lines: ``Action: attack goblin``, ``Ação: ataque ao lobo``,
``Movimento: até a porta``, ``Действие: атака гоблин мечом``, ``Move: none``.

A ``#`` line may end with the action's options as a JSON object (``#move {"distance": 6}``):
that is the notation of an action (:func:`render` writes it, :func:`read` reads it back),
the way python-chess writes a move in UCI. An option the kind does not take is reported
(``action.option``) and the line's other options dropped.

>>> render(Action(ActionKind.ATTACK, target="gob", weapon="Sword", options={"bonus": 2}))
'#attack gob with Sword {"bonus": 2}'
>>> a = read('#attack gob with Sword {"bonus": 2}', roster=[{"key": "gob", "name": "Goblin"}])
>>> (a.kind.value, a.target, a.options.bonus)
('attack', 'gob', 2)
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any

from rapidfuzz import fuzz, process

from ..errors import UnreadableInput
from ..rules.model import Action, ActionKind
from ..rules.options import PROVENANCE, accepted
from .actions import (
    _ARMED,
    _SPLIT,
    _TARGET_CONNECT,
    _TARGETED,
    _WEAPON_CONNECT,
    ActionScan,
    _Mention,
    _mentions,
)
from .lexicon import Lexicon, fold, get
from .model import declared
from .roster import WORD, Roster

_EXPLICIT: dict[str, str] | None = None


def _all_explicit() -> dict[str, str]:
    table: dict[str, str] = {}
    for lang in ("en", "pt", "ru"):
        table.update(get(lang).explicit)
    return table



def explicit(lines: Sequence[tuple[int, str, str]], lex: Lexicon, roster: Roster | None,
             actor: str | None, out: ActionScan) -> None:
    """Actions from ``#word rest`` lines; an unknown word is reported (near misses accepted)."""
    global _EXPLICIT
    if _EXPLICIT is None:
        _EXPLICIT = _all_explicit()
    for pos, word, rest in lines:
        f = fold(word)
        kind_name = _EXPLICIT.get(f)
        confidence = 1.0
        if kind_name is None:
            near = process.extractOne(f, list(_EXPLICIT), scorer=fuzz.ratio, score_cutoff=80)
            if near is None:
                out.issues.append(("action.unknown", pos, {"text": word}))
                continue
            kind_name = _EXPLICIT[near[0]]
            confidence = 0.9
            out.issues.append(("action.unknown", pos, {"text": word, "assumed": near[0]}))
        kind = ActionKind(kind_name)
        text = f"#{word}{rest}".rstrip()
        rest, given = _split_options(rest)
        target, target_text, candidates, weapon, spell = _read_rest(rest, pos + 1 + len(word), lex,
                                                                    roster, actor, out)
        options: dict[str, object] = {}
        if spell and kind is ActionKind.CAST:
            options["spell"] = spell
        if given:
            wrong = next((k for k in given if k not in accepted(kind) or k in PROVENANCE), None)
            if wrong is None:
                options.update(given)
            else:
                out.issues.append(("action.option", pos, {"text": word, "option": wrong}))
        out.actions.append(declared(
            kind=kind, position=pos, text=text, target=target, target_text=target_text,
            candidates=candidates, weapon=weapon, explicit=True, confidence=confidence,
            source="explicit", verb=f, options=options))


def labelled(lines: Sequence[tuple[int, str, str, int]], lex: Lexicon, roster: Roster | None,
             actor: str | None, out: ActionScan) -> None:
    """Actions from structured lines: ``Ação: ataque ao goblin``, ``Move: to the door``,
    ``Действие: атака гоблин мечом``; ``none`` / ``nenhuma`` / ``нет`` declares nothing."""
    global _EXPLICIT
    if _EXPLICIT is None:
        _EXPLICIT = _all_explicit()
    en = get("en")
    for pos, kind_name, rest, at in lines:
        words = WORD.findall(rest)
        stripped = rest.strip(" \t*_.")
        if not stripped or stripped in lex.nothing or stripped in en.nothing or (
                words and (fold(words[0]) in lex.nothing or fold(words[0]) in en.nothing)):
            continue
        confidence = 1.0
        remaining, offset = rest, at
        verb = None
        if kind_name == "*":
            first = words[0] if words else ""
            f = fold(first)
            found = _EXPLICIT.get(f)
            if found is None:
                hit = lex.verb(first) if first else None
                found = hit[1] if hit else None
                confidence = 0.95
            if found is None:
                kind_name, confidence = "other", 0.9
            else:
                kind_name, verb = found, f
                cut = rest.find(first) + len(first)
                remaining, offset = rest[cut:], at + cut
        kind = ActionKind(kind_name)
        target, target_text, candidates, weapon, spell = _read_rest(
            remaining, offset, lex, roster, actor, out, report_unknown=kind in _TARGETED)
        if kind is ActionKind.MOVE and target is None:
            target_text = None
        options: dict[str, object] = {}
        if spell and kind is ActionKind.CAST:
            options["spell"] = spell
        out.actions.append(declared(
            kind=kind, position=pos, text=" ".join(rest.split())[:200], target=target,
            target_text=target_text, candidates=candidates,
            weapon=weapon if kind in _ARMED else None, explicit=True, confidence=confidence,
            source="explicit", verb=verb, options=options))


_Rest = tuple[str | None, str | None, tuple[str, ...], str | None, str | None]
_AT = ("at", "on", "em", "no", "na", "в", "на", "against", "contra")


def _read_rest(rest: str, offset: int, lex: Lexicon, roster: Roster | None, actor: str | None,
               out: ActionScan, report_unknown: bool = True) -> _Rest:
    """What follows the action word: (target, target_text, candidates, weapon, spell).
    Words after ``with`` name the weapon; a roster name before them the target, and words
    before the name the spell."""
    parts = _SPLIT(rest)                     # [gap, word, gap, ..., word, gap], as in infer
    plain = parts[1::2]
    if not plain:
        return None, None, (), None, None
    starts = list(accumulate(map(len, parts), initial=offset))[1:-1:2]
    folded = list(map(fold, plain))
    w_at = next((i for i, f in enumerate(folded) if f in _WEAPON_CONNECT), len(plain))
    weapon = None
    if w_at < len(plain):
        weapon_words = plain[w_at + 1:]
        weapon = _weapon_of(weapon_words, lex, roster, actor) or (" ".join(
            w for w in weapon_words if fold(w) not in _TARGET_CONNECT) or None)
    mentions = _mentions(plain[:w_at], starts[:w_at], lex, roster, actor) if roster else []
    if weapon is None:
        weapon = _weapon_of(plain[:w_at], lex, roster, actor, skip_names=mentions)
    if mentions:
        return (*_named_target(mentions[0], out), weapon,
                " ".join(plain[i] for i in range(w_at)
                         if i < mentions[0].i and folded[i] not in _TARGET_CONNECT) or None)
    target, target_text, candidates, spell = _written_target(
        plain, folded, w_at, weapon, offset, lex, roster, out, report_unknown)
    return target, target_text, candidates, weapon, spell


def _named_target(m: _Mention, out: ActionScan) -> tuple[str | None, str | None, tuple[str, ...]]:
    """The target a roster name gives: one key, or several reported as ambiguous."""
    if len(m.keys) == 1:
        return m.keys[0], m.text, ()
    out.issues.append(("target.ambiguous", m.pos, {"text": m.text,
                                                  "candidates": ", ".join(m.keys),
                                                  "keys": list(m.keys)}))
    return None, m.text, m.keys


def _written_target(plain: Sequence[str], folded: Sequence[str], w_at: int,
                    weapon: str | None, offset: int, lex: Lexicon, roster: Roster | None,
                    out: ActionScan, report_unknown: bool
                    ) -> tuple[str | None, str | None, tuple[str, ...], str | None]:
    """No roster name: the words (after ``at``/``em``/``на``..., else all of them) resolved
    as a whole; "Fireball at goblin": what precedes ``at`` is the spell."""
    head = range(w_at)
    spell = None
    t_at = next((i for i in head if folded[i] in _AT), None)
    if t_at is not None:
        spell = " ".join(plain[:t_at]) or None
        cand = [w for w in plain[t_at + 1:w_at] if fold(w) not in _TARGET_CONNECT]
    else:
        cand = [plain[i] for i in head if folded[i] not in _TARGET_CONNECT]
    text = " ".join(cand)
    if text and lex.weapon(cand[-1]) and weapon is not None:
        text = " ".join(cand[:-1])
    if not text:
        return None, None, (), spell
    if roster is None:
        return None, text, (), spell
    keys = roster.resolve(text, lex)
    if len(keys) == 1:
        return keys[0], text, (), spell
    if len(keys) > 1:
        out.issues.append(("target.ambiguous", offset, {
            "text": text, "candidates": ", ".join(keys), "keys": list(keys)}))
        return None, text, keys, spell
    if report_unknown and (t_at is not None or not spell):
        out.issues.append(("target.unknown", offset, {"text": text}))
    return None, text, (), spell


def _weapon_of(words: Sequence[str], lex: Lexicon, roster: Roster | None, actor: str | None,
               skip_names: Sequence[_Mention] = ()) -> str | None:
    skip = {i for m in skip_names for i in range(m.i, m.j)}
    for i, w in enumerate(words):
        if i in skip:
            continue
        if roster is not None:
            length, names = roster.match_at(words, i, lex, weapons=True)
            if length and names:
                return names[0]
        canon = lex.weapon(w)
        if canon:
            if roster is not None:
                sheet = roster.sheet_weapon(canon, lex, actor)
                if sheet:
                    return sheet
            return canon
    return None



_WORDS = {ActionKind.FULL_ROUND: "full-round"}


def _split_options(rest: str) -> tuple[str, Mapping[str, Any] | None]:
    """A trailing JSON object (the options) split from the rest of a ``#`` line."""
    end = rest.rstrip()
    if not end.endswith("}"):
        return rest, None
    at = end.find("{")
    while at >= 0:
        try:
            value = json.loads(end[at:])
        except ValueError:
            at = end.find("{", at + 1)
            continue
        if isinstance(value, dict):
            return rest[:at], value
        break
    return rest, None


def render(action: Action) -> str:
    """*action* in the explicit notation: ``#kind target with weapon {options}``; the
    options are those given, less where the action came from (:data:`PROVENANCE`)."""
    parts = [f"#{_WORDS.get(action.kind, action.kind.value)}"]
    if action.target:
        parts.append(action.target)
    if action.weapon:
        parts += ["with", action.weapon]
    given = {k: v for k, v in action.options.to_dict().items() if k not in PROVENANCE}
    if given:
        parts.append(json.dumps(given, ensure_ascii=False, sort_keys=True))
    return " ".join(parts)


def read(line: str, *, roster: Any = None, lang: str = "en") -> Action:
    """The action a ``#`` line declares (the inverse of :func:`render`); a line that
    declares none, or a problem with it, is :class:`~pbp.errors.UnreadableInput`."""
    lex = get(lang)
    stripped = line.strip()
    word, _, rest = stripped[1:].partition(" ") if stripped.startswith("#") else ("", "", "")
    out = ActionScan()
    if word:
        explicit([(0, word, " " + rest if rest else "")], lex, Roster.of(roster), None, out)
    if out.issues or len(out.actions) != 1:
        code, pos, params = out.issues[0] if out.issues else ("action.unknown", 0,
                                                             {"text": word or stripped})
        raise UnreadableInput(lex.message(code, position=pos, **params))
    return out.actions[0]
