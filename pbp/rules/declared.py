"""What players declare and what happened: actions, declarations and events (see model.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..dice import Roll
from ..errors import UnreadableInput
from ..frozen import quick_init
from .kinds import ActionKind
from .options import Options, options_for
from .values import _build, _jsonable, _plain, roll_from_dict, roll_to_dict

_CONVERTED = frozenset(("kind", "rolled", "options"))


@dataclass(frozen=True)
class Action:
    """One declared action. ``rolled`` is a roll already made for the post's tag (PBP-4):
    the engine uses it instead of rolling again. ``position`` is the character offset
    in the post, so replies and the panel can point at it.

    ``options`` is the kind's own frozen type (:mod:`pbp.rules.options`); a mapping of
    option names is accepted and converted, so an unknown option is an error naming it
    and the kind. The stored form is :meth:`to_dict` / :meth:`from_dict`; the notation
    is :func:`pbp.parse.explicit.render` / :func:`pbp.parse.explicit.read`.

    >>> Action(ActionKind.MOVE, options={"distance": 6}).options.distance
    6
    """

    kind: ActionKind
    target: str | None = None             # combatant key
    weapon: str | None = None
    text: str = ""
    explicit: bool = True
    confidence: float = 1.0
    rolled: Roll | None = None
    position: int | None = None
    options: Options = None  # type: ignore[assignment]  # None or a mapping: converted below

    def __post_init__(self) -> None:
        opts = self.options
        if not isinstance(opts, Options) or opts.KIND is not self.kind:
            object.__setattr__(self, "options", options_for(self.kind, opts))

    def to_dict(self) -> dict[str, Any]:
        # SCALE-6: rolled and options are converted once, here (_plain converted each twice)
        d = _plain(self, _CONVERTED)
        d["kind"] = self.kind.value
        d["rolled"] = roll_to_dict(self.rolled) if self.rolled else None
        d["options"] = self.options.to_dict()
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Action:
        if not isinstance(data, Mapping):
            raise UnreadableInput(f"expected a mapping for Action, got {type(data).__name__}")
        return _build(
            cls, data, kind=ActionKind,
            rolled=lambda r: roll_from_dict(r) if r else None,
        )


@dataclass(frozen=True)
class Declaration:
    """What one combatant declares for one round (from a post, a scenario, or the narrator)."""

    actor: str                            # combatant key
    actions: tuple[Action, ...] = ()
    late: bool = False                    # PBP-2: posted after the deadline (or missing: see ``missing``)
    missing: bool = False                 # no post at all this round
    speech_count: int = 0                 # PBP-3
    penalty_waived: bool = False          # narrator's waiver of PBP-2
    post_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d = _plain(self)
        d["actions"] = [a.to_dict() for a in self.actions]
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Declaration:
        return _build(cls, data, actions=lambda xs: tuple(Action.from_dict(a) for a in xs))


@quick_init
@dataclass(frozen=True)
class Event:
    """Something that happened or was refused, explaining itself.

    ``code`` is a stable machine name (``attack.hit``, ``action.rejected``); ``rule``
    the RULES.md id that decided it; ``message`` an English sentence a player
    understands; ``params`` what renderers need to say it in other languages.
    """

    code: str
    message: str
    actor: str | None = None
    target: str | None = None
    rule: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    rolls: tuple[Roll, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = {
            "code": self.code,
            "message": self.message,
            "actor": self.actor,
            "target": self.target,
            "rule": self.rule,
            "params": _jsonable(self.params),
            "rolls": [roll_to_dict(r) for r in self.rolls],
        }
        return d

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        return _build(cls, data, params=dict,
                      rolls=lambda rs: tuple(roll_from_dict(r) for r in rs))
