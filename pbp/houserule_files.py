"""Reading a ruleset's houserule file, ``pbp/config/rulesets/<id>.toml``.

Why outside :mod:`pbp.rules`: the engine reads no file. The rounds layer, the panel and
``pbp bench`` call :func:`load` and pass the resulting plain dict to the engine. Every
built-in ruleset ships its file, so a missing one is a :class:`ConfigError` naming the
path it looked for, never a silent ``{}`` (a deployment without ``pbp/config/`` would
otherwise play with no houserules at all and nobody would know).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .errors import ConfigError
from .rules.houserules import merge
from .rules.registry import ruleset_class
from .settings import CONFIG_DIR

#: the shipped houserules, pbp/config/rulesets (inside the package, so a wheel carries them)
DEFAULT_DIR = CONFIG_DIR / "rulesets"


def path_for(ruleset_id: str, config_dir: Path | None = None) -> Path:
    """Where the houserule file of *ruleset_id* lives."""
    return (config_dir or DEFAULT_DIR) / f"{ruleset_id}.toml"


def read_file(ruleset_id: str, config_dir: Path | None = None) -> dict[str, Any]:
    """The ruleset's TOML file as a dict; a missing or broken file is a ConfigError naming it."""
    path = path_for(ruleset_id, config_dir)
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"no houserule file for ruleset '{ruleset_id}': {path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load(ruleset_id: str, overrides: Mapping[str, Any] | None = None, *,
         config_dir: Path | None = None) -> dict[str, Any]:
    """File settings with *overrides* on top, checked against the ruleset's known keys."""
    ruleset_class(ruleset_id)  # an unknown id says so before any file is looked for
    return merge(ruleset_id, read_file(ruleset_id, config_dir), overrides)
