"""The forum-d20 hooks its helper modules call back (FD-4 player defense, FD-11 stray shots).

Why a protocol of its own: :mod:`pbp.rules.fd_combat` works for the ruleset class in
:mod:`pbp.rules.forum_d20`, which imports it; naming the class there would close an
import cycle. The helpers name these few methods instead, and ``ForumD20`` has them.
"""

from __future__ import annotations

from typing import Protocol

from .context import AttackRoll, Damage, Defense, Modifier, RoundContext
from .model import Action, Combatant, Weapon


class ForumD20Hooks(Protocol):
    """The part of ``ForumD20`` that :mod:`pbp.rules.fd_combat` uses."""

    def weapon_for(self, c: Combatant, action: Action) -> Weapon: ...

    def defense_skill(self, action: Action, weapon: Weapon) -> tuple[str, bool, str]: ...

    def condition_modifiers(self, ctx: RoundContext, c: Combatant, role: str, *,
                            against: Combatant | None = None, ranged: bool = False
                            ) -> list[Modifier]: ...

    def damage(self, ctx: RoundContext, attacker: Combatant, target: Combatant,
               action: Action, weapon: Weapon, multiplier: int
               ) -> Damage: ...

    def finish_attack(self, ctx: RoundContext, c: Combatant, target: Combatant, action: Action,
                      weapon: Weapon, attack: AttackRoll, defense: Defense) -> bool: ...
