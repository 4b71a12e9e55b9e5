"""``pbp bench SCENARIO.yaml``: run a scripted fight through the engine and print, round by
round, what the service would reply.

Why: narrators try houserules and developers pin the rules (golden files) without a
forum. Plain text by default (a later issue brings the templated BBCode/Markdown
replies); ``--json`` gives the events machine-readable (schema in docs/scenarios.md).
Bad input is one line naming what and where, exit status 2 (the group converts
:class:`~pbp.errors.PbpError`).
"""

from __future__ import annotations

import json
from typing import Any

import click

from ..dice import force_faces
from ..errors import DiceError
from ..render import EventLine, event_sentence
from ..render.arithmetic import shown_rolls
from ..render.i18n import say as tr
from ..rounds.simulate import is_thread_scenario
from ..rules.model import Encounter, Event
from ..rules.registry import get
from ..rules.scenario import RoundResult, Scenario, run
from ..scenario_files import load
from .simulate import run as simulate_thread

SCHEMA_VERSION = 1


def _faces(spec: str | None) -> list[int] | None:
    if spec is None:
        return None
    try:
        faces = force_faces(spec)
    except ValueError:
        raise DiceError(f"--dice '{spec}' must be faces separated by commas, like 19,4,12") from None
    if any(f < 1 for f in faces):
        raise DiceError(f"--dice '{spec}': a face is at least 1")
    return faces


def say(event: Event, lang: str, encounter: Encounter) -> str:
    """The event's sentence in *lang*: English is the engine's own message; other languages
    go through the replies' translation (:func:`pbp.render.event_sentence`, the gettext
    catalogs in ``pbp/render/locale``)."""
    if lang == "en":
        return event.message
    names = {c.key: c.name for c in encounter.combatants}
    return event_sentence(event.code, event.params, lang, names, actor=event.actor,
                          target=event.target, message=event.message)


def as_json(scenario: Scenario, results: list[RoundResult], *, seed: str,
            forced: list[int], lang: str) -> dict[str, Any]:
    rounds = []
    for r in results:
        events = []
        for e in r.events:
            d = e.to_dict()
            if lang != "en":
                d["said"] = say(e, lang, r.encounter)
            events.append(d)
        rounds.append({"round": r.number, "events": events,
                       "hp": {c.key: c.hp for c in r.encounter.combatants}})
    return {"schema": SCHEMA_VERSION, "ruleset": scenario.encounter.ruleset,
            "title": scenario.title, "seed": seed, "forced": forced, "lang": lang,
            "rounds": rounds,
            "final": results[-1].encounter.to_dict() if results else
            scenario.encounter.to_dict()}


def as_text(scenario: Scenario, results: list[RoundResult], *, seed: str, lang: str) -> str:
    surprise = tr("surprise round", lang).capitalize()
    lines = [f"{scenario.encounter.ruleset}: {scenario.title or scenario.path} (seed {seed})"]
    limit = get(scenario.encounter.ruleset, scenario.houserules).speech_limit
    lines.append(f"speech limit: {limit if limit else 'none'} per post")
    for r in results:
        lines.append("")
        surprised = any(e.code == "round.surprise" for e in r.events)
        title = surprise if surprised else tr("Round {number}", lang, {"number": r.number})
        lines.append(f"== {title} ==")
        for e in r.events:
            if e.code in ("round.start", "round.end", "turn.end"):
                continue
            rule = f" [{e.rule}]" if e.rule else ""
            lines.append(f"  {say(e, lang, r.encounter)}{rule}")
            line = EventLine(e.code, e.params, e.rule, tuple(r.breakdown for r in e.rolls))
            sums = shown_rolls(line, lang)   # each sum with its parts by name (issue 11)
            labels = [r.label or "roll" for r in e.rolls] + [""] * (len(sums) - len(e.rolls))
            for label, text in zip(labels, sums, strict=True):
                lines.append(f"      {label + ': ' if label else ''}{text}")
        hp = ", ".join(f"{c.name} {c.hp}/{c.max_hp}" + (" (down)" if c.down else "")
                       for c in r.encounter.combatants)
        lines.append(f"  HP: {hp}")
    return "\n".join(lines)


@click.command("bench")
@click.argument("scenario", metavar="SCENARIO.yaml")
@click.option("--json", "json_out", is_flag=True,
              help="Print the events as JSON (schema: docs/scenarios.md).")
@click.option("--seed", default=None, help="Round seed (default: the scenario's, else 'bench').")
@click.option("--dice", default=None, metavar="19,4,12",
              help="Force these faces first, then roll from the seed.")
@click.option("--lang", type=click.Choice(["en", "pt", "ru"]), default="en", show_default=True,
              help="Language of the event sentences.")
def command(scenario: str, json_out: bool, seed: str | None, dice: str | None, lang: str) -> None:
    """Run a scripted fight through the rules engine and print the replies."""
    # -- thread scenarios (``posts:`` with timestamps): the rounds service simulates them,
    # -- persisting nothing (issue 4: pbp/rounds/simulate.py, pbp/cli/simulate.py).
    if is_thread_scenario(scenario):
        if dice is not None:
            raise click.UsageError("--dice does not apply to a thread scenario (rolls come "
                                   "from the round seeds; use --seed)")
        click.echo(simulate_thread(scenario, seed=seed, lang=None if lang == "en" else lang,
                                   platform=None, json_out=json_out))
        return
    # -- end of the thread-scenario hook
    loaded = load(scenario)
    forced = _faces(dice)
    used_seed = seed if seed is not None else loaded.seed
    used_forced = forced if forced is not None else list(loaded.dice)
    try:
        results = run(loaded, seed=used_seed, forced=used_forced)
    except DiceError as exc:
        if exc.where is None and "forced face" in exc.message:
            exc.where = "--dice" if forced is not None else f"{loaded.path} (dice)"
        raise
    if json_out:
        click.echo(json.dumps(as_json(loaded, results, seed=used_seed, forced=used_forced,
                                      lang=lang), ensure_ascii=False, indent=1))
    else:
        click.echo(as_text(loaded, results, seed=used_seed, lang=lang))
