"""Scripted fights (``pbp bench SCENARIO.yaml``): YAML -> Encounter + rounds of Declarations.

Why here and strict: a scenario is how a narrator tries houserules and how golden files
pin the rules, so a typo must not pass silently. Every error is an
:class:`~pbp.errors.UnreadableInput` (or ``ConfigError`` for rulesets and houserules)
whose ``where`` names the file, the line and the key path. The format is documented in
``docs/scenarios.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..dice import DiceBox, check_expression, has_stats, substitute_stats
from ..errors import DiceError, PbpError, UnreadableInput
from . import conditions as C
from . import objects
from .houserules import load as load_houserules
from .model import Action, ActionKind, Combatant, Condition, Declaration, Encounter, Weapon
from .options import options_for
from .registry import ruleset_class
from .stats import SYNONYMS, normalise_sheet, resolve_name


class _LineDict(dict[str, Any]):
    """A mapping that knows the line it (and each of its keys) came from."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line = 0
        self.key_lines: dict[str, int] = {}


class _Loader(yaml.SafeLoader):  # type: ignore[misc]
    """SafeLoader that remembers the line of every mapping and key (for error messages)."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> _LineDict:
    loader.flatten_mapping(node)
    out = _LineDict()
    out.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        out[str(key)] = loader.construct_object(value_node, deep=True)
        out.key_lines[str(key)] = key_node.start_mark.line + 1
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


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


def _where(path: str, node: Any, trail: str, key: str | None = None) -> str:
    line = None
    if isinstance(node, _LineDict):
        line = node.key_lines.get(key, node.line) if key else node.line
    return f"{path}:{line} ({trail})" if line else f"{path} ({trail})"


def _need_mapping(value: Any, path: str, parent: Any, trail: str) -> _LineDict:
    if not isinstance(value, dict):
        raise UnreadableInput(f"expected a mapping, got {type(value).__name__}",
                              where=_where(path, parent, trail))
    return value if isinstance(value, _LineDict) else _LineDict(value)


def _check_keys(node: _LineDict, allowed: set[str], path: str, trail: str) -> None:
    for key in node:
        if key not in allowed:
            raise UnreadableInput(f"unknown key '{key}' (allowed: {', '.join(sorted(allowed))})",
                                  where=_where(path, node, trail, key))


_KINDS = {"int": "a whole number", "number": "a number", "bool": "true or false",
          "str": "a text", "list": "a list", "map": "a mapping"}


def _typed(node: _LineDict, key: str, path: str, trail: str, kind: str,
           default: Any = None) -> Any:
    """``node[key]`` checked to be of *kind* (see ``_KINDS``); absent or null -> *default*."""
    if key not in node or node[key] is None:
        return default
    value = node[key]
    ok = {
        "int": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "bool": isinstance(value, bool),
        "str": isinstance(value, (str, int, float)) and not isinstance(value, bool),
        "list": isinstance(value, list),
        "map": isinstance(value, dict),
    }[kind]
    if not ok:
        raise UnreadableInput(f"'{key}' must be {_KINDS[kind]}, not {value!r}",
                              where=_where(path, node, trail, key))
    if kind == "str":
        return str(value)
    if kind == "map" and not isinstance(value, _LineDict):
        return _LineDict(value)
    return value


def _strings(node: _LineDict, key: str, path: str, trail: str) -> tuple[str, ...]:
    items = _typed(node, key, path, trail, "list", [])
    for item in items:
        if not isinstance(item, str):
            raise UnreadableInput(f"'{key}' must list texts, not {item!r}",
                                  where=_where(path, node, trail, key))
    return tuple(items)


def load(path: str | Path) -> Scenario:
    """Read and check a scenario file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise UnreadableInput(f"cannot read the scenario: {exc.strerror}", where=str(p)) from None
    return loads(text, str(p))


def loads(text: str, path: str = "<scenario>") -> Scenario:
    try:
        data = yaml.load(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f":{mark.line + 1}" if mark is not None else ""
        raise UnreadableInput(f"not valid YAML: {exc.problem}", where=f"{path}{line}") from None
    except yaml.YAMLError as exc:
        raise UnreadableInput(f"not valid YAML: {exc}", where=path) from None
    root = _need_mapping(data, path, None, "top level")
    _check_keys(root, ROOT_KEYS, path, "top level")
    if "ruleset" not in root:
        raise UnreadableInput("missing key 'ruleset'", where=_where(path, root, "top level"))
    ruleset_id = _typed(root, "ruleset", path, "ruleset", "str")
    try:
        cls = ruleset_class(ruleset_id)
    except PbpError as exc:
        exc.where = _where(path, root, "ruleset", "ruleset")
        raise
    overrides = _typed(root, "houserules", path, "houserules", "map", {})
    try:
        houserules = load_houserules(ruleset_id, overrides)
    except PbpError as exc:
        exc.where = _where(path, root, "houserules", "houserules")
        raise
    extra = frozenset(SYNONYMS) | cls.extra_stats
    raw_cs = _typed(root, "combatants", path, "combatants", "list")
    if not raw_cs:
        raise UnreadableInput("'combatants' must be a non-empty list",
                              where=_where(path, root, "combatants", "combatants"))
    combatants = [_combatant(c, i, path, root, extra) for i, c in enumerate(raw_cs)]
    keys = [c.key for c in combatants]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise UnreadableInput(f"duplicate combatant key(s): {', '.join(dupes)}",
                              where=_where(path, root, "combatants", "combatants"))
    surprised = _strings(root, "surprised", path, "surprised")
    for k in surprised:
        if k not in keys:
            raise UnreadableInput(f"'{k}' is not a combatant",
                                  where=_where(path, root, "surprised", "surprised"))
    encounter = Encounter(ruleset=ruleset_id, combatants=tuple(combatants),
                          round=_typed(root, "round", path, "round", "int", 0),
                          surprise=_typed(root, "surprise", path, "surprise", "bool",
                                          bool(surprised)),
                          surprised=surprised,
                          unseen=_typed(root, "unseen", path, "unseen", "bool", False),
                          houserules=houserules)
    raw_rounds = _typed(root, "rounds", path, "rounds", "list", [])
    dice = _typed(root, "dice", path, "dice", "list", [])
    if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in dice):
        raise UnreadableInput(f"'dice' must list faces (whole numbers from 1), not {dice!r}",
                              where=_where(path, root, "dice", "dice"))
    rounds: list[list[dict[str, Any]]] = []
    scenario = Scenario(encounter, houserules, rounds,
                        seed=_typed(root, "seed", path, "seed", "str", "bench"),
                        dice=list(dice), path=path,
                        title=_typed(root, "title", path, "title", "str", ""))
    for r, raw in enumerate(raw_rounds):
        trail = f"rounds[{r}]"
        node = _need_mapping(raw, path, root, trail)
        _check_keys(node, {"declarations", "note"}, path, trail)
        decls = _typed(node, "declarations", path, trail, "list", [])
        checked: list[dict[str, Any]] = []
        for d, rawd in enumerate(decls):
            dt = f"{trail}.declarations[{d}]"
            dnode = _need_mapping(rawd, path, node, dt)
            _check_keys(dnode, DECLARATION_KEYS, path, dt)
            for flag in ("late", "missing", "waived"):
                _typed(dnode, flag, path, dt, "bool")
            _typed(dnode, "speech_count", path, dt, "int")
            _typed(dnode, "post_id", path, dt, "str")
            if not isinstance(dnode.get("actor"), str) or dnode["actor"] not in keys:
                raise UnreadableInput(f"actor '{dnode.get('actor')}' is not a combatant",
                                      where=_where(path, dnode, dt, "actor"))
            who = combatants[keys.index(dnode["actor"])]
            for a, rawa in enumerate(_typed(dnode, "actions", path, dt, "list", [])):
                at = f"{dt}.actions[{a}]"
                anode = _need_mapping(rawa, path, dnode, at)
                _action(anode, path, at, keys, None, who)  # check now; roll later
            checked.append(dnode)
        rounds.append(checked)
    return scenario


def _combatant(raw: Any, i: int, path: str, root: Any, extra: frozenset[str]) -> Combatant:
    trail = f"combatants[{i}]"
    node = _need_mapping(raw, path, root, trail)
    _check_keys(node, COMBATANT_KEYS, path, trail)
    if "key" not in node:
        raise UnreadableInput("missing key 'key'", where=_where(path, node, trail))
    key = _typed(node, "key", path, trail, "str")
    name = _typed(node, "name", path, trail, "str", key)
    if "object" in node:  # FD-19
        ot = f"{trail}.object"
        spec = _typed(node, "object", path, trail, "map", _LineDict())
        _check_keys(spec, OBJECT_KEYS, path, ot)
        size = spec.get("size", "medium")
        if isinstance(size, bool) or not isinstance(size, (str, int)):
            raise UnreadableInput(f"'size' must be a size name or a number, not {size!r}",
                                  where=_where(path, spec, ot, "size"))
        try:
            return objects.make_object(key, name, size=size,
                                       material=_typed(spec, "material", path, ot, "int", 0),
                                       moving=_typed(spec, "moving", path, ot, "bool", False),
                                       reduction=_typed(spec, "reduction", path, ot, "int", 0))
        except PbpError as exc:
            exc.where = exc.where or _where(path, spec, ot)
            raise
    stats_node = _typed(node, "stats", path, trail, "map", _LineDict())
    stats = normalise_sheet(stats_node, where=_where(path, stats_node, f"{trail}.stats"),
                            extra=extra)
    weapons = [_weapon(raw_w, f"{trail}.weapons[{w}]", path, node, stats)
               for w, raw_w in enumerate(_typed(node, "weapons", path, trail, "list", []))]
    conds = []
    for j, raw_c in enumerate(_typed(node, "conditions", path, trail, "list", [])):
        ct = f"{trail}.conditions[{j}]"
        if isinstance(raw_c, str):
            cnode = _LineDict({"name": raw_c})
            cnode.line = node.key_lines.get("conditions", node.line)
        else:
            cnode = _need_mapping(raw_c, path, node, ct)
        _check_keys(cnode, CONDITION_KEYS, path, ct)
        try:
            cname = C.canonical(_typed(cnode, "name", path, ct, "str", ""))
        except PbpError as exc:
            exc.where = _where(path, cnode, ct)
            raise
        count = _typed(cnode, "started_count", path, ct, "number")
        conds.append(Condition(
            name=cname, rounds=_typed(cnode, "rounds", path, ct, "int"),
            started_round=_typed(cnode, "started_round", path, ct, "int", 0),
            started_count=None if count is None else float(count),
            source=_typed(cnode, "source", path, ct, "str"),
            value=_typed(cnode, "value", path, ct, "int", 0),
            note=_typed(cnode, "note", path, ct, "str")))
    hp = _typed(node, "hp", path, trail, "int", 10)
    initiative = _typed(node, "initiative", path, trail, "number")
    extras = _typed(node, "extra_actions", path, trail, "map", _LineDict())
    for k in extras:
        _typed(extras, k, path, f"{trail}.extra_actions", "int")
    return Combatant(
        key=key, name=name, side=_typed(node, "side", path, trail, "str", "players"),
        player=_typed(node, "player", path, trail, "str"),
        stats=stats, hp=hp, max_hp=_typed(node, "max_hp", path, trail, "int", hp),
        weapons=tuple(weapons), conditions=tuple(conds),
        initiative=None if initiative is None else float(initiative),
        aliases=_strings(node, "aliases", path, trail),
        abilities=_strings(node, "abilities", path, trail),
        extra_actions={str(k): int(v) for k, v in extras.items()},
        down=_typed(node, "down", path, trail, "bool", False),
    )


def _weapon(raw: Any, wt: str, path: str, parent: _LineDict, stats: Mapping[str, int]) -> Weapon:
    wnode = _need_mapping(raw, path, parent, wt)
    _check_keys(wnode, WEAPON_KEYS, path, wt)
    if "name" not in wnode:
        raise UnreadableInput("missing key 'name'", where=_where(path, wnode, wt))
    weapon = Weapon(
        name=_typed(wnode, "name", path, wt, "str"),
        damage=_typed(wnode, "damage", path, wt, "str", "1d4"),
        category=_typed(wnode, "category", path, wt, "str", "melee"),
        threat=_typed(wnode, "threat", path, wt, "int", 20),
        multiplier=_typed(wnode, "multiplier", path, wt, "int", 2),
        skill=_typed(wnode, "skill", path, wt, "str"),
        reach=_typed(wnode, "reach", path, wt, "int", 0),
        aliases=_strings(wnode, "aliases", path, wt),
        attribute=_typed(wnode, "attribute", path, wt, "str"),
    )
    if not 1 <= weapon.threat <= 20 or weapon.multiplier < 1:
        raise UnreadableInput("'threat' must be 1..20 and 'multiplier' at least 1",
                              where=_where(path, wnode, wt))
    try:
        check_expression(weapon.damage)
        if has_stats(weapon.damage):  # every stat the damage names must be on the sheet
            substitute_stats(weapon.damage, stats, resolve_name)
    except PbpError as exc:
        exc.where = _where(path, wnode, wt, "damage")
        raise
    return weapon


def _action(node: _LineDict, path: str, trail: str, keys: list[str],
            box: DiceBox | None, who: Combatant | None = None) -> Action:
    """``{kind: attack, target: gob, weapon: sword, roll: "1d20+5", <options>}``, or the
    shorthand ``{attack: gob}`` (kind: target)."""
    data = dict(node)
    if "kind" not in data:
        kinds = [k for k in data if k in {x.value for x in ActionKind}]
        if len(kinds) != 1:
            raise UnreadableInput("an action needs a 'kind' (attack, move, quick, free, cast, "
                                  "full-round, delay, ready, defend, maneuver, other)",
                                  where=_where(path, node, trail))
        data["target"] = data.pop(kinds[0])
        data["kind"] = kinds[0]
    try:
        kind = ActionKind(str(data.pop("kind")))
    except ValueError:
        raise UnreadableInput(f"unknown action kind '{node.get('kind')}' (known: "
                              f"{', '.join(k.value for k in ActionKind)})",
                              where=_where(path, node, trail, "kind")) from None
    target = data.pop("target", None)
    if target is not None and str(target) not in keys:
        raise UnreadableInput(f"target '{target}' is not a combatant",
                              where=_where(path, node, trail, "target" if "target" in node else kind.value))
    for field_name in ("weapon", "text", "roll"):
        _typed(node, field_name, path, trail, "str")
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
                exc.where = _where(path, node, trail, "roll")
            raise
    inner = data.get("action")
    if isinstance(inner, dict):
        data["action"] = _action(_LineDict(inner) if not isinstance(inner, _LineDict) else inner,
                                 path, f"{trail}.action", keys, None).to_dict()
    try:
        options = options_for(kind, {k: _plain(v) for k, v in data.items()})
    except UnreadableInput as exc:  # an option this kind does not take: say where
        exc.where = _where(path, node, trail)
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
        anode = raw if isinstance(raw, _LineDict) else _LineDict(raw)
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
    from .engine import resolve

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
