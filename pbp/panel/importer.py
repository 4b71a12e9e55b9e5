"""Combatant sheets from a simple file, so a narrator does not type fifty goblins.

CSV: a header row; ``key``, ``name`` required; ``side``, ``player``, ``hp``, ``max_hp``,
``initiative``, ``count`` optional; ``weapons`` as ``name:damage|name:damage``; any other
column is a stat. YAML: a list of mappings with the same keys, ``stats`` a mapping,
``weapons`` a list of ``{name, damage, category...}`` or ``"name:damage"`` strings.
``count: N`` repeats a row as ``key-1`` .. ``key-N`` (``Goblin 1`` ..). Every value goes
through :mod:`pbp.rules.sheet_checks` (``max_hp`` 1.., ``hp`` 0..max_hp, ``count`` 1..500,
weapons as ``name: dice`` with dice the engine can roll): one bad row refuses the file.

>>> rows = parse("g.csv", b"key,name,hp,count,Destreza\\ngoblin,Goblin,7,2,1\\n")
>>> [(r["key"], r["name"], r["hp"], r["sheet"]["stats"]) for r in rows]
[('goblin-1', 'Goblin 1', 7, {'dex': 1}), ('goblin-2', 'Goblin 2', 7, {'dex': 1})]
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import yaml

from ..errors import UnreadableInput
from ..rules.sheet_checks import SheetProblem, check_damage, check_hp, weapon_lines
from ..rules.stats import normalise_sheet

MAX_ROWS = 500
KEY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
FIXED = {"key", "name", "side", "player", "hp", "max_hp", "initiative", "count", "weapons", "stats",
         "abilities", "aliases", "default_action"}


def _int(value: Any, what: str, where: str, default: int | None = None) -> int | None:
    if value in (None, ""):
        return default
    try:
        return int(str(value).strip())
    except ValueError:
        raise UnreadableInput(f"{what} must be a whole number, not {value!r}", where=where) from None


def parse_weapons(value: Any, where: str) -> list[dict[str, Any]]:
    """``name:dice|name:dice`` (or a YAML list of those or of mappings) -> weapons; a line
    without a colon, a name or dice is refused, naming it (:func:`weapon_lines`)."""
    if value in (None, ""):
        return []
    items = value if isinstance(value, list) else str(value).split("|")
    weapons, problems = weapon_lines(items)
    if problems:
        raise UnreadableInput("; ".join(p.message for p in problems), where=where)
    return weapons


def _checked(problems: list[SheetProblem], where: str) -> None:
    if problems:
        raise UnreadableInput("; ".join(p.message for p in problems), where=where)


def _row(raw: dict[str, Any], where: str) -> list[dict[str, Any]]:
    raw = {str(k).strip().lower(): v for k, v in raw.items() if k is not None}
    key = str(raw.get("key") or "").strip().lower()
    name = str(raw.get("name") or "").strip()
    if not KEY.match(key):
        raise UnreadableInput(f"key {key!r} must be 1-40 lower-case letters, digits, - or _", where=where)
    if not name:
        raise UnreadableInput("a combatant needs a name", where=where)
    stats = dict(raw.get("stats") or {})
    for k, v in raw.items():
        if k not in FIXED and v not in (None, ""):
            stats[k] = v
    stats = normalise_sheet(stats, where=where)  # "Destreza", "Ловкость", "DEX" -> dex
    hp_given = _int(raw.get("hp"), "hp", where)
    max_hp = _int(raw.get("max_hp"), "max_hp", where, default=10 if hp_given is None else hp_given)
    hp = max_hp if hp_given is None else hp_given
    count = _int(raw.get("count"), "count", where, default=1)
    if count is None or not 1 <= count <= MAX_ROWS:
        raise UnreadableInput(f"count must be 1..{MAX_ROWS}, not {count}", where=where)
    weapons = parse_weapons(raw.get("weapons"), where)
    _checked(check_hp(hp, max_hp) + [p for w in weapons
                                      if (p := check_damage(str(w["name"]), str(w.get("damage") or "1d4"),
                                                            stats)) is not None], where)
    init = raw.get("initiative")
    base = {
        "side": str(raw.get("side") or ("players" if raw.get("player") else "enemies")).strip(),
        "player": str(raw["player"]).strip() if raw.get("player") else None,
        "hp": hp, "max_hp": max_hp,
        "initiative": float(init) if init not in (None, "") else None,
        "sheet": {"stats": stats, "weapons": weapons,
                  "abilities": list(raw.get("abilities") or []), "aliases": list(raw.get("aliases") or []),
                  **({"default_action": str(raw["default_action"]).strip()}
                     if raw.get("default_action") else {})},
    }
    if count == 1:
        return [dict(base, key=key, name=name)]
    return [dict(base, key=f"{key}-{i}", name=f"{name} {i}") for i in range(1, count + 1)]


def parse(filename: str, data: bytes) -> list[dict[str, Any]]:
    """Rows ready for :class:`pbp.store.models.Combatant`; every problem names its line."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableInput("the file is not UTF-8 text", where=filename) from None
    rows: list[dict[str, Any]] = []
    if filename.lower().endswith((".yaml", ".yml")):
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise UnreadableInput(f"not valid YAML ({exc})", where=filename) from None
        if isinstance(doc, dict) and "combatants" in doc:
            doc = doc["combatants"]
        if not isinstance(doc, list):
            raise UnreadableInput("expected a list of combatants", where=filename)
        for i, item in enumerate(doc, 1):
            if not isinstance(item, dict):
                raise UnreadableInput("each combatant is a mapping", where=f"{filename} item {i}")
            rows += _row(item, f"{filename} item {i}")
    elif filename.lower().endswith(".csv"):
        reader = csv.DictReader(io.StringIO(text))
        if not reader.fieldnames or "key" not in [f.strip().lower() for f in reader.fieldnames]:
            raise UnreadableInput("the first line must name the columns, key and name among them", where=filename)
        for row in reader:
            rows += _row(row, f"{filename} line {reader.line_num}")
    else:
        raise UnreadableInput("a combatant file ends in .csv, .yaml or .yml", where=filename)
    if len(rows) > MAX_ROWS:
        raise UnreadableInput(f"at most {MAX_ROWS} combatants in one file", where=filename)
    keys = [r["key"] for r in rows]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise UnreadableInput(f"key {dupes[0]!r} appears twice", where=filename)
    return rows
