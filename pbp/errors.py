"""One error hierarchy for the whole service.

One base (after python-chess and d20): the input could not be read
(:class:`UnreadableInput`, :class:`DiceError`), or a settings file is wrong
(:class:`ConfigError`). What a rule forbids is not an exception: the engine reports it
as a problem with its rule id (``pbp.rules.context.Problem``), every one at once.
Messages quote the input and are written for players. The CLI turns any
:class:`PbpError` into a one-line message and exit status 2.
"""

from __future__ import annotations


class PbpError(Exception):
    """Base of every error pbp raises on purpose. ``where`` says where it happened."""

    def __init__(self, message: str, *, where: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.where = where

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class UnreadableInput(PbpError):
    """Syntax: a dice expression, a tag, a scenario file that cannot be read."""


class DiceError(UnreadableInput):
    """A dice expression that cannot or must not be rolled (syntax, dice bomb, 0-sided die).

    The dice's own refusals carry their code and values (the message is a
    :class:`pbp.dice_errors.Refusal`), so a reply or the public dice check says them in
    the reader's language (:mod:`pbp.render.dice_words`), not in English."""

    @property
    def code(self) -> str | None:
        """The refusal's code (``dice.unknown_stat``...); None for a message without one."""
        return getattr(self.message, "code", None)


class ConfigError(PbpError):
    """A settings, houserule or preset file that is wrong (unknown key, bad value)."""
