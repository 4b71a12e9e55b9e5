"""Houserules: ``config/rulesets/<id>.toml`` merged with a scenario's or narrator's overrides.

Why outside the engine: the engine is pure (no files). The rounds layer, the panel and
``pbp bench`` call :func:`load` and pass the resulting plain dict to
:func:`pbp.rules.engine.resolve`. Keys are checked against the ruleset's defaults, so
a typo in a TOML file or a scenario is a :class:`ConfigError` naming it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .base import check_keys, deep_merge
from .registry import ruleset_class

#: the repository's config/rulesets (next to pbp/)
DEFAULT_DIR = Path(__file__).resolve().parents[2] / "config" / "rulesets"


def read_file(ruleset_id: str, config_dir: Path | None = None) -> dict[str, Any]:
    """The ruleset's TOML file as a dict ({} when there is none)."""
    path = (config_dir or DEFAULT_DIR) / f"{ruleset_id}.toml"
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load(ruleset_id: str, overrides: Mapping[str, Any] | None = None, *,
         config_dir: Path | None = None) -> dict[str, Any]:
    """File settings with *overrides* on top, checked against the ruleset's known keys."""
    cls = ruleset_class(ruleset_id)
    from_file = read_file(ruleset_id, config_dir)
    check_keys(cls.defaults, from_file, ruleset=ruleset_id)
    merged = deep_merge(from_file, overrides or {})
    check_keys(cls.defaults, merged, ruleset=ruleset_id)
    return merged
