"""One way to open any watched thread as a :class:`~pbp.sources.base.Source`.

Why here: workers, the panel and the CLI all hold a Thread row (kind, URL or path,
options) and need the live source for it. The row declares its kind; each kind has one
constructor in :data:`CONSTRUCTORS` taking (target, options, settings), so adding a
platform is one line here and nothing is guessed from a class's methods.

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

from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ConfigError
from ..settings import Settings, load_settings
from .base import Source
from .forum import ForumSource
from .reddit import RedditSource
from .scenario_file import BOT, FileSource

Constructor = Callable[[str, Mapping[str, Any], Settings], Source]


def _file_source(path: str, options: Mapping[str, Any], settings: Settings) -> Source:
    """A scenario file: ``replies_path``, ``format`` and ``bot`` (the replies' author)
    from the options; no settings."""
    return FileSource(path, replies_path=options.get("replies_path"),
                      fmt=options.get("format", "text"), bot=str(options.get("bot") or BOT))


#: the constructor of each declared kind (``Thread.kind``)
CONSTRUCTORS: dict[str, Constructor] = {
    "file": _file_source,
    "forum": ForumSource.from_options,
    "reddit": RedditSource.from_options,
}
KINDS = tuple(sorted(CONSTRUCTORS))


def open_source(kind: str, url_or_path: str, options: Mapping[str, Any] | None = None,
                settings: Settings | None = None) -> Source:
    """The live source for a watched thread: ``kind`` is ``file``, ``forum`` or ``reddit``.
    Settings are loaded only for a kind that reads them (a file source needs none)."""
    constructor = CONSTRUCTORS.get(kind)
    if constructor is None:
        raise ConfigError(f"unknown source kind {kind!r} ({', '.join(KINDS)})")
    if settings is None and kind != "file":
        settings = load_settings()
    return constructor(url_or_path, dict(options or {}), settings or Settings())
