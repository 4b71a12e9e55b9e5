"""The ``pbp`` command: one click group; each subcommand lives in its own module here.

A module ``pbp/cli/<name>.py`` that defines a click command named ``command`` is
registered automatically, so areas (bench, parse, verify, serve, status, narrator)
add commands without touching a shared file. Any :class:`pbp.errors.PbpError`
escaping a command becomes one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import click

from ..errors import PbpError


class _Group(click.Group):
    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except PbpError as exc:
            click.echo(f"pbp: error: {exc}", err=True)
            sys.exit(2)


@click.group(cls=_Group)
@click.version_option(package_name="pbp")
def cli() -> None:
    """pbp: moderation for tabletop-RPG combat played by post."""


def _register() -> None:
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        command = getattr(module, "command", None)
        if isinstance(command, click.Command):
            cli.add_command(command)


_register()


def main() -> None:
    cli(prog_name="pbp")
