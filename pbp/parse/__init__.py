"""The post parser: a forum, Reddit or Discord post in, a declaration the engine can judge out.

>>> post = parse_post("#attack Goblin with longsword [roll]1d20+5[/roll]",
...                   roster=[{"key": "goblin", "name": "Goblin"}])
>>> [(a.kind.value, a.target, a.weapon, a.options.roll_index) for a in post.actions]
[('attack', 'goblin', 'sword', 0)]

See docs/parse.md for the forms read and the JSON schema of ``pbp parse``.
"""

from __future__ import annotations

from .language import post_language
from .lexicon import detect as detect_language
from .model import (
                    Command,
                    InitiativeEntry,
                    OocNote,
                    ParsedPost,
                    ParseIssue,
                    RollTag,
                    Span,
                    Utterance,
)
from .post import parse_post
from .roster import Roster, RosterEntry

__all__ = [
                    "Command",
                    "InitiativeEntry",
                    "OocNote",
                    "ParseIssue",
                    "ParsedPost",
                    "RollTag",
                    "Roster",
                    "RosterEntry",
                    "Span",
                    "Utterance",
                    "detect_language",
                    "parse_post",
                    "post_language",
]
