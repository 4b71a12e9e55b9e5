"""The ``pbp`` command: one click group; each subcommand lives in its own module here.

Commands are registered by name below, one line each, so what ``pbp`` offers is read
in one place and a module that fails to import fails ``pbp`` itself instead of quietly
dropping its command. Any :class:`pbp.errors.PbpError` escaping a command becomes one
line on stderr and exit status 2, never a traceback; so does any other error (a database
that cannot be read, a missing file; :func:`pbp.cli.common.guarded`), unless
``PBP_DEBUG`` is set.
"""

from __future__ import annotations

from typing import Any

import click

from . import bench, encounter, health, narrator, parse, preset, serve, simulate, status, verify
from .common import guarded


class _Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        return guarded(lambda: super(_Group, self).invoke(ctx))


@click.group(cls=_Group)
@click.version_option(package_name="pbp")
def cli() -> None:
    """pbp: moderation for tabletop-RPG combat played by post."""


for _command in (bench.command, encounter.command, health.command, narrator.command, parse.command,
                 preset.command, serve.command, simulate.command, status.command, verify.command):
    cli.add_command(_command)


def main() -> None:
    cli(prog_name="pbp")
