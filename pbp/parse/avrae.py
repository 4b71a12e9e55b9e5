"""Avrae's commands, as players bring them from Discord (see :mod:`.commands`).

``!a``/``!attack``, ``!cast``, ``!c``/``!check``, ``!s``/``!save``, ``!i``/``!init`` with its
subcommands, ``!mc``/``!ms``/``!ma``/``!mcast``; ``-t`` targets matched against the roster
(prefix and near-miss allowed, an ambiguous one reported), ``adv``/``dis`` and the other
arguments kept in ``options`` (other ``-flags`` under ``options.flags``). Attacks, casts, checks and saves are also actions.
"""

from __future__ import annotations

import re
from typing import Any

from ..rules.model import ActionKind
from .lexicon import Lexicon, fold
from .model import Command, declared
from .roster import Roster
from .scans import CommandScan

_ARG = re.compile(r'"([^"\n]*)"|“([^”\n]*)”|«([^»\n]*)»|(\S+)')

_TOP = {
    "a": "attack", "attack": "attack", "cast": "cast", "c": "check", "check": "check",
    "s": "save", "save": "save", "mc": "monster.check", "mcheck": "monster.check",
    "monster_check": "monster.check", "ms": "monster.save", "msave": "monster.save",
    "monster_save": "monster.save", "ma": "monster.attack", "mattack": "monster.attack",
    "monster_attack": "monster.attack", "mcast": "monster.cast", "monster_cast": "monster.cast",
    "i": "init", "init": "init", "initiative": "init",
}
_KNOWN_OTHER = frozenset(
    ["rr", "multiroll", "iterroll", "rrr", "g", "game", "hp", "thp", "longrest", "lr", "shortrest", "sr", "snippet", "help", "char", "sheet", "beyond", "update", "spellbook", "sb", "customcounter", "cc", "effect", "bag", "coin", "coins", "desc", "token", "portrait", "stats", "level", "xp", "tutorial", "servsettings", "csettings", "alias", "svar", "uvar", "gvar", "cvar", "rest", "death", "monimage", "inventory", "inv"])
_INIT_SUB = {
    "join": "initiative.join", "j": "initiative.join", "begin": "initiative.begin",
    "start": "initiative.begin", "add": "initiative.add", "madd": "initiative.add",
    "next": "initiative.next", "n": "initiative.next", "prev": "initiative.prev",
    "previous": "initiative.prev", "p": "initiative.prev", "rewind": "initiative.prev",
    "end": "initiative.end", "goto": "initiative.goto", "move": "initiative.goto",
    "list": "initiative.list", "summary": "initiative.list", "status": "initiative.status",
    "hp": "initiative.hp", "thp": "initiative.hp", "effect": "initiative.effect",
    "re": "initiative.effect", "remove": "initiative.remove", "skipround": "initiative.skip",
    "round": "initiative.skip", "skip": "initiative.skip", "reroll": "initiative.reroll",
    "shuffle": "initiative.reroll", "meta": "initiative.meta", "opt": "initiative.opt",
    "note": "initiative.note", "a": "attack", "attack": "attack", "aoo": "attack",
    "cast": "cast", "check": "check", "save": "save", "s": "save", "c": "check",
}
_FLAGS_WITH_VALUE = frozenset(("-t", "-d", "-b", "-l", "-phrase", "-rr", "-i", "-title", "-f",
                               "-dc", "-mi", "-c", "-ac", "-h", "-thumb", "-dtype", "-cb", "-sb",
                               "-n", "-p", "-name", "-controller", "-group", "-note", "-hp"))
_KEYWORDS = frozenset(("adv", "dis", "ea", "crit", "nocrit", "max", "magical", "silvered",
                       "noconc", "i", "h", "pass", "fail", "hit", "miss"))


def split_args(rest: str) -> list[str]:
    """Shell-like words; ``"..."``, ``“...”`` and ``«...»`` group (an unclosed quote does not)."""
    return [next(g for g in m.groups() if g is not None) for m in _ARG.finditer(rest)]


def command(word: str, rest: str, line: str, pos: int, lex: Lexicon, roster: Roster | None,
            out: CommandScan) -> None:
    """One ``!word rest`` line: a command, and an action for attacks, casts, checks, saves."""
    args = split_args(rest)
    name = _TOP.get(word)
    if name is None:
        out.commands.append(Command("other", line, "avrae", pos, args=tuple(args)))
        if word not in _KNOWN_OTHER:
            out.issues.append(("command.unknown", pos, {"text": "!" + word}))
        return
    via = None
    if name == "init":
        sub = args[0].lower() if args else "list"
        name, args = _INIT_SUB.get(sub, f"initiative.{sub}"), args[1:]
        if name.startswith("initiative."):
            out.commands.append(Command(name, line, "avrae", pos, args=tuple(args)))
            return
        via = "aoo" if sub == "aoo" else "init"
    actor = None
    if name.startswith("monster."):
        actor, args = (args[0] if args else None), args[1:]
    positional, flags, extra = _split_flags(args, lex)
    options = _options(line, flags, extra, actor, lex, roster)
    targets_text = flags.get("-t", [])
    targets, candidates = _targets(targets_text, pos, lex, roster, options, out)
    kind = _KINDS.get(name, ActionKind.OTHER) if via != "aoo" else ActionKind.REACTION
    weapon = _subject(kind, name, " ".join(positional) if positional else None, lex, roster,
                      options)
    if via:
        options["via"] = "init"
    out.commands.append(Command(name, line, "avrae", pos, args=tuple(args),
                                targets=tuple(targets), options=dict(options)))
    out.actions.append(declared(
        kind=kind, position=pos, text=line, target=targets[0] if targets else None,
        target_text=targets_text[0] if targets_text else None, candidates=candidates,
        weapon=weapon, explicit=True, confidence=1.0, source="command", verb=name,
        options=options))


_KINDS = {"attack": ActionKind.ATTACK, "cast": ActionKind.CAST,
          "monster.attack": ActionKind.ATTACK, "monster.cast": ActionKind.CAST}


def _options(line: str, flags: dict[str, list[str]], extra: list[str], actor: str | None,
             lex: Lexicon, roster: Roster | None) -> dict[str, Any]:
    """The line's options: the line, advantage, the other ``-flags``, keyword arguments and
    the monster named by ``!ma``/``!mc``."""
    options: dict[str, Any] = {"command": line}
    adv = 1 if "adv" in extra else (-1 if "dis" in extra else 0)
    if adv:
        options["advantage"] = adv
    other = {flag.lstrip("-"): values[-1] if len(values) == 1 else values
             for flag, values in flags.items() if flag != "-t"}
    if other:
        options["flags"] = other
    keywords = [w for w in extra if w not in ("adv", "dis")]
    if keywords:
        options["args"] = keywords
    if actor:
        options["actor_text"] = actor
        if roster is not None:
            keys = roster.resolve(actor, lex)
            if len(keys) == 1:
                options["actor"] = keys[0]
    return options


def _targets(written: list[str], pos: int, lex: Lexicon, roster: Roster | None,
             options: dict[str, Any], out: CommandScan) -> tuple[list[str], tuple[str, ...]]:
    """The ``-t`` names matched against the roster (an ambiguous or unknown one reported);
    every match beyond the first and every name left unmatched go into *options*."""
    targets: list[str] = []
    candidates: tuple[str, ...] = ()
    unresolved: list[str] = []
    for t in written:
        keys = roster.resolve(t, lex) if roster is not None else ()
        if len(keys) == 1:
            targets.append(keys[0])
            continue
        unresolved.append(t)
        if len(keys) > 1:
            candidates = keys
            out.issues.append(("target.ambiguous", pos, {"text": t, "candidates": ", ".join(keys),
                                                         "keys": list(keys)}))
        elif roster is not None:
            out.issues.append(("target.unknown", pos, {"text": t}))
    if len(targets) > 1:
        options["targets"] = targets
    if unresolved:
        options["targets_text"] = unresolved
    return targets, candidates


def _subject(kind: ActionKind, name: str, subject: str | None, lex: Lexicon,
             roster: Roster | None, options: dict[str, Any]) -> str | None:
    """What the positional words name: the weapon of an attack (matched on the sheets), the
    spell of a cast, the skill of a check or the save (into *options*)."""
    if kind is ActionKind.ATTACK or kind is ActionKind.REACTION:
        if subject and roster is not None:
            length, names = roster.match_at(subject.split(), 0, lex, weapons=True)
            if length and len(names) == 1:
                return names[0]
        return subject
    if kind is ActionKind.CAST:
        options["spell"] = subject
    elif name.endswith("check"):
        options["check"] = subject
    elif name.endswith("save"):
        options["save"] = subject
    return None


def _split_flags(args: list[str], lex: Lexicon) -> tuple[list[str], dict[str, list[str]], list[str]]:
    positional: list[str] = []
    flags: dict[str, list[str]] = {}
    extra: list[str] = []
    i = 0
    seen_flag = False
    while i < len(args):
        a = args[i]
        low = a.lower()
        if low.startswith("-") and len(low) > 1 and not low[1:].isdigit():
            seen_flag = True
            if low in _FLAGS_WITH_VALUE and i + 1 < len(args):
                flags.setdefault(low, []).append(args[i + 1])
                i += 2
                continue
            flags.setdefault(low, []).append("")
        elif fold(low) in lex.advantage or low == "adv":
            extra.append("adv")
        elif fold(low) in lex.disadvantage or low == "dis":
            extra.append("dis")
        elif low in _KEYWORDS or seen_flag:
            extra.append(a)
        else:
            positional.append(a)
        i += 1
    return positional, flags, extra
