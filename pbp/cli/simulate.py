"""``pbp simulate THREAD.yaml``: play a scripted thread (posts with timestamps, edits,
deletions, late posts) through the rounds service on an in-memory database and print the
replies it would post. ``pbp bench`` hands over to it for scenarios with ``posts:``.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import click

from ..rounds.simulate import Simulation, load_thread, simulate

#: audit actions shown as "automatic decisions" in the summary, in this order
DECISIONS = ("round.resolve", "round.reminder", "round.latency", "standing.apply",
             "standing.default", "standing.if", "standing.refused", "absence.start",
             "absence.end", "round.extension.granted", "round.extension.queued",
             "round.extension.refused")
#: STALL-3's escalation ladder (being built elsewhere) audits its steps under this prefix;
#: the summary lists them in their own section as soon as they exist
LADDER_PREFIX = "ladder."


def _how(sim: Simulation, rnd: int, key: str) -> str:
    """How *key* acted in round *rnd*: posted, late, standing order, away, latency."""
    apply = next((a for a in sim.audit if a["action"] == "standing.apply" and a["round"] == rnd
                  and a["entity_id"] == key), None)
    if apply is not None:
        after = apply["after"]
        if after.get("away"):
            return f"away ({after.get('source')}: {after.get('text') or 'passes'})"
        return f"standing order ({after.get('source')}: {after.get('text')})"
    if any(a["action"] == "round.latency" and a["round"] == rnd and a["entity_id"] == key
           for a in sim.audit):
        return "LATENCY RULE"
    decl = next((d for d in sim.declarations if d["round"] == rnd and d["actor"] == key), None)
    if decl is not None:
        return "posted late" if decl["late"] else "posted"
    return "-"


def summary(sim: Simulation) -> str:
    """A narrator's view of a simulated campaign: outcome, rounds, who acted how, the
    penalties, the automatic decisions of the audit log."""
    lines: list[str] = ["===== summary ====="]
    standing = [c for c in sim.combatants if not c["down"]]
    sides = sorted({c["side"] for c in standing})
    last = sim.rounds[-1] if sim.rounds else None
    if sim.status == "finished" and last is not None:
        lines.append(f"The fight is over after {len(sim.rounds)} round(s), at "
                     f"{last['resolved_at']:%Y-%m-%d %H:%M} UTC; still standing: "
                     f"{', '.join(sides) or 'nobody'}.")
    else:
        lines.append(f"The fight is not over ({sim.status}) after {len(sim.rounds)} round(s).")
    for r in sim.rounds:
        early = any(a["action"] == "round.resolve" and a["round"] == r["number"]
                    and a["after"].get("early") for a in sim.audit)
        end = f"{r['resolved_at']:%Y-%m-%d %H:%M}" if r["resolved_at"] else r["state"]
        lines.append(f"  round {r['number']}: {r['opens_at']:%m-%d %H:%M} -> deadline "
                     f"{r['deadline']:%m-%d %H:%M}, resolved {end}"
                     f"{' (early close, STALL-4)' if early else ''}")
    players = [c for c in sim.combatants if c["player"]]
    npcs = [c for c in sim.combatants if not c["player"]]
    lines.append("Who acted how:")
    for c in [*players, *npcs]:
        hows = [_how(sim, r["number"], c["key"]) for r in sim.rounds if r["resolved_at"]]
        who = f"{c['name']} ({c['player'] or 'NPC'})"
        lines.append(f"  {who}: " + "; ".join(f"r{i + 1} {h}" for i, h in enumerate(hows)))
    penalties = Counter(a["entity_id"] for a in sim.audit if a["action"] == "round.latency")
    lines.append("Latency penalties: " + (", ".join(f"{k} x{n}" for k, n in sorted(penalties.items()))
                                          or "none"))
    counts = Counter(a["action"] for a in sim.audit)
    lines.append("Automatic decisions (audit log): " + ", ".join(
        f"{a} {counts[a]}" for a in DECISIONS if counts[a]))
    ladder = [a for a in sim.audit if a["action"].startswith(LADDER_PREFIX)]
    lines.append("Escalation ladder (STALL-3): " + (", ".join(
        f"r{a['round']} {a['action']} {a['entity_id']}" for a in ladder) or "no steps"))
    lines.append(f"rolls verified against the revealed seeds: {'yes' if sim.verified else 'NO'}")
    return "\n".join(lines)


def _audit_json(sim: Simulation) -> list[dict[str, Any]]:
    return [{**a, "at": a["at"].isoformat()} for a in sim.audit]


def run(path: str, *, seed: str | None, lang: str | None, platform: str | None,
        json_out: bool, db: str | None = None) -> str:
    sim = simulate(load_thread(path), seed=seed, language=lang, platform=platform, db_url=db)
    if json_out:
        return json.dumps({"replies": [{"key": r.key, "kind": r.kind, "round": r.round,
                                        "at": r.at.isoformat(), "body": r.body}
                                       for r in sim.replies],
                           "declarations": sim.declarations, "verified": sim.verified,
                           "audit": _audit_json(sim), "status": sim.status},
                          ensure_ascii=False, indent=1)
    parts = [f"----- {r.kind}, round {r.round}, {r.at:%Y-%m-%d %H:%M} UTC -----\n{r.body}"
             for r in sim.replies]
    parts.append(summary(sim) if sim.audit else
                 f"rolls verified against the revealed seeds: {'yes' if sim.verified else 'NO'}")
    return "\n".join(parts)


@click.command("simulate")
@click.argument("thread", metavar="THREAD.yaml")
@click.option("--seed", default=None, help="Base of the round seeds (default: the scenario's).")
@click.option("--lang", type=click.Choice(["en", "pt", "ru"]), default=None,
              help="Reply language (default: the scenario's thread.language).")
@click.option("--platform", type=click.Choice(["text", "bbcode", "markdown"]), default=None,
              help="Reply markup (default: the scenario's thread.platform, else text).")
@click.option("--json", "json_out", is_flag=True, help="Replies and declarations as JSON.")
@click.option("--db", default=None,
              help="Play on this EMPTY database (its tables are created, then dropped), "
                   "e.g. a PostgreSQL test database; default: in memory.")
def command(thread: str, seed: str | None, lang: str | None, platform: str | None,
            json_out: bool, db: str | None) -> None:
    """Simulate a thread's rounds from timestamped posts, persisting nothing."""
    click.echo(run(thread, seed=seed, lang=lang, platform=platform, json_out=json_out, db=db))
