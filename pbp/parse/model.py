"""What the parser returns: frozen values, one per thing found in a post.

Positions are character offsets in the *normalised* text (for plain text, BBCode
and Markdown that is the post as written; for HTML it is the text BeautifulSoup
extracted, see :mod:`pbp.parse.normalise`). Nothing here rolls dice: a
:class:`RollTag` is what was written, rolled later by the rounds layer once per
tag (tag identity = post id + :attr:`RollTag.index`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from ..frozen import quick_init as _quick_init
from ..rules.model import Action, ActionKind, Declaration
from ..rules.options import PROVENANCE, options_for


class IssueList(list):  # type: ignore[type-arg]
    """Problems found by one scanner; past :attr:`cap` only counted (a post of 20,000 bad
    tags would otherwise allocate 20,000 messages nobody reads)."""

    cap = 200
    dropped = 0        # set on the instance by the first append past the cap

    def append(self, item: object) -> None:
        if len(self) < self.cap:
            super().append(item)
        else:
            self.dropped += 1


@_quick_init
@dataclass(frozen=True)
class Span:
    """A stretch of the post that is not the poster's declaration (quote, spoiler, code, ooc)."""

    kind: str
    start: int
    end: int


@_quick_init
@dataclass(frozen=True)
class RollTag:
    """One roll the poster asked for.

    ``expression`` is ready for :meth:`pbp.dice.DiceBox.roll` (Cyrillic ``к`` read
    as ``d``; stat names such as ``Dex`` or ``Luta`` are left for the engine);
    ``text`` is the tag's content as written. ``advantage`` is +1 (adv), -1 (dis)
    or 0. ``syntax`` names the form: ``[roll]``, ``[roll=]``, ``[dice]``,
    ``[dice=]``, ``[roll ]``, ``[dice ]``, ``[[]]``, ``.r``, ``.rh``, ``/roll``,
    ``!roll``, ``!r``. ``purpose`` is read from the label (attack, damage,
    defense, initiative, check) when it says so.

    ``index`` is the tag's place in the post; ``key`` names it by what it says
    (``[roll=]|1d20+5|Ataque|0``: syntax, expression, label, and how many identical tags
    came before), so that a tag keeps its identity when an edit adds another before it
    and the rounds layer never rolls it twice (PBP-4).
    """

    index: int
    expression: str
    label: str | None
    syntax: str
    position: int
    end: int
    text: str = ""
    advantage: int = 0
    hidden: bool = False
    purpose: str | None = None
    action_index: int | None = None
    in_quote: bool = False
    key: str = ""                      # stable across edits: syntax|expression|label|n (PBP-4)

    def dice_expression(self) -> str:
        """The expression in d20 notation with advantage applied to the first ``1d20``.

        >>> RollTag(0, "1d20+5", None, "[[]]", 0, 0, advantage=1).dice_expression()
        '2d20kh1+5'
        """
        if not self.advantage:
            return self.expression
        keep = "kh1" if self.advantage > 0 else "kl1"
        lowered = self.expression.lower()
        at = lowered.find("1d20")
        if at >= 0 and not lowered[at + 4: at + 5].isdigit():
            return f"{self.expression[:at]}2d20{keep}{self.expression[at + 4:]}"
        if lowered.startswith("d20") and not lowered[3:4].isdigit():
            return f"2d20{keep}{self.expression[3:]}"
        return self.expression


@_quick_init
@dataclass(frozen=True)
class InitiativeEntry:
    """One combatant of an initiative command: ``name`` None means the poster."""

    name: str | None
    expression: str | None = None      # to roll (``1d20+3``, ``1d20+Dex``)
    value: float | None = None         # given outright (``.ri 12 Name``)
    advantage: int = 0
    key: str | None = None             # roster key when the name matched one


@_quick_init
@dataclass(frozen=True)
class Command:
    """A bot-style command line (``.ri``, ``.init``, Avrae's ``!i``, ``!a``, ``!cast``...).

    ``name`` is stable: ``initiative.roll``, ``initiative.show``, ``initiative.clear``,
    ``initiative.next``, ``initiative.prev``, ``initiative.set``, ``initiative.delete``,
    ``initiative.join``, ``initiative.add``, ``initiative.begin``, ``initiative.end``,
    ``initiative.goto``, ``initiative.list``, ``attack``, ``cast``, ``check``, ``save``,
    ``monster.check``, ``monster.save``, ``monster.attack``, ``monster.cast``, ``other``.
    """

    name: str
    text: str
    syntax: str
    position: int
    args: tuple[str, ...] = ()
    targets: tuple[str, ...] = ()
    entries: tuple[InitiativeEntry, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)


def declared(kind: ActionKind, position: int, text: str = "", target: str | None = None,
             target_text: str | None = None, candidates: tuple[str, ...] = (),
             weapon: str | None = None, explicit: bool = False, confidence: float = 1.0,
             source: str = "prose", verb: str | None = None,
             options: Mapping[str, Any] | None = None) -> Action:
    """One declared action as the parser finds it: a :class:`pbp.rules.model.Action`
    (the engine's own value, ``rolled`` None), where it came from kept in its options
    (``source``: prose | explicit | command | label, ``verb``, ``candidates`` when several
    combatants matched the target, ``target_text``). The one shape from post to engine."""
    opts = options_for(kind).evolve(**(options or {}), source=source, verb=verb,
                                    candidates=candidates, target_text=target_text)
    return Action(kind, target, weapon, text, explicit, confidence, None, position, opts)


def with_rolls(action: Action, indices: Sequence[int]) -> Action:
    """*action* owning the post's roll tags *indices* (the first is its own, PBP-4).

    A copy of the frozen action with the new options set on it (``replace`` would run
    ``__post_init__`` again for nothing)."""
    options = action.options.evolve(roll_index=indices[0], roll_indices=tuple(indices))
    new = copy.copy(action)
    new.__dict__["options"] = options
    return new


@_quick_init
@dataclass(frozen=True)
class Utterance:
    """A line of speech: between quotation marks or opened by a dialogue dash."""

    text: str
    position: int
    mark: str                          # the opening mark: " “ « „ or the dash


@_quick_init
@dataclass(frozen=True)
class OocNote:
    """Out-of-character text, kept for the narrator but never declared."""

    text: str
    position: int


@_quick_init
@dataclass(frozen=True)
class ParseIssue:
    """A problem found in the post, in the post's language. ``code`` is stable."""

    code: str
    message: str
    position: int
    severity: str = "error"            # error | warning
    params: Mapping[str, Any] = field(default_factory=dict)


@_quick_init
@dataclass(frozen=True)
class ParsedPost:
    """Everything :func:`pbp.parse.parse_post` found in one post."""

    text: str                           # the normalised text positions refer to
    lang: str
    fmt: str
    rolls: tuple[RollTag, ...] = ()
    commands: tuple[Command, ...] = ()
    actions: tuple[Action, ...] = ()   # rolled None; see :func:`declared`
    speech: tuple[Utterance, ...] = ()
    ooc: tuple[OocNote, ...] = ()
    errors: tuple[ParseIssue, ...] = ()
    excluded: tuple[Span, ...] = ()

    @property
    def speech_count(self) -> int:
        return len(self.speech)

    def to_actions(self) -> list[Action]:
        """The declared actions (:class:`pbp.rules.model.Action`, ``rolled`` left None)."""
        return list(self.actions)

    to_declaration_actions = to_actions

    def to_declaration(self, actor: str, *, post_id: str | None = None,
                       late: bool = False) -> Declaration:
        """The post as one combatant's :class:`pbp.rules.model.Declaration` (rolls unrolled)."""
        return Declaration(actor=actor, actions=tuple(self.to_actions()), late=late,
                           speech_count=self.speech_count, post_id=post_id)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types, the ``pbp parse`` schema (docs/parse.md)."""

        def clean(d: dict[str, Any]) -> dict[str, Any]:
            return {k: (v.value if isinstance(v, ActionKind) else v) for k, v in d.items()}

        return {
            "lang": self.lang,
            "format": self.fmt,
            "rolls": [clean(asdict(r)) for r in self.rolls],
            "commands": [clean(asdict(c)) for c in self.commands],
            "actions": [_action_dict(a) for a in self.actions],
            "speech": [clean(asdict(u)) for u in self.speech],
            "speech_count": self.speech_count,
            "ooc": [clean(asdict(o)) for o in self.ooc],
            "excluded": [clean(asdict(s)) for s in self.excluded],
            "errors": [clean(asdict(e)) for e in self.errors],
        }


def _action_dict(a: Action) -> dict[str, Any]:
    """An action in the ``pbp parse`` schema (docs/parse.md): where it came from beside
    the kind, the rest of its options under ``options``."""
    o = a.options
    return {"kind": a.kind.value, "position": a.position, "text": a.text, "target": a.target,
            "target_text": o.target_text, "candidates": list(o.candidates), "weapon": a.weapon,
            "explicit": a.explicit, "confidence": a.confidence, "source": o.source,
            "verb": o.verb, "roll_index": o.roll_index, "roll_indices": list(o.roll_indices),
            "options": {k: v for k, v in o.to_dict().items() if k not in PROVENANCE}}
