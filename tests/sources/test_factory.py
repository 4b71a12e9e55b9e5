"""open_source: the thread's declared kind picks its constructor; options reach it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbp.errors import ConfigError
from pbp.settings import load_settings
from pbp.sources.base import SourceError
from pbp.sources.factory import CONSTRUCTORS, KINDS, open_source
from pbp.sources.forum import ForumSource
from pbp.sources.scenario_file import FileSource

URL = "http://127.0.0.1:8002/forum/forum/adventures-2/topic/the-goblin-cave-1/"


def test_every_declared_kind_has_one_constructor() -> None:
    assert KINDS == ("file", "forum", "reddit") == tuple(sorted(CONSTRUCTORS))


def test_a_forum_thread_gets_its_preset_hosts_and_backfill(tmp_path: Path) -> None:
    settings = load_settings(env={"PBP_DATA_DIR": str(tmp_path)})
    src = open_source("forum", URL, {"preset": "machina", "allowed_hosts": ["127.0.0.1"],
                                     "backfill_pages": 2}, settings)
    assert isinstance(src, ForumSource)
    assert (src.preset.name, src.backfill_pages, src.topic_id) == ("machina", 2, "1")
    with pytest.raises(SourceError, match="not configured for this campaign"):
        open_source("forum", URL, {"allowed_hosts": ["forum.example"]}, settings)


def test_a_file_thread_reads_its_format_and_replies_path(tmp_path: Path) -> None:
    thread = tmp_path / "t.yaml"
    thread.write_text("")
    src = open_source("file", str(thread), {"replies_path": str(tmp_path / "out.yaml")})
    assert isinstance(src, FileSource)
    src.reply("the goblin falls", "pbp:1:resolution")
    assert (tmp_path / "out.yaml").exists()


def test_an_unknown_kind_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown source kind 'nntp' \(file, forum, reddit\)"):
        open_source("nntp", "news://x")
