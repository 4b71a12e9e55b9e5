"""A ruleset's houserules looked up by dotted path, each path once (SCALE-6).

Apart from :mod:`.base` so the base ruleset stays readable; a round asks for settings
thousands of times, and the settings are fixed once the ruleset is built (houserules come
in through the constructor), so each answer is kept per instance.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: what :meth:`Settings.setting` remembers for a path the settings do not hold
_MISSING = object()


class Settings:
    """The ``setting`` lookup of :class:`pbp.rules.base.Ruleset`."""

    settings: dict[str, Any]

    def setting(self, path: str, default: Any = None) -> Any:
        """A houserule by dotted path (``"latency.mode"``).

        Looked up once per path and instance (SCALE-6: a round asks thousands of times);
        the settings are fixed once the ruleset is built (houserules come in through
        the constructor)."""
        try:
            found = self._found[path]
        except AttributeError:
            self._found: dict[str, Any] = {}
            found = self._found[path] = self._lookup(path)
        except KeyError:
            found = self._found[path] = self._lookup(path)
        return default if found is _MISSING else found

    def _lookup(self, path: str) -> Any:
        node: Any = self.settings
        for part in path.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return _MISSING
            node = node[part]
        return node
