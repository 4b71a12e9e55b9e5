"""Reading a ruleset's random tables, ``pbp/config/tables/<ruleset>/*.toml`` (DICE-6).

Why at the edge, like :mod:`pbp.houserule_files`: the checks are pure
(:mod:`pbp.random_tables`); only this module opens files. A broken file is a
:class:`pbp.random_tables.TableError` naming the file and every problem in it, never
a table silently missing. A ruleset with no folder simply has no tables.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from .random_tables import RandomTable, TableError, TableSet, name_clashes, parse_tables
from .settings import CONFIG_DIR

#: the shipped tables, pbp/config/tables (inside the package, so a wheel carries them)
DEFAULT_DIR = CONFIG_DIR / "tables"


def ruleset_tables(ruleset_id: str, config_dir: Path | None = None) -> tuple[RandomTable, ...]:
    """Every table shipped for *ruleset_id*, checked (a file's problems raise, all at once)."""
    return _load(ruleset_id, config_dir or DEFAULT_DIR)


@cache
def _load(ruleset_id: str, folder: Path) -> tuple[RandomTable, ...]:
    tables: list[RandomTable] = []
    problems: list[str] = []
    for path in sorted((folder / ruleset_id).glob("*.toml")):
        try:
            tables.extend(parse_tables(path.read_text(encoding="utf-8"),
                                       source=f"pbp/config/tables/{ruleset_id}/{path.name}"))
        except TableError as exc:
            problems.extend(f"{path.name}: {p}" for p in exc.problems)
    problems.extend(name_clashes(tables))
    if problems:
        raise TableError(problems, where=str(folder / ruleset_id))
    return tuple(tables)


def tables_for(ruleset_id: str, campaign_text: str | None) -> TableSet:
    """The ruleset's tables with the campaign's own (already checked when saved) on top.
    A campaign text that no longer reads (edited in the database by hand) keeps the
    ruleset's tables usable: its problem is raised only where it is saved."""
    own: tuple[RandomTable, ...] = ()
    if campaign_text:
        try:
            own = campaign_tables(campaign_text)
        except TableError:
            own = ()
    return TableSet.of(ruleset_tables(ruleset_id), own)


@cache
def campaign_tables(text: str) -> tuple[RandomTable, ...]:
    """A campaign's own tables (the panel's TOML text), checked; cached by the text."""
    return tuple(parse_tables(text, source="campaign"))
