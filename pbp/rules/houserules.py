"""Houserules: a ruleset's file settings merged with a scenario's or narrator's overrides.

Why outside the rulesets and free of files: the engine is pure. The file
(``pbp/config/rulesets/<id>.toml``) is read by :mod:`pbp.houserule_files`; this module only
checks and merges plain mappings, so a typo in a TOML file or a scenario is a
:class:`ConfigError` naming it. The result is passed to
:func:`pbp.rules.engine.resolve`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .houserule_tables import check_keys, deep_merge
from .registry import ruleset_class


def merge(ruleset_id: str, from_file: Mapping[str, Any],
          overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """*from_file* with *overrides* on top, both checked against the ruleset's known keys."""
    cls = ruleset_class(ruleset_id)
    check_keys(cls.defaults, from_file, ruleset=ruleset_id)
    merged = deep_merge(from_file, overrides or {})
    check_keys(cls.defaults, merged, ruleset=ruleset_id)
    return merged
