"""Checked reading of a scenario's nested mappings: types, allowed keys, and where.

Why apart from :mod:`pbp.rules.scenario`: these helpers know nothing of fights, only of
a tree of mappings whose errors must name the file, line and key path
(``examples/x.yaml:12 (combatants[0].weapons[1])``).
"""

from __future__ import annotations

from typing import Any

from ..errors import UnreadableInput


class LineDict(dict[str, Any]):
    """A mapping that knows the line it (and each of its keys) came from.

    The file reader (:mod:`pbp.scenario_files`) builds these, so an error can name the
    line; a plain dict works too, and its errors name the key path only.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = 0
        self.key_lines: dict[str, int] = {}


def where_of(path: str, node: Any, trail: str, key: str | None = None) -> str:
    """``file:line (key path)``, or ``file (key path)`` when the line is not known."""
    line = None
    if isinstance(node, LineDict):
        line = node.key_lines.get(key, node.line) if key else node.line
    return f"{path}:{line} ({trail})" if line else f"{path} ({trail})"


def need_mapping(value: Any, path: str, parent: Any, trail: str) -> LineDict:
    if not isinstance(value, dict):
        raise UnreadableInput(f"expected a mapping, got {type(value).__name__}",
                              where=where_of(path, parent, trail))
    return value if isinstance(value, LineDict) else LineDict(value)


def check_keys(node: LineDict, allowed: set[str], path: str, trail: str) -> None:
    for key in node:
        if key not in allowed:
            raise UnreadableInput(f"unknown key '{key}' (allowed: {', '.join(sorted(allowed))})",
                                  where=where_of(path, node, trail, key))


KINDS = {"int": "a whole number", "number": "a number", "bool": "true or false",
         "str": "a text", "list": "a list", "map": "a mapping"}


def typed(node: LineDict, key: str, path: str, trail: str, kind: str,
          default: Any = None) -> Any:
    """``node[key]`` checked to be of *kind* (see ``KINDS``); absent or null -> *default*."""
    if key not in node or node[key] is None:
        return default
    value = node[key]
    ok = {
        "int": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "str": isinstance(value, (str, int, float)) and not isinstance(value, bool),
        "list": isinstance(value, list),
        "map": isinstance(value, dict),
    }[kind]
    if not ok:
        raise UnreadableInput(f"'{key}' must be {KINDS[kind]}, not {value!r}",
                              where=where_of(path, node, trail, key))
    if kind == "str":
        return str(value)
    if kind == "map" and not isinstance(value, LineDict):
        return LineDict(value)
    return value


def strings(node: LineDict, key: str, path: str, trail: str) -> tuple[str, ...]:
    items = typed(node, key, path, trail, "list", [])
    for item in items:
        if not isinstance(item, str):
            raise UnreadableInput(f"'{key}' must list texts, not {item!r}",
                                  where=where_of(path, node, trail, key))
    return tuple(items)
