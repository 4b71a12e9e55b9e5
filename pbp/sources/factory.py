"""One way to open any watched thread as a :class:`~pbp.sources.base.Source`.

Why here: workers, the panel and the CLI all hold a Thread row (kind, URL or path,
options) and need the live source for it; the forum and Reddit modules are imported
lazily, so the embedded default (a scenario file) starts without praw or a forum preset.

>>> import tempfile, pathlib
>>> f = pathlib.Path(tempfile.mkdtemp()) / "t.yaml"; _ = f.write_text("")
>>> open_source("file", str(f)).__class__.__name__
'FileSource'
>>> open_source("gopher", "x")
Traceback (most recent call last):
...
pbp.errors.ConfigError: unknown source kind 'gopher' (file, forum, reddit)
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError
from ..settings import Settings, load_settings
from .base import Source

KINDS = ("file", "forum", "reddit")


def _construct(module: str, cls_name: str, target: str, options: Mapping[str, Any],
               settings: Settings) -> Source:
    cls = getattr(importlib.import_module(module), cls_name)
    # Prefer an explicit constructor from settings where the module offers one.
    for name in ("open", "from_settings", "from_options"):
        factory = getattr(cls, name, None)
        if callable(factory):
            return factory(target, dict(options), settings)  # type: ignore[no-any-return]
    params = inspect.signature(cls).parameters
    kwargs = {k: v for k, v in options.items() if k in params}
    if "settings" in params:
        kwargs["settings"] = settings
    return cls(target, **kwargs)  # type: ignore[no-any-return]


def open_source(kind: str, url_or_path: str, options: Mapping[str, Any] | None = None,
                settings: Settings | None = None) -> Source:
    """The live source for a watched thread: ``kind`` is ``file``, ``forum`` or ``reddit``."""
    options = dict(options or {})
    if kind == "file":
        from .scenario_file import FileSource
        return FileSource(url_or_path, replies_path=options.get("replies_path"),
                          fmt=options.get("format", "text"))
    settings = settings or load_settings()
    if kind == "forum":
        return _construct("pbp.sources.forum", "ForumSource", url_or_path, options, settings)
    if kind == "reddit":
        return _construct("pbp.sources.reddit", "RedditSource", url_or_path, options, settings)
    raise ConfigError(f"unknown source kind {kind!r} ({', '.join(KINDS)})")
