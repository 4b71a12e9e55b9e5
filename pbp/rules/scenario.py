"""Scripted fights (``pbp bench SCENARIO.yaml``): a mapping -> Encounter + rounds of Declarations.

Why here and strict: a scenario is how a narrator tries houserules and how golden files
pin the rules, so a typo must not pass silently. Every error is an
:class:`~pbp.errors.UnreadableInput` (or ``ConfigError`` for rulesets and houserules)
whose ``where`` names the file, the line and the key path. The format is documented in
``docs/scenarios.md``. Reading the YAML file (and the ruleset's houserule file) is
:mod:`pbp.scenario_files`' job: the rules package reads no file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..dice import DiceBox, check_expression, has_stats, substitute_stats
from ..errors import DiceError, PbpError, UnreadableInput
from . import conditions as C
from . import objects
from .engine import resolve
from .houserules import merge as merge_houserules
from .model import Action, ActionKind, Combatant, Condition, Declaration, Encounter, Weapon
from .options import options_for
from .registry import ruleset_class
from .scenario_nodes import LineDict, check_keys, need_mapping, strings, typed, where_of
from .sheet_checks import check_hp
from .stats import SYNONYMS, normalise_sheet, resolve_name


@dataclass
class Scenario:
    """A loaded scenario: the starting encounter, houserules, rounds, dice settings."""

    encounter: Encounter
    houserules: dict[str, Any]
    rounds: list[list[dict[str, Any]]]     # raw declarations per round, turned into
    seed: str = "bench"                    # Declarations by :meth:`declarations` (rolls need dice)
    dice: list[int] = field(default_factory=list)
    path: str = "<scenario>"
    title: str = ""

    def declarations(self, number: int, box: DiceBox) -> list[Declaration]:
        """Round *number*'s declarations; a ``roll`` on an action is rolled now, once, as
        the service does for a post's tag (PBP-4)."""
        out = []
        for raw in self.rounds[number]:
            out.append(_declaration(raw, box, self))
        return out


ROOT_KEYS = {"ruleset", "title", "seed", "dice", "houserules", "surprise", "surprised",
             "unseen", "combatants", "rounds", "round"}
COMBATANT_KEYS = {"key", "name", "side", "player", "stats", "hp", "max_hp", "weapons",
                  "conditions", "initiative", "aliases", "abilities", "extra_actions",
                  "object", "down"}
WEAPON_KEYS = {"name", "damage", "category", "threat", "multiplier", "skill", "reach",
               "aliases", "attribute"}
CONDITION_KEYS = {"name", "rounds", "source", "value", "note", "started_round",
                  "started_count"}
DECLARATION_KEYS = {"actor", "actions", "late", "missing", "waived", "speech_count", "post_id"}
ACTION_KEYS = {"kind", "target", "weapon", "text", "roll"}  # anything else -> options
OBJECT_KEYS = {"size", "material", "moving", "reduction"}


def build(data: Any, path: str,
          settings_for: Callable[[str], Mapping[str, Any]]) -> Scenario:
    """A checked :class:`Scenario` from *data* (the file's top-level mapping).

    *path* names the source in error messages; *settings_for(ruleset_id)* gives the
    ruleset's file houserules (:func:`pbp.houserule_files.read_file` in the service),
    called once the ruleset id is known to be good, so the rules read no file.
    """
    root = need_mapping(data, path, None, "top level")
    check_keys(root, ROOT_KEYS, path, "top level")
    if "ruleset" not in root:
        raise UnreadableInput("missing key 'ruleset'", where=where_of(path, root, "top level"))
    ruleset_id = typed(root, "ruleset", path, "ruleset", "str")
    try:
        cls = ruleset_class(ruleset_id)
    except PbpError as exc:
        exc.where = where_of(path, root, "ruleset", "ruleset")
        raise
    overrides = typed(root, "houserules", path, "houserules", "map", {})
    try:
        houserules = merge_houserules(ruleset_id, settings_for(ruleset_id), overrides)
    except PbpError as exc:
        exc.where = where_of(path, root, "houserules", "houserules")
        raise
    combatants = _combatants(root, path, frozenset(SYNONYMS) | cls.extra_stats)
    keys = [c.key for c in combatants]
    surprised = strings(root, "surprised", path, "surprised")
    for k in surprised:
        if k not in keys:
            raise UnreadableInput(f"'{k}' is not a combatant",
                                  where=where_of(path, root, "surprised", "surprised"))
    encounter = Encounter(ruleset=ruleset_id, combatants=tuple(combatants),
                          round=typed(root, "round", path, "round", "int", 0),
                          surprise=typed(root, "surprise", path, "surprise", "bool",
                                          bool(surprised)),
                          surprised=surprised,
                          unseen=typed(root, "unseen", path, "unseen", "bool", False),
                          houserules=houserules)
    raw_rounds = typed(root, "rounds", path, "rounds", "list", [])
    dice = typed(root, "dice", path, "dice", "list", [])
    if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in dice):
        raise UnreadableInput(f"'dice' must list faces (whole numbers from 1), not {dice!r}",
                              where=where_of(path, root, "dice", "dice"))
    seed = typed(root, "seed", path, "seed", "str", "bench")
    title = typed(root, "title", path, "title", "str", "")
    return Scenario(encounter, houserules, _rounds(raw_rounds, root, path, combatants),
                    seed=seed, dice=list(dice), path=path, title=title)


def _combatants(root: LineDict, path: str, extra: frozenset[str]) -> list[Combatant]:
    raw_cs = typed(root, "combatants", path, "combatants", "list")
    if not raw_cs:
        raise UnreadableInput("'combatants' must be a non-empty list",
                              where=where_of(path, root, "combatants", "combatants"))
    combatants = [_combatant(c, i, path, root, extra) for i, c in enumerate(raw_cs)]
    keys = [c.key for c in combatants]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise UnreadableInput(f"duplicate combatant key(s): {', '.join(dupes)}",
                              where=where_of(path, root, "combatants", "combatants"))
    return combatants


def _rounds(raw_rounds: list[Any], root: LineDict, path: str,
            combatants: list[Combatant]) -> list[list[dict[str, Any]]]:
    """Each round's declarations, checked now (actions are rolled later, PBP-4)."""
    rounds: list[list[dict[str, Any]]] = []
    for r, raw in enumerate(raw_rounds):
        trail = f"rounds[{r}]"
        node = need_mapping(raw, path, root, trail)
        check_keys(node, {"declarations", "note"}, path, trail)
        decls = typed(node, "declarations", path, trail, "list", [])
        rounds.append([_declaration_node(rawd, path, node, f"{trail}.declarations[{d}]",
                                         combatants)
                       for d, rawd in enumerate(decls)])
    return rounds


def _declaration_node(raw: Any, path: str, parent: LineDict, dt: str,
                      combatants: list[Combatant]) -> LineDict:
    keys = [c.key for c in combatants]
    dnode = need_mapping(raw, path, parent, dt)
    check_keys(dnode, DECLARATION_KEYS, path, dt)
    for flag in ("late", "missing", "waived"):
        typed(dnode, flag, path, dt, "bool")
    typed(dnode, "speech_count", path, dt, "int")
    typed(dnode, "post_id", path, dt, "str")
    if not isinstance(dnode.get("actor"), str) or dnode["actor"] not in keys:
        raise UnreadableInput(f"actor '{dnode.get('actor')}' is not a combatant",
                              where=where_of(path, dnode, dt, "actor"))
    who = combatants[keys.index(dnode["actor"])]
    for a, rawa in enumerate(typed(dnode, "actions", path, dt, "list", [])):
        at = f"{dt}.actions[{a}]"
        anode = need_mapping(rawa, path, dnode, at)
        _action(anode, path, at, keys, None, who)  # check now; roll later
    return dnode


def _combatant(raw: Any, i: int, path: str, root: Any, extra: frozenset[str]) -> Combatant:
    trail = f"combatants[{i}]"
    node = need_mapping(raw, path, root, trail)
    check_keys(node, COMBATANT_KEYS, path, trail)
    if "key" not in node:
        raise UnreadableInput("missing key 'key'", where=where_of(path, node, trail))
    key = typed(node, "key", path, trail, "str")
    name = typed(node, "name", path, trail, "str", key)
    if "object" in node:  # FD-19
        return _object(node, key, name, path, trail)
    stats_node = typed(node, "stats", path, trail, "map", LineDict())
    stats = normalise_sheet(stats_node, where=where_of(path, stats_node, f"{trail}.stats"),
                            extra=extra)
    weapons = [_weapon(raw_w, f"{trail}.weapons[{w}]", path, node, stats)
               for w, raw_w in enumerate(typed(node, "weapons", path, trail, "list", []))]
    conds = [_condition(raw_c, f"{trail}.conditions[{j}]", path, node)
             for j, raw_c in enumerate(typed(node, "conditions", path, trail, "list", []))]
    hp = typed(node, "hp", path, trail, "int", 10)
    max_hp = typed(node, "max_hp", path, trail, "int", hp)
    for problem in check_hp(None, max_hp) if "max_hp" in node else ():   # as the panel's
        raise UnreadableInput(problem.message, where=where_of(path, node, trail, "max_hp"))
    initiative = typed(node, "initiative", path, trail, "number")
    extras = typed(node, "extra_actions", path, trail, "map", LineDict())
    for k in extras:
        typed(extras, k, path, f"{trail}.extra_actions", "int")
    return Combatant(
        key=key, name=name, side=typed(node, "side", path, trail, "str", "players"),
        player=typed(node, "player", path, trail, "str"),
        stats=stats, hp=hp, max_hp=max_hp,
        weapons=tuple(weapons), conditions=tuple(conds),
        initiative=None if initiative is None else float(initiative),
        aliases=strings(node, "aliases", path, trail),
        abilities=strings(node, "abilities", path, trail),
        extra_actions={str(k): int(v) for k, v in extras.items()},
        down=typed(node, "down", path, trail, "bool", False),
    )


def _object(node: LineDict, key: str, name: str, path: str, trail: str) -> Combatant:
    """An object with FD-19 defense and hit points: ``object: {size, material, moving}``."""
    ot = f"{trail}.object"
    spec = typed(node, "object", path, trail, "map", LineDict())
    check_keys(spec, OBJECT_KEYS, path, ot)
    size = spec.get("size", "medium")
    if isinstance(size, bool) or not isinstance(size, (str, int)):
        raise UnreadableInput(f"'size' must be a size name or a number, not {size!r}",
                              where=where_of(path, spec, ot, "size"))
    try:
        return objects.make_object(key, name, size=size,
                                   material=typed(spec, "material", path, ot, "int", 0),
                                   moving=typed(spec, "moving", path, ot, "bool", False),
                                   reduction=typed(spec, "reduction", path, ot, "int", 0))
    except PbpError as exc:
        exc.where = exc.where or where_of(path, spec, ot)
        raise


def _condition(raw: Any, ct: str, path: str, node: LineDict) -> Condition:
    """A condition by name (any of our languages) or as a mapping with its duration."""
    if isinstance(raw, str):
        cnode = LineDict({"name": raw})
        cnode.line = node.key_lines.get("conditions", node.line)
    else:
        cnode = need_mapping(raw, path, node, ct)
    check_keys(cnode, CONDITION_KEYS, path, ct)
    try:
        cname = C.canonical(typed(cnode, "name", path, ct, "str", ""))
    except PbpError as exc:
        exc.where = where_of(path, cnode, ct)
        raise
    count = typed(cnode, "started_count", path, ct, "number")
    return Condition(
        name=cname, rounds=typed(cnode, "rounds", path, ct, "int"),
        started_round=typed(cnode, "started_round", path, ct, "int", 0),
        started_count=None if count is None else float(count),
        source=typed(cnode, "source", path, ct, "str"),
        value=typed(cnode, "value", path, ct, "int", 0),
        note=typed(cnode, "note", path, ct, "str"))


def _weapon(raw: Any, wt: str, path: str, parent: LineDict, stats: Mapping[str, int]) -> Weapon:
    wnode = need_mapping(raw, path, parent, wt)
    check_keys(wnode, WEAPON_KEYS, path, wt)
    if "name" not in wnode:
        raise UnreadableInput("missing key 'name'", where=where_of(path, wnode, wt))
    weapon = Weapon(
        name=typed(wnode, "name", path, wt, "str"),
        damage=typed(wnode, "damage", path, wt, "str", "1d4"),
        category=typed(wnode, "category", path, wt, "str", "melee"),
        threat=typed(wnode, "threat", path, wt, "int", 20),
        multiplier=typed(wnode, "multiplier", path, wt, "int", 2),
        skill=typed(wnode, "skill", path, wt, "str"),
        reach=typed(wnode, "reach", path, wt, "int", 0),
        aliases=strings(wnode, "aliases", path, wt),
        attribute=typed(wnode, "attribute", path, wt, "str"),
    )
    if not 1 <= weapon.threat <= 20 or weapon.multiplier < 1:
        raise UnreadableInput("'threat' must be 1..20 and 'multiplier' at least 1",
                              where=where_of(path, wnode, wt))
    try:
        check_expression(weapon.damage)
        if has_stats(weapon.damage):  # every stat the damage names must be on the sheet
            substitute_stats(weapon.damage, stats, resolve_name)
    except PbpError as exc:
        exc.where = where_of(path, wnode, wt, "damage")
        raise
    return weapon


def _action(node: LineDict, path: str, trail: str, keys: list[str],
            box: DiceBox | None, who: Combatant | None = None) -> Action:
    """``{kind: attack, target: gob, weapon: sword, roll: "1d20+5", <options>}``, or the
    shorthand ``{attack: gob}`` (kind: target)."""
    data = dict(node)
    if "kind" not in data:
        kinds = [k for k in data if k in {x.value for x in ActionKind}]
        if len(kinds) != 1:
            raise UnreadableInput("an action needs a 'kind' (attack, move, quick, free, cast, "
                                  "full-round, delay, ready, defend, maneuver, other)",
                                  where=where_of(path, node, trail))
        data["target"] = data.pop(kinds[0])
        data["kind"] = kinds[0]
    try:
        kind = ActionKind(str(data.pop("kind")))
    except ValueError:
        raise UnreadableInput(f"unknown action kind '{node.get('kind')}' (known: "
                              f"{', '.join(k.value for k in ActionKind)})",
                              where=where_of(path, node, trail, "kind")) from None
    target = data.pop("target", None)
    if target is not None and str(target) not in keys:
        raise UnreadableInput(f"target '{target}' is not a combatant",
                              where=where_of(path, node, trail, "target" if "target" in node else kind.value))
    for field_name in ("weapon", "text", "roll"):
        typed(node, field_name, path, trail, "str")
    weapon = data.pop("weapon", None)
    text = str(data.pop("text", "") or "")
    roll_expr = data.pop("roll", None)
    rolled = None
    if roll_expr is not None:
        try:
            text_expr = check_expression(str(roll_expr))
            sheet = who.stats if who is not None else {}
            if box is not None:
                rolled = box.roll(text_expr, label="post tag", stats=sheet,
                                  resolve_name=resolve_name)
            elif has_stats(text_expr):
                substitute_stats(text_expr, sheet, resolve_name)
        except DiceError as exc:
            if "forced face" not in exc.message:  # a forced face is --dice's fault, not the roll's
                exc.where = where_of(path, node, trail, "roll")
            raise
    inner = data.get("action")
    if isinstance(inner, dict):
        data["action"] = _action(LineDict(inner) if not isinstance(inner, LineDict) else inner,
                                 path, f"{trail}.action", keys, None).to_dict()
    try:
        options = options_for(kind, {k: _plain(v) for k, v in data.items()})
    except UnreadableInput as exc:  # an option this kind does not take: say where
        exc.where = where_of(path, node, trail)
        raise
    return Action(kind=kind, target=None if target is None else str(target),
                  weapon=None if weapon is None else str(weapon), text=text or kind.value,
                  rolled=rolled, options=options)


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _declaration(node: dict[str, Any], box: DiceBox, scenario: Scenario) -> Declaration:
    keys = [c.key for c in scenario.encounter.combatants]
    who = scenario.encounter.combatant(str(node["actor"]))
    actions = []
    for a, raw in enumerate(node.get("actions") or []):
        anode = raw if isinstance(raw, LineDict) else LineDict(raw)
        actions.append(_action(anode, scenario.path, f"actions[{a}]", keys, box, who))
    return Declaration(actor=str(node["actor"]), actions=tuple(actions),
                       late=bool(node.get("late", False)), missing=bool(node.get("missing", False)),
                       penalty_waived=bool(node.get("waived", False)),
                       speech_count=int(node.get("speech_count", 0)),
                       post_id=None if node.get("post_id") is None else str(node["post_id"]))


@dataclass
class RoundResult:
    number: int
    events: list[Any]
    encounter: Encounter


def run(scenario: Scenario, *, seed: str | None = None, forced: list[int] | None = None
        ) -> list[RoundResult]:
    """Resolve every round of *scenario* through the engine with one DiceBox: forced faces
    first (``--dice``), then the seeded generator. Posted rolls are made at declaration
    time from the same box, as the service does when it reads a post."""
    box = DiceBox(seed=seed if seed is not None else scenario.seed,
                  forced=list(forced if forced is not None else scenario.dice))
    encounter = scenario.encounter
    out: list[RoundResult] = []
    for r in range(len(scenario.rounds)):
        decls = scenario.declarations(r, box)
        result = resolve(encounter, decls, box, houserules=scenario.houserules)
        encounter = result.encounter
        number = result.events[0].params.get("round", r) if result.events else r
        out.append(RoundResult(int(number), list(result.events), encounter))
    return out
