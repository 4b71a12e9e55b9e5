"""Bot-style command lines: dice bots (``.r``, ``.ri``, ``.init``), chat rolls and Avrae.

A command is a whole line that starts (after spaces) with its prefix. Forms read:

* rolls: ``.r EXPR [reason]``, ``.rh EXPR [reason]`` (hidden), ``/roll EXPR``, ``/r EXPR``,
  ``!roll EXPR``, ``!r EXPR`` -> :class:`~pbp.parse.model.RollTag` (reason = label);
* initiative, with the semantics of the SealDice/Dice! bots: ``.ri`` (1d20), ``.ri+3``,
  ``.ri +Dex``, ``.ri 12 Name`` (a value), ``.ri =1d10+3 Name`` (an expression),
  ``.ri adv Name``, batch ``.ri Ana, +2 Boris``; ``.init`` (show), ``.init clr``,
  ``.init ed`` / ``.init end`` (next), ``.init set Name EXPR``, ``.init del Name...``;
* Avrae: ``!a``/``!attack``, ``!cast``, ``!c``/``!check``, ``!s``/``!save``, ``!i``/``!init``
  with its subcommands (``join``, ``begin``, ``madd``, ``a``, ``cast``, ``n``/``next``,
  ``prev``, ``goto``, ``end``...), ``!mc``/``!ms``/``!ma``/``!mcast`` (monster), with
  ``-t target`` (repeatable), ``adv``/``dis``, ``-l``, ``-d``, ``-b``, ``-phrase`` kept.

Attacks, casts, checks and saves also become actions; ``-t`` names are matched
against the roster (prefix and near-miss allowed) and an ambiguous one is reported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..rules.model import ActionKind
from . import dicexpr
from .lexicon import Lexicon, fold
from .model import Command, InitiativeEntry, IssueList, ParsedAction
from .roster import Roster
from .tags import FoundRoll, split_advantage

LINE = re.compile(
    r"(?m)^[ \t]{0,16}(?P<cmd>\.rh|\.ri|\.init|\.r|/roll|/r|!roll|!r|![^\W\d_][\w-]{0,30}"
    r"|#[^\W\d_][\w-]{0,30})(?P<rest>[^\n]*)")
_START = re.compile(r"(?m)^[ \t]{0,16}[.!/#]|^[ \t*_>]{0,8}[^\W\d_][^\W\d_ -]{0,30}"
                    r"(?: [^\W\d_]{1,15}){0,2}[ \t*_]{0,4}:")
_LABEL = re.compile(r"(?m)^[ \t*_>]{0,8}(?P<label>[^\W\d_][^\W\d_ -]{0,30}(?: [^\W\d_]{1,15}){0,2})"
                    r"[ \t*_]{0,4}:[ \t*_]{0,4}(?P<rest>[^\n]*)")
_ARG = re.compile(r'"([^"\n]*)"|“([^”\n]*)”|«([^»\n]*)»|(\S+)')

_AVRAE_ROLL = {"!r", "!roll"}
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


@dataclass
class CommandScan:
    rolls: list[FoundRoll] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    actions: list[ParsedAction] = field(default_factory=list)
    explicit: list[tuple[int, str, str]] = field(default_factory=list)  # (pos, keyword, rest)
    labelled: list[tuple[int, str, str, int]] = field(default_factory=list)  # (pos, kind, rest, at)
    spans: list[tuple[int, int]] = field(default_factory=list)
    issues: IssueList = field(default_factory=IssueList)


#: The result for a post with no command line (shared: never mutate a scan result).
EMPTY = CommandScan()


def split_args(rest: str) -> list[str]:
    """Shell-like words; ``"..."``, ``“...”`` and ``«...»`` group (an unclosed quote does not)."""
    return [next(g for g in m.groups() if g is not None) for m in _ARG.finditer(rest)]


def scan(text: str, lex: Lexicon, roster: Roster | None) -> CommandScan:
    if _START.search(text) is None:
        return EMPTY
    out = CommandScan()
    for m in LINE.finditer(text):
        cmd, rest = m.group("cmd"), m.group("rest")
        pos = m.start("cmd")
        low = cmd.lower()
        line = (cmd + rest).rstrip()
        if low[0] == "#":
            out.explicit.append((pos, cmd[1:], rest))
            out.spans.append((pos, m.end()))
            continue
        handled = _dispatch(low, cmd, rest, line, pos, lex, roster, out)
        if handled:
            out.spans.append((pos, m.end()))
    if ":" in text:
        en = _en()
        for m in _LABEL.finditer(text):
            label = fold(m.group("label").strip())
            kind = lex.action_labels.get(label) or en.action_labels.get(label)
            if kind is None:
                continue
            out.labelled.append((m.start("label"), kind, m.group("rest"), m.start("rest")))
            out.spans.append((m.start("label"), m.end()))
    return out


def _en() -> Lexicon:
    from .lexicon import get

    return get("en")


def _dispatch(low: str, cmd: str, rest: str, line: str, pos: int, lex: Lexicon,
              roster: Roster | None, out: CommandScan) -> bool:
    first = rest[:1]
    if low in (".r", ".rh", "/roll", "/r", "!roll", "!r"):
        if rest and not (first.isspace() or first.isdigit() or first in "dDкК(+-"):
            return False
        if low == "/r" and not rest.strip():
            return False
        _roll_line(low, rest, pos, lex, out, hidden=low == ".rh")
        return True
    if low == ".ri":
        if first.isalpha():
            return False
        _ri(rest, line, pos, lex, roster, out)
        return True
    if low == ".init":
        if rest and not first.isspace():
            return False
        _init(rest, line, pos, lex, roster, out)
        return True
    if low[0] == "!":
        _avrae(low[1:], rest, line, pos, lex, roster, out)
        return True
    return False


def _roll_line(syntax: str, rest: str, pos: int, lex: Lexicon, out: CommandScan,
               *, hidden: bool) -> None:
    expr = dicexpr.read(rest)
    if expr.problem or expr.expression is None:
        shown = rest.strip()[:60]
        out.issues.append((expr.problem or "dice.syntax", pos, {
            "text": shown, "length": len(rest.strip()), "detail": expr.detail,
            "limit": 256 if expr.problem == "dice.too_long" else 1000}))
        return
    adv, words = split_advantage(expr.rest, lex)
    label = words.lstrip("#:—–- ").strip() or None
    end = pos + len(syntax) + len(rest)
    out.rolls.append(FoundRoll(expr.expression, label, syntax, pos, end, rest.strip(), adv, hidden))


_RI_ITEM = re.compile(r"^(?P<mod>[+\-−]\s*[^\s,]+)?\s*(?:=\s*(?P<expr>\S+))?\s*"
                      r"(?:(?P<value>\d{1,4}(?:\.\d{1,2})?)(?=\s|$))?\s*(?P<name>.*)$")


def _ri(rest: str, line: str, pos: int, lex: Lexicon, roster: Roster | None,
        out: CommandScan) -> None:
    entries: list[InitiativeEntry] = []
    items = re.split(r"[,，;]", rest) if rest.strip() else [""]
    for raw in items:
        item = raw.strip()
        adv = 0
        head, _, tail = item.partition(" ")
        a, left = split_advantage(head, lex)
        if a and not left:
            adv, item = a, tail.strip()
        m = _RI_ITEM.match(item)
        if m is None:  # pragma: no cover - the pattern matches any line
            out.issues.append(("command.syntax", pos, {"text": line}))
            return
        name = m.group("name").strip() or None
        expression = value = None
        if m.group("expr"):
            e = dicexpr.read(m.group("expr"), allow_leading_word=True)
            if e.expression is None or e.rest:
                out.issues.append((e.problem or "dice.syntax", pos, {"text": m.group("expr")}))
                continue
            expression = e.expression
        elif m.group("value"):
            value = float(m.group("value"))
        else:
            mod = (m.group("mod") or "").replace(" ", "").replace("−", "-")
            if mod:
                e = dicexpr.read("1d20" + mod)
                if e.expression is None or e.rest:
                    out.issues.append((e.problem or "dice.syntax", pos, {"text": mod}))
                    continue
                expression = e.expression
            else:
                expression = "1d20"
        key = _resolve_one(name, pos, lex, roster, out) if name else None
        entries.append(InitiativeEntry(name=name, expression=expression, value=value,
                                       advantage=adv, key=key))
    out.commands.append(Command("initiative.roll", line, ".ri", pos, entries=tuple(entries)))


def _init(rest: str, line: str, pos: int, lex: Lexicon, roster: Roster | None,
          out: CommandScan) -> None:
    args = rest.split()
    if not args:
        out.commands.append(Command("initiative.show", line, ".init", pos))
        return
    sub = args[0].lower()
    if sub in ("clr", "clear"):
        out.commands.append(Command("initiative.clear", line, ".init", pos))
    elif sub in ("ed", "end", "next"):
        out.commands.append(Command("initiative.next", line, ".init", pos))
    elif sub in ("list", "show"):
        out.commands.append(Command("initiative.show", line, ".init", pos))
    elif sub == "set" and len(args) >= 3:
        name = " ".join(args[1:-1])
        e = dicexpr.read(args[-1].lstrip("="), allow_leading_word=True)
        if e.expression is None or e.rest:
            out.issues.append((e.problem or "dice.syntax", pos, {"text": args[-1]}))
            return
        key = _resolve_one(name, pos, lex, roster, out)
        value = float(e.expression) if e.expression.isdigit() else None
        entry = InitiativeEntry(name=name, expression=None if value is not None else e.expression,
                                value=value, key=key)
        out.commands.append(Command("initiative.set", line, ".init", pos, args=tuple(args[1:]),
                                    entries=(entry,)))
    elif sub in ("del", "rm", "delete", "remove") and len(args) >= 2:
        names = [n.strip() for n in re.split(r"[,，]|\s+", " ".join(args[1:])) if n.strip()]
        entries = tuple(InitiativeEntry(name=n, key=_resolve_one(n, pos, lex, roster, out))
                        for n in names)
        out.commands.append(Command("initiative.delete", line, ".init", pos, args=tuple(names),
                                    entries=entries))
    else:
        out.issues.append(("command.syntax", pos, {"text": line}))


def _resolve_one(name: str, pos: int, lex: Lexicon, roster: Roster | None,
                 out: CommandScan) -> str | None:
    if roster is None or not name:
        return None
    keys = roster.resolve(name, lex)
    if len(keys) == 1:
        return keys[0]
    if len(keys) > 1:
        out.issues.append(("target.ambiguous", pos, {"text": name, "candidates": ", ".join(keys),
                                                     "keys": list(keys)}))
    return None


def _avrae(word: str, rest: str, line: str, pos: int, lex: Lexicon, roster: Roster | None,
           out: CommandScan) -> None:
    syntax = "!" + word
    if "!" + word in _AVRAE_ROLL:
        _roll_line(syntax, rest, pos, lex, out, hidden=False)
        return
    args = split_args(rest)
    name = _TOP.get(word)
    if name is None:
        if word in _KNOWN_OTHER:
            out.commands.append(Command("other", line, "avrae", pos, args=tuple(args)))
        else:
            out.commands.append(Command("other", line, "avrae", pos, args=tuple(args)))
            out.issues.append(("command.unknown", pos, {"text": syntax}))
        return
    via_init = False
    if name == "init":
        sub = args[0].lower() if args else "list"
        name = _INIT_SUB.get(sub, f"initiative.{sub}")
        args = args[1:]
        via_init = True
        if name.startswith("initiative."):
            out.commands.append(Command(name, line, "avrae", pos, args=tuple(args)))
            return
        if sub == "aoo":
            via_init = "aoo"  # type: ignore[assignment]
    actor = None
    if name.startswith("monster."):
        actor = args[0] if args else None
        args = args[1:]
    positional, flags, extra = _split_flags(args, lex)
    targets_text = flags.get("-t", [])
    subject = " ".join(positional) if positional else None
    options: dict[str, Any] = {"command": line}
    adv = 1 if "adv" in extra else (-1 if "dis" in extra else 0)
    if adv:
        options["advantage"] = adv
    for flag, values in flags.items():
        if flag != "-t":
            options[flag.lstrip("-")] = values[-1] if len(values) == 1 else values
    keywords = [w for w in extra if w not in ("adv", "dis")]
    if keywords:
        options["args"] = keywords
    if actor:
        options["actor_text"] = actor
        if roster is not None:
            keys = roster.resolve(actor, lex)
            if len(keys) == 1:
                options["actor"] = keys[0]
    targets: list[str] = []
    candidates: tuple[str, ...] = ()
    unresolved: list[str] = []
    for t in targets_text:
        if roster is None:
            unresolved.append(t)
            continue
        keys = roster.resolve(t, lex)
        if len(keys) == 1:
            targets.append(keys[0])
        elif len(keys) > 1:
            candidates = keys
            unresolved.append(t)
            out.issues.append(("target.ambiguous", pos, {"text": t, "candidates": ", ".join(keys),
                                                         "keys": list(keys)}))
        else:
            unresolved.append(t)
            out.issues.append(("target.unknown", pos, {"text": t}))
    if len(targets) > 1:
        options["targets"] = targets
    if unresolved:
        options["targets_text"] = unresolved
    kind = {"attack": ActionKind.ATTACK, "cast": ActionKind.CAST, "monster.attack": ActionKind.ATTACK,
            "monster.cast": ActionKind.CAST}.get(name, ActionKind.OTHER)
    if via_init == "aoo":
        kind = ActionKind.REACTION
    weapon = None
    if kind is ActionKind.ATTACK or kind is ActionKind.REACTION:
        weapon = subject
        if subject and roster is not None:
            length, names = roster.match_at(subject.split(), 0, lex, weapons=True)
            if length and len(names) == 1:
                weapon = names[0]
    elif kind is ActionKind.CAST:
        options["spell"] = subject
    elif name.endswith("check"):
        options["check"] = subject
    elif name.endswith("save"):
        options["save"] = subject
    if via_init:
        options["via"] = "init"
    out.commands.append(Command(name, line, "avrae", pos, args=tuple(args),
                                targets=tuple(targets), options=dict(options)))
    out.actions.append(ParsedAction(
        kind=kind, position=pos, text=line, target=targets[0] if targets else None,
        target_text=targets_text[0] if targets_text else None, candidates=candidates,
        weapon=weapon, explicit=True, confidence=1.0, source="command", verb=name,
        options=options))


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
