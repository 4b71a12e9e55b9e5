"""Value objects of the rules engine: what an encounter is, what players declare, what happened.

Everything here is frozen: the engine takes an :class:`Encounter` and returns a new
one (``dataclasses.replace``), never mutating its input. Encounters are persisted
between posts, so they round-trip through :meth:`to_dict` / :meth:`from_dict`
(plain JSON types only).

These names are the contract between the engine, the parser, the store, the
renderers and the panel. Add fields with defaults; do not rename.
"""

from __future__ import annotations

# The contract's names, each defined in the module of its topic; import them from here.
from .declared import Action as Action
from .declared import Declaration as Declaration
from .declared import Event as Event
from .kinds import ActionKind as ActionKind
from .sheet import Combatant as Combatant
from .sheet import Condition as Condition
from .sheet import Weapon as Weapon
from .state import TRIGGER_ANY as TRIGGER_ANY
from .state import TRIGGER_DOES as TRIGGER_DOES
from .state import TRIGGER_MOVE_AWAY as TRIGGER_MOVE_AWAY
from .state import AttackTotal as AttackTotal
from .state import Encounter as Encounter
from .state import PendingDefense as PendingDefense
from .state import PendingFullRound as PendingFullRound
from .state import PendingWork as PendingWork
from .state import ReadiedAction as ReadiedAction
from .state import Resolution as Resolution
from .state import Trigger as Trigger
from .state import away_from as away_from
from .state import pending_from_dict as pending_from_dict
from .state import readied_from_dict as readied_from_dict
from .values import roll_from_dict as roll_from_dict
from .values import roll_to_dict as roll_to_dict
