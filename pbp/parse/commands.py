"""Bot-style command lines: dice bots (``.r``, ``.ri``, ``.init``), chat rolls and Avrae.

A command is a whole line that starts (after spaces) with its prefix. Forms read:

* rolls: ``.r EXPR [reason]``, ``.rh EXPR [reason]`` (hidden), ``/roll EXPR``, ``/r EXPR``,
  ``!roll EXPR``, ``!r EXPR`` -> :class:`~pbp.parse.model.RollTag` (reason = label); a flag
  ``-h`` (or ``-hidden``, ``-oculto``, ``-скрыто``: the lexicon's hidden words) before or
  after the expression makes any of them a secret roll (DICE-2);
* initiative, with the semantics of the SealDice/Dice! bots: ``.ri`` (1d20), ``.ri+3``,
  ``.ri +Dex``, ``.ri 12 Name`` (a value), ``.ri =1d10+3 Name`` (an expression),
  ``.ri adv Name``, batch ``.ri Ana, +2 Boris``; ``.init`` (show), ``.init clr``,
  ``.init ed`` / ``.init end`` (next), ``.init set Name EXPR``, ``.init del Name...``;
* absences and standing orders (STALL-1, STALL-2): ``.away``/``.ausente``/``.отсутствую``,
  ``.default``/``.padrão``/``.поумолчанию``, ``.if``/``.se``/``.если``, ``.back``: kept as
  ``standing.*`` commands (:mod:`.standing` reads them) and blanked;
* Avrae: ``!a``/``!attack``, ``!cast``, ``!c``/``!check``, ``!s``/``!save``, ``!i``/``!init``
  with its subcommands (``join``, ``begin``, ``madd``, ``a``, ``cast``, ``n``/``next``,
  ``prev``, ``goto``, ``end``...), ``!mc``/``!ms``/``!ma``/``!mcast`` (monster), with
  ``-t target`` (repeatable), ``adv``/``dis``, ``-l``, ``-d``, ``-b``, ``-phrase`` kept.

Attacks, casts, checks and saves also become actions; ``-t`` names are matched
against the roster (prefix and near-miss allowed) and an ambiguous one is reported.
"""

from __future__ import annotations

import re

from .avrae import command as avrae_command
from .initiative import init as init_command
from .initiative import ri as ri_command
from .lexicon import Lexicon, fold, get
from .model import Command
from .roster import Roster
from .scans import CommandScan
from .standing_words import command_words
from .tags import FoundRoll, is_hidden_word, read_expression, refused, split_advantage

ROLL_COMMANDS = frozenset((".r", ".rh", "/roll", "/r", "!roll", "!r"))
LINE = re.compile(
    r"(?m)^[ \t]{0,16}(?P<cmd>\.[^\W\d_][^\W\d_-]{2,14}(?=[ \t]|$)|\.(?:if|se)(?=[ \t])|\.rh|\.ri|\.init|\.r|/roll|/r|!roll|!r|![^\W\d_][\w-]{0,30}"
    r"|#[^\W\d_][\w-]{0,30})(?P<rest>[^\n]*)")
# a line that may be a command or a label line: matched on the first line, searched after
# each line break (a multiline "^" would be tried at every character)
_LINE_HEAD = (r"(?:[ \t]{0,16}[.!/#]|[ \t*_>]{0,8}[^\W\d_][^\W\d_ -]{0,30}"
              r"(?: [^\W\d_]{1,15}){0,2}[ \t*_]{0,4}:)")
_FIRST_START = re.compile(_LINE_HEAD)
_START = re.compile("\n" + _LINE_HEAD)
_LABEL = re.compile(r"(?m)^[ \t*_>]{0,8}(?P<label>[^\W\d_][^\W\d_ -]{0,30}(?: [^\W\d_]{1,15}){0,2})"
                    r"[ \t*_]{0,4}:[ \t*_]{0,4}(?P<rest>[^\n]*)")


#: The result for a post with no command line (shared: never mutate a scan result).
EMPTY = CommandScan()


def scan(text: str, lex: Lexicon, roster: Roster | None) -> CommandScan:
    if _FIRST_START.match(text) is None and _START.search(text) is None:
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
    return get("en")


def _dispatch(low: str, cmd: str, rest: str, line: str, pos: int, lex: Lexicon,
              roster: Roster | None, out: CommandScan) -> bool:
    first = rest[:1]
    standing = command_words().get(fold(low[1:])) if low[0] == "." else None
    if standing is not None:   # STALL-1/2: read by the rounds layer; declares nothing now
        out.commands.append(Command(standing, line, cmd, pos, args=(rest.strip(),)))
        return True
    if low in ROLL_COMMANDS:
        if rest and not (first.isspace() or first.isdigit() or first in "dDкК(+-"):
            return False
        if low == "/r" and not rest.strip():
            return False
        flagged, rest = _hidden_flag(rest, lex)
        _roll_line(low, rest, pos, lex, out, hidden=low == ".rh" or flagged)
        return True
    if low == ".ri":
        if first.isalpha():
            return False
        ri_command(rest, line, pos, lex, roster, out)
        return True
    if low == ".init":
        if rest and not first.isspace():
            return False
        init_command(rest, line, pos, lex, roster, out)
        return True
    if low[0] == "!":
        avrae_command(low[1:], rest, line, pos, lex, roster, out)
        return True
    return False


_FLAG = re.compile(r"(?:^|(?<=\s))-(?P<word>[^\W\d_]{1,12})(?=\s|$)")


def _hidden_flag(rest: str, lex: Lexicon) -> tuple[bool, str]:
    """(whether *rest* carries a hidden flag, *rest* without it): ``!r -h 1d20``,
    ``/r 1d20 -oculto``, ``!roll -скрыто 1d20`` (DICE-2). The flag is blanked, not cut, so
    positions after it keep their place.

    >>> _hidden_flag(" -h 1d20+5 stealth", get("en"))
    (True, '    1d20+5 stealth')
    >>> _hidden_flag(" 1d20-2", get("en"))
    (False, ' 1d20-2')
    """
    if "-" not in rest:
        return False, rest
    flagged = False

    def blank(m: re.Match[str]) -> str:
        nonlocal flagged
        if is_hidden_word(m.group("word"), lex):
            flagged = True
            return " " * len(m.group())
        return m.group()

    kept = _FLAG.sub(blank, rest)
    return flagged, kept


def _roll_line(syntax: str, rest: str, pos: int, lex: Lexicon, out: CommandScan,
               *, hidden: bool) -> None:
    expr = read_expression(rest)
    if expr.problem or expr.expression is None:
        problem, params = refused(expr, rest)
        out.issues.append((problem, pos, params))
        return
    adv, words = split_advantage(expr.rest, lex)
    label = words.lstrip("#:—–- ").strip() or None
    end = pos + len(syntax) + len(rest)
    out.rolls.append(FoundRoll(expr.expression, label, syntax, pos, end, rest.strip(), adv, hidden))


