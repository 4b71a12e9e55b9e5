"""One error hierarchy for the whole service.

Three kinds, one base (after python-chess and d20): the input could not be read
(:class:`UnreadableInput`), it was read but a rule forbids it now
(:class:`RuleViolation`, carries a rule id), or it could mean several things
(:class:`AmbiguousInput`). Messages quote the input and are written for players.
The CLI turns any :class:`PbpError` into a one-line message and exit status 2.
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
    """A dice expression that cannot or must not be rolled (syntax, dice bomb, 0-sided die)."""


class RuleViolation(PbpError):
    """Read fine, but a rule forbids it now. ``rule`` is the RULES.md id, e.g. ``FD-8``."""

    def __init__(self, message: str, *, rule: str, where: str | None = None) -> None:
        super().__init__(message, where=where)
        self.rule = rule

    def __str__(self) -> str:
        return f"{super().__str__()} ({self.rule})"


class AmbiguousInput(PbpError):
    """Could mean several things (which goblin?). ``candidates`` lists them."""

    def __init__(self, message: str, *, candidates: list[str], where: str | None = None) -> None:
        super().__init__(message, where=where)
        self.candidates = candidates


class ConfigError(PbpError):
    """A settings, houserule or preset file that is wrong (unknown key, bad value)."""
