"""Initiative commands with the semantics of the SealDice / Dice! bots (see :mod:`.commands`).

``.ri`` (1d20), ``.ri+3``, ``.ri +Dex``, ``.ri 12 Name`` (a value), ``.ri =1d10+3 Name`` (an
expression), ``.ri adv Name``, batch ``.ri Ana, +2 Boris``; ``.init`` (show), ``.init clr``,
``.init ed`` / ``.init end`` (next), ``.init set Name EXPR``, ``.init del Name...``.
"""

from __future__ import annotations

import re

from .lexicon import Lexicon
from .model import Command, InitiativeEntry
from .roster import Roster
from .scans import CommandScan
from .tags import read_expression, refused, shortened, split_advantage

_RI_ITEM = re.compile(r"^(?P<mod>[+\-−]\s*[^\s,]+)?\s*(?:=\s*(?P<expr>\S+))?\s*"
                      r"(?:(?P<value>\d{1,4}(?:\.\d{1,2})?)(?=\s|$))?\s*(?P<name>.*)$")


def ri(rest: str, line: str, pos: int, lex: Lexicon, roster: Roster | None,
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
            out.issues.append(("command.syntax", pos, {"text": shortened(line)}))
            return
        name = m.group("name").strip() or None
        expression = value = None
        if m.group("expr"):
            e = read_expression(m.group("expr"), allow_leading_word=True)
            if e.expression is None or e.rest:
                out.issues.append(_at(pos, *refused(e, m.group("expr"))))
                continue
            expression = e.expression
        elif m.group("value"):
            value = float(m.group("value"))
        else:
            mod = (m.group("mod") or "").replace(" ", "").replace("−", "-")
            if mod:
                e = read_expression("1d20" + mod)
                if e.expression is None or e.rest:
                    out.issues.append(_at(pos, *refused(e, mod)))
                    continue
                expression = e.expression
            else:
                expression = "1d20"
        key = resolve_one(name, pos, lex, roster, out) if name else None
        entries.append(InitiativeEntry(name=name, expression=expression, value=value,
                                       advantage=adv, key=key))
    out.commands.append(Command("initiative.roll", line, ".ri", pos, entries=tuple(entries)))


def init(rest: str, line: str, pos: int, lex: Lexicon, roster: Roster | None,
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
        e = read_expression(args[-1].lstrip("="), allow_leading_word=True)
        if e.expression is None or e.rest:
            out.issues.append(_at(pos, *refused(e, args[-1])))
            return
        key = resolve_one(name, pos, lex, roster, out)
        value = float(e.expression) if e.expression.isdigit() else None
        entry = InitiativeEntry(name=name, expression=None if value is not None else e.expression,
                                value=value, key=key)
        out.commands.append(Command("initiative.set", line, ".init", pos, args=tuple(args[1:]),
                                    entries=(entry,)))
    elif sub in ("del", "rm", "delete", "remove") and len(args) >= 2:
        names = [n.strip() for n in re.split(r"[,，]|\s+", " ".join(args[1:])) if n.strip()]
        entries = tuple(InitiativeEntry(name=n, key=resolve_one(n, pos, lex, roster, out))
                        for n in names)
        out.commands.append(Command("initiative.delete", line, ".init", pos, args=tuple(names),
                                    entries=entries))
    else:
        out.issues.append(("command.syntax", pos, {"text": shortened(line)}))


def _at(pos: int, code: str, params: dict[str, object]) -> tuple[str, int, dict[str, object]]:
    """An issue in the scan's order: code, position, values."""
    return code, pos, params


def resolve_one(name: str, pos: int, lex: Lexicon, roster: Roster | None,
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


