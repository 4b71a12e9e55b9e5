"""``pbp simulate THREAD.yaml``: play a scripted thread (posts with timestamps, edits,
deletions, late posts) through the rounds service on an in-memory database and print the
replies it would post. ``pbp bench`` hands over to it for scenarios with ``posts:``.
"""

from __future__ import annotations

import json

import click

from ..rounds.simulate import load_thread, simulate


def run(path: str, *, seed: str | None, lang: str | None, platform: str | None,
        json_out: bool) -> str:
    sim = simulate(load_thread(path), seed=seed, language=lang, platform=platform)
    if json_out:
        return json.dumps({"replies": [{"key": r.key, "kind": r.kind, "round": r.round,
                                        "at": r.at.isoformat(), "body": r.body}
                                       for r in sim.replies],
                           "declarations": sim.declarations, "verified": sim.verified},
                          ensure_ascii=False, indent=1)
    parts = [f"----- {r.kind}, round {r.round}, {r.at:%Y-%m-%d %H:%M} UTC -----\n{r.body}"
             for r in sim.replies]
    parts.append(f"rolls verified against the revealed seeds: {'yes' if sim.verified else 'NO'}")
    return "\n".join(parts)


@click.command("simulate")
@click.argument("thread", metavar="THREAD.yaml")
@click.option("--seed", default=None, help="Base of the round seeds (default: the scenario's).")
@click.option("--lang", type=click.Choice(["en", "pt", "ru"]), default=None,
              help="Reply language (default: the scenario's thread.language).")
@click.option("--platform", type=click.Choice(["text", "bbcode", "markdown"]), default=None,
              help="Reply markup (default: the scenario's thread.platform, else text).")
@click.option("--json", "json_out", is_flag=True, help="Replies and declarations as JSON.")
def command(thread: str, seed: str | None, lang: str | None, platform: str | None,
            json_out: bool) -> None:
    """Simulate a thread's rounds from timestamped posts, persisting nothing."""
    click.echo(run(thread, seed=seed, lang=lang, platform=platform, json_out=json_out))
