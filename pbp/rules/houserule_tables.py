"""Houserule tables: merging nested settings, and refusing keys a ruleset does not know.

Why below the ruleset base: every ruleset merges its houserules over its defaults when it
is made, and :mod:`pbp.rules.houserules` checks a file's keys the same way; one copy of
each, imported by both.

>>> deep_merge({"latency": {"mode": "total-defense", "penalty": 2}}, {"latency": {"penalty": 3}})
{'latency': {'mode': 'total-defense', 'penalty': 3}}
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """*override* on top of *base*, recursing into tables."""
    out: dict[str, Any] = _copy(dict(base))
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = _copy(value)
    return out


_ATOMS = (str, int, float, bool, type(None))


def _copy(value: Any) -> Any:
    """``copy.deepcopy`` for TOML-like data (tables, arrays, scalars), without its memo
    bookkeeping: a ruleset is made every round and its defaults are such data (SCALE-6).
    Anything else still goes through ``deepcopy``."""
    kind = type(value)
    if kind is dict:
        return {k: _copy(v) for k, v in value.items()}
    if kind is list:
        return [_copy(v) for v in value]
    if kind in _ATOMS:
        return value
    return copy.deepcopy(value)


def check_keys(defaults: Mapping[str, Any], given: Mapping[str, Any], *, ruleset: str,
               prefix: str = "") -> None:
    """Refuse houserule keys the ruleset does not know, naming them and the known ones."""
    for key, value in given.items():
        if key not in defaults:
            known = ", ".join(sorted(f"{prefix}{k}" for k in defaults))
            raise ConfigError(f"unknown houserule '{prefix}{key}' for ruleset '{ruleset}' "
                              f"(known: {known})")
        default = defaults[key]
        if isinstance(default, Mapping):
            if not isinstance(value, Mapping):
                raise ConfigError(f"houserule '{prefix}{key}' for ruleset '{ruleset}' "
                                  f"must be a table")
            check_keys(default, value, ruleset=ruleset, prefix=f"{prefix}{key}.")
        elif not _same_type(default, value):
            raise ConfigError(f"houserule '{prefix}{key}' for ruleset '{ruleset}' must be "
                              f"{type(default).__name__}-valued like its default "
                              f"{default!r}, not {value!r}")


def _same_type(default: Any, value: Any) -> bool:
    """A houserule keeps its default's type (a float default also takes whole numbers)."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if default is None:
        return True
    return isinstance(value, type(default))
