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
    ruleset_id = str(root["ruleset"])
    try:
        cls = ruleset_class(ruleset_id)
    except PbpError as exc:
        exc.where = _where(path, root, "ruleset", "ruleset")
        raise
    overrides = root.get("houserules") or {}
    try:
        houserules = load_houserules(ruleset_id, _need_mapping(overrides, path, root, "houserules"))
    except PbpError as exc:
        exc.where = _where(path, root, "houserules", "houserules")
        raise
    extra = frozenset(SYNONYMS) | cls.extra_stats
    raw_cs = root.get("combatants")
    if not isinstance(raw_cs, list) or not raw_cs:
        raise UnreadableInput("'combatants' must be a non-empty list",
                              where=_where(path, root, "combatants", "combatants"))
    combatants = [_combatant(c, i, path, root, extra) for i, c in enumerate(raw_cs)]
    keys = [c.key for c in combatants]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise UnreadableInput(f"duplicate combatant key(s): {', '.join(dupes)}",
                              where=_where(path, root, "combatants", "combatants"))
    surprised = tuple(str(k) for k in (root.get("surprised") or ()))
    for k in surprised:
        if k not in keys:
            raise UnreadableInput(f"'{k}' is not a combatant",
                                  where=_where(path, root, "surprised", "surprised"))
    encounter = Encounter(ruleset=ruleset_id, combatants=tuple(combatants),
                          round=int(root.get("round", 0)),
                          surprise=bool(root.get("surprise", bool(surprised))),
                          surprised=surprised, unseen=bool(root.get("unseen", False)),
                          houserules=houserules)
    raw_rounds = root.get("rounds") or []
    if not isinstance(raw_rounds, list):
        raise UnreadableInput("'rounds' must be a list", where=_where(path, root, "rounds", "rounds"))
    rounds: list[list[dict[str, Any]]] = []
    scenario = Scenario(encounter, houserules, rounds, seed=str(root.get("seed", "bench")),
                        dice=[int(x) for x in (root.get("dice") or [])], path=path,
                        title=str(root.get("title", "")))
    for r, raw in enumerate(raw_rounds):
        trail = f"rounds[{r}]"
        node = _need_mapping(raw, path, root, trail)
        _check_keys(node, {"declarations", "note"}, path, trail)
        decls = node.get("declarations") or []
        if not isinstance(decls, list):
            raise UnreadableInput("'declarations' must be a list", where=_where(path, node, trail))
        checked: list[dict[str, Any]] = []
        for d, rawd in enumerate(decls):
            dt = f"{trail}.declarations[{d}]"
            dnode = _need_mapping(rawd, path, node, dt)
            _check_keys(dnode, DECLARATION_KEYS, path, dt)
            if dnode.get("actor") not in keys:
                raise UnreadableInput(f"actor '{dnode.get('actor')}' is not a combatant",
                                      where=_where(path, dnode, dt, "actor"))
            who = combatants[keys.index(dnode["actor"])]
            for a, rawa in enumerate(dnode.get("actions") or []):
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
    key = str(node["key"])
    name = str(node.get("name", key))
    if "object" in node:  # FD-19
        spec = _need_mapping(node["object"] or {}, path, node, f"{trail}.object")
        _check_keys(spec, OBJECT_KEYS, path, f"{trail}.object")
        try:
            return objects.make_object(key, name, size=spec.get("size", "medium"),
                                       material=int(spec.get("material", 0)),
                                       moving=bool(spec.get("moving", False)),
                                       reduction=int(spec.get("reduction", 0)))
        except PbpError as exc:
            exc.where = _where(path, spec, f"{trail}.object")
            raise
    stats_node = node.get("stats") or {}
    stats = normalise_sheet(_need_mapping(stats_node, path, node, f"{trail}.stats"),
                            where=_where(path, stats_node, f"{trail}.stats"), extra=extra)
    weapons = []
    for w, raw_w in enumerate(node.get("weapons") or []):
        wt = f"{trail}.weapons[{w}]"
        wnode = _need_mapping(raw_w, path, node, wt)
        _check_keys(wnode, WEAPON_KEYS, path, wt)
        try:
            weapon = Weapon.from_dict({**wnode, "aliases": list(wnode.get("aliases", []))})
            check_expression(weapon.damage)
            if has_stats(weapon.damage):  # every stat the damage names must be on the sheet
                substitute_stats(weapon.damage, stats, resolve_name)
        except PbpError as exc:
            exc.where = _where(path, wnode, wt)
            raise
        weapons.append(weapon)
    conds = []
    for j, raw_c in enumerate(node.get("conditions") or []):
        ct = f"{trail}.conditions[{j}]"
        cnode = _LineDict({"name": raw_c}) if isinstance(raw_c, str) else \
            _need_mapping(raw_c, path, node, ct)
        if not cnode.line:
            cnode.line, cnode.key_lines = node.key_lines.get("conditions", node.line), {}
        _check_keys(cnode, CONDITION_KEYS, path, ct)
        try:
            conds.append(Condition.from_dict({**cnode, "name": C.canonical(str(cnode["name"]))}))
        except PbpError as exc:
            exc.where = _where(path, cnode, ct)
            raise
    hp = int(node.get("hp", 10))
    try:
        return Combatant(
            key=key, name=name, side=str(node.get("side", "players")),
            player=None if node.get("player") is None else str(node["player"]),
            stats=stats, hp=hp, max_hp=int(node.get("max_hp", hp)), weapons=tuple(weapons),
            conditions=tuple(conds),
            initiative=None if node.get("initiative") is None else float(node["initiative"]),
            aliases=tuple(node.get("aliases") or ()), abilities=tuple(node.get("abilities") or ()),
            extra_actions={str(k): int(v) for k, v in (node.get("extra_actions") or {}).items()},
            down=bool(node.get("down", False)),
        )
    except (TypeError, ValueError) as exc:
        raise UnreadableInput(str(exc), where=_where(path, node, trail)) from None


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
    weapon = data.pop("weapon", None)
    text = str(data.pop("text", ""))
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
    return Action(kind=kind, target=None if target is None else str(target),
                  weapon=None if weapon is None else str(weapon), text=text or kind.value,
                  rolled=rolled, options={k: _plain(v) for k, v in data.items()})


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
