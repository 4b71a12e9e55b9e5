"""Event sentences, by event code, in English (the engine's language) and for the bench in
Portuguese and Russian.

Why a table and not f-strings at the call site: the same event is said in three
languages (``pbp bench --lang``), and later by the reply templates; the engine
keeps ``params`` on every event so any renderer can say it again. A code missing
from a language falls back to English; a missing parameter shows as ``?``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class _Safe(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


EN: dict[str, str] = {
    "round.start": "Round {round} begins.",
    "round.surprise": "Surprise round: only {sides} may act.",
    "round.end": "Round {round} ends.",
    "initiative.rolled": "{actor} rolls initiative: {value}.",
    "initiative.order": "Initiative order: {names}.",
    "initiative.tie": "{actor} and {target} tie at {value}; {winner} goes first ({policy}).",
    "initiative.cleared": "Initiative cleared; it will be rolled again next round.",
    "turn.start": "{actor}'s turn (initiative {count}).",
    "turn.skipped": "{actor} cannot act: {reason}.",
    "turn.end": "{actor} ends the turn.",
    "action.rejected": "{actor}: {reason}",
    "action.changed": "{actor}: {reason}",
    "action.converted": "{actor} converts one {source} action into {ratio} {into} action(s).",
    "action.noted": "{actor}: {kind} action — {text}",
    "latency.penalty": "{actor} posted late or not at all: {reason}",
    "latency.waived": "{actor}'s late post is excused by the narrator.",
    "attack.hit": "{actor} hits {target}: {total} against {defense}.",
    "attack.miss": "{actor} misses {target}: {total} against {defense}.",
    "attack.critical": "Critical hit! Damage is multiplied by {multiplier}.",
    "attack.auto-hit": "{actor} rolls a natural 20 and hits {target} whatever the defense.",
    "attack.auto-miss": "{actor} rolls a natural 1 and misses {target}.",
    "attack.miss-chance": "{actor}'s attack on {target} misses: {reason}.",
    "attack.misdirected": "The natural 1 sends {actor}'s shot into {target} instead.",
    "attack.pending": "{actor} attacks {target} ({total}); {target} rolls defense in the next post.",
    "defense.rolled": "{target} defends with {kind}: {total}.",
    "damage": "{target} takes {amount} damage ({hp_before} -> {hp_after} HP).",
    "healing": "{target} recovers {amount} HP ({hp_before} -> {hp_after}).",
    "combatant.down": "{target} is down.",
    "object.destroyed": "{target} is destroyed.",
    "condition.added": "{target} is now {condition}.",
    "condition.ended": "{target} is no longer {condition} ({reason}).",
    "move": "{actor} moves {distance} m (up to {speed} m).",
    "move.stand": "{actor} stands up.",
    "move.draw": "{actor} draws or sheathes a weapon.",
    "move.item": "{actor} handles an item.",
    "maneuver.won": "{actor}'s {maneuver} against {target} succeeds: {total} against {opposed}.",
    "maneuver.lost": "{actor}'s {maneuver} against {target} fails: {total} against {opposed}.",
    "maneuver.push": "{target} is pushed {distance} m.",
    "power.created": "{actor} creates the power {power} (Control {total} vs {dc}); it lasts {rounds} rounds.",
    "power.failed": "{actor} fails to create the power {power} (Control {total} vs {dc}).",
    "cast": "{actor} casts {spell}.",
    "cast.cancelled": "{actor} cancels the casting (one free action).",
    "full-round.started": "{actor} begins a full-round action: {text}. It completes at the start of their next turn.",
    "full-round.completed": "{actor} completes the full-round action: {text}.",
    "delay": "{actor} delays to initiative {count}.",
    "delay.lost": "{actor} waited too long and loses the turn.",
    "ready": "{actor} readies an action for when {trigger}.",
    "ready.triggered": "{actor}'s readied action goes off; their initiative becomes {count}.",
    "ready.lapsed": "{actor}'s readied action lapses unused.",
    "defend": "{actor} takes total defense (+{bonus} defense until their next turn).",
    "simultaneous": "{actor}'s {kind} action takes effect together with {target}'s action.",
    "interrupt": "{actor}'s {kind} action interrupts {target}'s turn (the ability says so).",
    "ambush": "{actor} strikes from hiding: no extra actions, but acts first this round.",
    "speech.limit": "Speech limit: {limit} per post.",
    "check": "{actor}: {what} {total} against {dc}: {result}.",
    "declaration.unknown": "A declaration names {actor}, who is not in this fight.",
    "declaration.duplicate": "{actor} declared twice; the last declaration counts.",
}

PT: dict[str, str] = {
    "round.start": "Começa a rodada {round}.",
    "round.surprise": "Rodada de surpresa: apenas {sides} podem agir.",
    "round.end": "Fim da rodada {round}.",
    "initiative.rolled": "{actor} rola iniciativa: {value}.",
    "initiative.order": "Ordem de iniciativa: {names}.",
    "turn.start": "Turno de {actor} (iniciativa {count}).",
    "turn.skipped": "{actor} não pode agir: {reason}.",
    "turn.end": "{actor} termina o turno.",
    "action.rejected": "{actor}: {reason}",
    "action.changed": "{actor}: {reason}",
    "action.converted": "{actor} converte uma ação de {source} em {ratio} ações de {into}.",
    "latency.penalty": "{actor} postou atrasado ou não postou: {reason}",
    "attack.hit": "{actor} acerta {target}: {total} contra {defense}.",
    "attack.miss": "{actor} erra {target}: {total} contra {defense}.",
    "attack.critical": "Acerto crítico! O dano é multiplicado por {multiplier}.",
    "attack.auto-hit": "{actor} tira 20 natural e acerta {target}.",
    "attack.auto-miss": "{actor} tira 1 natural e erra {target}.",
    "defense.rolled": "{target} defende com {kind}: {total}.",
    "damage": "{target} sofre {amount} de dano ({hp_before} -> {hp_after} PV).",
    "combatant.down": "{target} caiu.",
    "object.destroyed": "{target} foi destruído.",
    "condition.added": "{target} agora está {condition}.",
    "condition.ended": "{target} não está mais {condition} ({reason}).",
    "move": "{actor} se move {distance} m (até {speed} m).",
    "delay": "{actor} atrasa para a iniciativa {count}.",
    "defend": "{actor} assume defesa total (+{bonus} na defesa até o próximo turno).",
}

RU: dict[str, str] = {
    "round.start": "Начинается раунд {round}.",
    "round.surprise": "Раунд внезапности: действовать могут только {sides}.",
    "round.end": "Раунд {round} окончен.",
    "initiative.rolled": "{actor} бросает инициативу: {value}.",
    "initiative.order": "Порядок инициативы: {names}.",
    "turn.start": "Ход {actor} (инициатива {count}).",
    "turn.skipped": "{actor} не может действовать: {reason}.",
    "turn.end": "{actor} завершает ход.",
    "action.rejected": "{actor}: {reason}",
    "action.changed": "{actor}: {reason}",
    "action.converted": "{actor} превращает одно действие «{source}» в {ratio} действия «{into}».",
    "latency.penalty": "{actor} опоздал с постом или не написал его: {reason}",
    "attack.hit": "{actor} попадает по {target}: {total} против {defense}.",
    "attack.miss": "{actor} промахивается по {target}: {total} против {defense}.",
    "attack.critical": "Критическое попадание! Урон умножается на {multiplier}.",
    "attack.auto-hit": "{actor} выбрасывает натуральные 20 и попадает по {target}.",
    "attack.auto-miss": "{actor} выбрасывает натуральную 1 и промахивается по {target}.",
    "defense.rolled": "{target} защищается ({kind}): {total}.",
    "damage": "{target} получает {amount} урона ({hp_before} -> {hp_after} ОЗ).",
    "combatant.down": "{target} выбывает из боя.",
    "object.destroyed": "{target} разрушен.",
    "condition.added": "{target}: теперь состояние «{condition}».",
    "condition.ended": "{target}: состояние «{condition}» закончилось ({reason}).",
    "move": "{actor} перемещается на {distance} м (до {speed} м).",
    "delay": "{actor} откладывает ход до инициативы {count}.",
    "defend": "{actor} уходит в полную защиту (+{bonus} к защите до своего следующего хода).",
}

TABLES: Mapping[str, Mapping[str, str]] = {"en": EN, "pt": PT, "ru": RU}


def render(code: str, lang: str, params: Mapping[str, Any]) -> str:
    """The sentence for event *code* in *lang* (falling back to English, then the code)."""
    table = TABLES.get(lang, EN)
    template = table.get(code) or EN.get(code)
    if template is None:
        return code
    return template.format_map(_Safe(params))
