"""Reading scenario files (``pbp bench SCENARIO.yaml``, thread scenarios): YAML -> Scenario.

Why outside :mod:`pbp.rules`: the engine reads no file. This module turns the text into
mappings that remember their line numbers (so an error says ``file:12 (combatants[0])``)
and reads the ruleset's houserule file; :func:`pbp.rules.scenario.build` checks the
mappings and builds the encounter. The format is documented in ``docs/scenarios.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import UnreadableInput
from .houserule_files import read_file
from .rules.scenario import Scenario, build
from .rules.scenario_nodes import LineDict


class _Loader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types
    """SafeLoader that remembers the line of every mapping and key (for error messages)."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    out = LineDict()
    out.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        out[str(key)] = loader.construct_object(value_node, deep=True)
        out.key_lines[str(key)] = key_node.start_mark.line + 1
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def parse(text: str, path: str = "<scenario>") -> Any:
    """The YAML *text* as plain values whose mappings are :class:`LineDict`."""
    try:
        return yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise UnreadableInput(f"not valid YAML: {exc.problem}", where=f"{path}{line}") from None
    except yaml.YAMLError as exc:
        raise UnreadableInput(f"not valid YAML: {exc}", where=path) from None


def loads(text: str, path: str = "<scenario>") -> Scenario:
    """A checked scenario from YAML *text*; *path* names it in error messages."""
    return build(parse(text, path), path, read_file)


def load(path: str | Path) -> Scenario:
    """Read and check a scenario file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise UnreadableInput(f"cannot read the scenario: {exc.strerror}", where=str(p)) from None
    return loads(text, str(p))
