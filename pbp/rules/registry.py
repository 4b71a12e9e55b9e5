"""Rulesets by id: ``get("forum-d20")`` -> a configured :class:`~pbp.rules.base.Ruleset`.

Built-in rulesets are imported lazily on first use, so importing the engine does not
import every ruleset, and a ruleset module still being written elsewhere does not
break the others.

>>> get("forum-d20").id
'forum-d20'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..errors import ConfigError
from .base import Ruleset
from .turn_modes import check_turns

#: modules under pbp.rules that define built-in rulesets
BUILTIN: tuple[str, ...] = ("forum_d20", "beyonders", "dnd5e", "resistance", "two_action")

_REGISTRY: dict[str, type[Ruleset]] = {}
_loaded = False

R = TypeVar("R", bound=type[Ruleset])


def register(cls: R) -> R:
    """Class decorator: make *cls* findable by its ``id``."""
    if not cls.id or cls.id == "base":
        raise ConfigError(f"{cls.__name__} needs an id to be registered")
    _REGISTRY[cls.id] = cls
    return cls


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in BUILTIN:
        module = f"{__package__}.{name}"
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:  # not written yet: fine; a broken import is not
            if exc.name != module:
                raise


def known() -> list[str]:
    """Ids of every registered ruleset, sorted."""
    _load_builtins()
    return sorted(_REGISTRY)


def ruleset_class(ruleset_id: str) -> type[Ruleset]:
    _load_builtins()
    try:
        return _REGISTRY[ruleset_id]
    except KeyError:
        raise ConfigError(f"unknown ruleset '{ruleset_id}' (known: {', '.join(known())})") from None


def get(ruleset_id: str, houserules: Mapping[str, Any] | None = None) -> Ruleset:
    """A ruleset instance configured with *houserules* (merged over its defaults).

    Unknown id -> :class:`ConfigError` naming the known ids; unknown houserule key ->
    :class:`ConfigError` naming it.
    """
    rs = ruleset_class(ruleset_id)(houserules)
    check_turns(rs.id, rs.setting)  # STALL-7: a mistyped initiative mode must not pass silently
    return rs


def registered() -> Mapping[str, Callable[..., Ruleset]]:
    _load_builtins()
    return dict(_REGISTRY)
