"""The engine's event sentences, said fast (SCALE-6): each plain template of
:mod:`pbp.rules.messages` compiled once into a function of the event's params.

Why: a round says hundreds of events; formatting a template means copying the params
into a mapping with the names and parsing the template again, every time.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from . import messages


def say_for(code: str, params: Mapping[str, Any], actor: str | None, target: str | None,
            people: Mapping[str, Named]) -> str:
    """:func:`pbp.rules.messages.say` for the engine's :meth:`emit`, with *actor* and *target* given as keys
    of *people* and said as ``RoundContext.name`` says them (their name; the key when
    nobody has it; ``someone`` for None).

    SCALE-6: a round says hundreds of events, so each plain template is compiled once into
    a function filling its fields straight from *params* (no copy of them, no parse of the
    template, a name looked up only when the sentence says it); the varied and derived
    templates take :func:`pbp.rules.messages.say`."""
    sayer = _SAYERS.get(code)
    if sayer is None:
        if code in messages._VARIED or code == "opposed.won" or code not in messages.EN:
            return messages.say(code, params, _said(actor, people), _said(target, people))
        sayer = _SAYERS[code] = _compiled(messages.EN[code])
    if "resistance" in params:
        return messages.say(code, params, _said(actor, people), _said(target, people))
    return sayer(params, actor, target, people)


class Named(Protocol):
    """What :func:`say_for` reads of a combatant."""

    @property
    def name(self) -> str: ...


def _said(key: str | None, people: Mapping[str, Named]) -> str:
    if key is None:
        return "someone"
    found = people.get(key)
    return found.name if found is not None else key


#: code -> its compiled template (see :func:`say_for`)
_SAYERS: dict[str, Callable[[Mapping[str, Any], str | None, str | None, Mapping[str, Named]], str]] = {}

#: how a compiled template says its actor / target field when the params lack it
_NAME_FIELD = """    if {field!r} in p:
        {var} = p[{field!r}]
    elif {key} is None:
        {var} = 'someone'
    else:
        {var} = people.get({key})
        {var} = {key} if {var} is None else {var}.name"""


def _compiled(text: str) -> Callable[[Mapping[str, Any], str | None, str | None,
                                      Mapping[str, Named]], str]:
    """*text* (plain fields only: no format spec or conversion) as a function of (params,
    actor key, target key, people) giving what :func:`say` gives: a field the params lack
    says ``?``; ``actor`` and ``target`` default to the names of the keys given."""
    body: list[str] = []
    lines: list[str] = []
    names: dict[str, str] = {}
    for literal, name, spec, conversion in string.Formatter().parse(text):
        body.append(literal.replace("{", "{{").replace("}", "}}"))
        if name is None:
            continue
        if spec or conversion or not name.isidentifier():
            raise ValueError(f"template field {name!r} of {text!r} is not a plain name")
        if name not in names:
            names[name] = var = f"v{len(names)}"
            if name in ("actor", "target"):
                lines.append(_NAME_FIELD.format(field=name, var=var, key=name[0]))
            else:
                lines.append(f"    {var} = p.get({name!r}, '?')")
        body.append("{" + names[name] + "}")
    source = "def say(p, a, t, people):\n" + "\n".join(lines + ["    return f" + repr("".join(body))])
    scope: dict[str, Any] = {}
    exec(source, scope)  # noqa: S102 - built from this module's own templates
    return scope["say"]  # type: ignore[no-any-return]
