"""Defaults for the "narrator's call" steps shared by dnd5e, resistance and two-action.

Why a module: three sources say "the narrator decides" about initiative ties (DND-3,
TA-1; RES-6 is silent) and none of them about late posts (PBP-2). The engine needs *a*
default that it can carry out alone and that the reply explains, so the narrator can
change it afterwards in the panel:

* ties: with ``initiative.ties = "narrator"`` tied combatants stay in roster order and an
  ``initiative.tie`` event says the narrator may reorder them (a tie between two player
  characters of the same player is that player's call, DND-3); with ``"roll-off"`` the
  engine rolls a d20 for each tied one (its ``initiative.rolloff`` events);
* latency (PBP-2, FD-2's default): a late or missing post loses the round's combat actions
  and the character is treated as taking total defense (in each ruleset's own terms).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..errors import ConfigError
from .context import Problem, RoundContext
from .model import Action, Combatant, Declaration


def order_was_rolled(ctx: RoundContext) -> bool:
    """Whether the engine sorted the initiative order during this call."""
    return any(e.code == "initiative.order" for e in ctx.events)


def announce_ties(ctx: RoundContext, rule: str, policy: str,
                  same_unit: dict[str, str] | None = None) -> None:
    """Emit ``initiative.tie`` for each pair of neighbours in the order with the same value.

    *same_unit* maps keys to an initiative group (DND-3): members of one group act together
    and do not tie with each other.
    """
    if not order_was_rolled(ctx):
        return
    unit = same_unit or {}
    order = ctx.order
    for first, second in itertools.pairwise(order):
        a, b = ctx.get(first), ctx.get(second)
        if a.initiative is None or a.initiative != b.initiative:
            continue
        if unit.get(first) is not None and unit.get(first) == unit.get(second):
            continue
        if policy == "roll-off":
            how = "won the d20 roll-off"
        elif a.player is not None and a.player == b.player:
            how = f"roster order; {a.player} may swap their own characters"
        else:
            how = "roster order; the narrator may reorder them"
        value = int(a.initiative) if float(a.initiative).is_integer() else a.initiative
        ctx.emit("initiative.tie", actor=first, target=second, rule=rule, value=value,
                 winner=a.name, policy=how,
                 message=f"{a.name} and {b.name} tie at {value}; {a.name} goes first ({how}).")


def forfeit(ctx: RoundContext, c: Combatant, declaration: Declaration, *,
            keeps: Callable[[Action], bool] = lambda a: False, defense: str = "",
            rule: str = "PBP-2") -> Declaration:
    """PBP-2 default (FD-2's, shared): a late or missing post loses the round's combat
    actions (those *keeps* does not keep) and the character is treated as taking total
    defense, which each ruleset says in its own terms (*defense*)."""
    why = "did not post" if declaration.missing else "posted after the deadline"
    kept: list[Action] = []
    for i, a in enumerate(declaration.actions):
        if keeps(a):
            kept.append(a)
            continue
        ctx.emit("action.changed", actor=c.key, rule=rule, action_index=i,
                 problem="latency.forfeit",
                 reason=f"'{a.text or a.kind.value}' is forfeited: {c.name} {why}.")
    ctx.emit("latency.penalty", actor=c.key, rule=rule, dropped=len(declaration.actions) - len(kept),
             reason=f"this round's combat actions are lost{'; ' + defense if defense else ''}"
                    f" (the narrator can waive this).")
    return dataclasses.replace(declaration, actions=tuple(kept))


def check_choices(ruleset_id: str, setting: Callable[[str], Any],
                  choices: Mapping[str, Iterable[Any]]) -> None:
    """Refuse a houserule value outside its allowed set, naming the key and the choices
    (a typo such as ``ties = "rolloff"`` must not silently fall back to a default)."""
    for path, allowed in choices.items():
        options = list(allowed)
        value = setting(path)
        if value not in options:
            raise ConfigError(f"houserule '{path}' for ruleset '{ruleset_id}' must be one of "
                              f"{', '.join(repr(o) for o in options)}, not {value!r}")


def whole_number(value: Any) -> int | None:
    """*value* as a whole number (``3``, ``"3"``, ``-2``), None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("+-").isdigit():
            return int(text)
    return None


def number_problems(action: Action, keys: Iterable[str], rule: str, index: int) -> list[Problem]:
    """A problem for each option in *keys* that is present but not a whole number."""
    out = []
    for key in keys:
        if action.options.given(key) and whole_number(action.options.named(key)) is None:
            out.append(Problem("option.number", rule,
                               f"'{key}' must be a whole number, not {action.options.named(key)!r}",
                               index, {"option": key}))
    return out


class FreeFormNames(frozenset):  # type: ignore[type-arg]
    """``Ruleset.extra_stats`` for rulesets whose skills or Characteristics are free-form
    (two-action: "any skill"; resistance: "Luta, Diplomacia, etc."): every name is accepted,
    so a campaign's own skills load from a scenario file. The listed names document the ones
    the rules read. It stays open when the loader unions it with the common names
    (``frozenset(SYNONYMS) | extra_stats`` calls the reflected ``__ror__`` of a subclass).
    """

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str)

    def __or__(self, other: object) -> FreeFormNames:
        return self

    def __ror__(self, other: object) -> FreeFormNames:
        return self
