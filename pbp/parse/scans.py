"""What each command-line scanner hands back (its own module: :mod:`.commands` dispatches to
:mod:`.initiative` and :mod:`.avrae`, which fill the scan, so none of them imports another
to name it)."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules.model import Action
from .model import Command, IssueList
from .tags import FoundRoll


@dataclass(slots=True, init=False)
class CommandScan:
    rolls: list[FoundRoll]
    commands: list[Command]
    actions: list[Action]
    explicit: list[tuple[int, str, str]]          # (pos, keyword, rest)
    labelled: list[tuple[int, str, str, int]]     # (pos, kind, rest, at)
    spans: list[tuple[int, int]]
    issues: IssueList

    def __init__(self) -> None:         # plain lists: cheaper than dataclass default factories
        self.rolls, self.commands, self.actions, self.explicit = [], [], [], []
        self.labelled, self.spans, self.issues = [], [], IssueList()
