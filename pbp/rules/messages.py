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
    "action.noted": "{actor}: ação {kind} — {text}",
    "ambush": "{actor} ataca das sombras: sem ações extras, mas age primeiro nesta rodada.",
    "attack.misdirected": "O 1 natural desvia o disparo de {actor} para {target}.",
    "attack.miss-chance": "O ataque de {actor} contra {target} erra: {reason}.",
    "attack.pending": "{actor} ataca {target} ({total}); {target} rola a defesa no próximo post.",
    "cast": "{actor} conjura {spell}.",
    "cast.cancelled": "{actor} cancela a conjuração (uma ação livre).",
    "check": "{actor}: {what} {total} contra {dc}: {result}.",
    "declaration.duplicate": "{actor} declarou duas vezes; vale a última declaração.",
    "declaration.unknown": "Uma declaração cita {actor}, que não está neste combate.",
    "delay.lost": "{actor} esperou demais e perde o turno.",
    "full-round.completed": "{actor} conclui a ação de rodada completa: {text}.",
    "full-round.started": "{actor} inicia uma ação de rodada completa: {text}. Ela se conclui no início do próximo turno.",
    "healing": "{target} recupera {amount} PV ({hp_before} -> {hp_after}).",
    "initiative.cleared": "Iniciativa limpa; será rolada de novo na próxima rodada.",
    "interrupt": "A ação {kind} de {actor} interrompe o turno de {target} (a habilidade permite).",
    "latency.waived": "O narrador dispensa a penalidade do post atrasado de {actor}.",
    "maneuver.lost": "A manobra {maneuver} de {actor} contra {target} falha: {total} contra {opposed}.",
    "maneuver.push": "{target} é empurrado {distance} m.",
    "maneuver.won": "A manobra {maneuver} de {actor} contra {target} tem sucesso: {total} contra {opposed}.",
    "move.draw": "{actor} saca ou guarda uma arma.",
    "move.item": "{actor} manipula um item.",
    "move.stand": "{actor} se levanta.",
    "power.created": "{actor} cria o poder {power} (Controle {total} contra {dc}); dura {rounds} rodadas.",
    "power.failed": "{actor} não consegue criar o poder {power} (Controle {total} contra {dc}).",
    "ready": "{actor} prepara uma ação para quando {trigger}.",
    "ready.lapsed": "A ação preparada de {actor} se perde sem uso.",
    "ready.triggered": "A ação preparada de {actor} dispara; sua iniciativa passa a ser {count}.",
    "simultaneous": "A ação {kind} de {actor} tem efeito junto com a ação de {target}.",
    "speech.limit": "Limite de falas: {limit} por post.",
    "initiative.tie": "{actor} e {target} empatam em {value}; {winner} age primeiro ({policy}).",
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
    "action.noted": "{actor}: действие «{kind}» — {text}",
    "ambush": "{actor} нападает из укрытия: без лишних действий, но ходит первым в этом раунде.",
    "attack.misdirected": "Натуральная 1 уводит выстрел {actor} в {target}.",
    "attack.miss-chance": "Атака {actor} по {target} промахивается: {reason}.",
    "attack.pending": "{actor} атакует {target} ({total}); {target} бросает защиту в следующем посте.",
    "cast": "{actor} творит {spell}.",
    "cast.cancelled": "{actor} отменяет заклинание (одно свободное действие).",
    "check": "{actor}: {what} {total} против {dc}: {result}.",
    "declaration.duplicate": "{actor} заявился дважды; считается последняя заявка.",
    "declaration.unknown": "Заявка называет {actor}, но его нет в этом бою.",
    "delay.lost": "{actor} ждал слишком долго и теряет ход.",
    "full-round.completed": "{actor} завершает действие на весь раунд: {text}.",
    "full-round.started": "{actor} начинает действие на весь раунд: {text}. Оно завершится в начале следующего хода.",
    "healing": "{target} восстанавливает {amount} ОЗ ({hp_before} -> {hp_after}).",
    "initiative.cleared": "Инициатива сброшена; в следующем раунде её бросят заново.",
    "interrupt": "Действие «{kind}» {actor} прерывает ход {target} (так сказано в способности).",
    "latency.waived": "Ведущий прощает {actor} опоздание с постом.",
    "maneuver.lost": "Приём «{maneuver}» {actor} против {target} не удаётся: {total} против {opposed}.",
    "maneuver.push": "{target} отброшен на {distance} м.",
    "maneuver.won": "Приём «{maneuver}» {actor} против {target} удаётся: {total} против {opposed}.",
    "move.draw": "{actor} достаёт или убирает оружие.",
    "move.item": "{actor} возится с предметом.",
    "move.stand": "{actor} встаёт.",
    "power.created": "{actor} создаёт силу «{power}» (Контроль {total} против {dc}); она длится {rounds} раунд(а).",
    "power.failed": "{actor} не удаётся создать силу «{power}» (Контроль {total} против {dc}).",
    "ready": "{actor} готовит действие на случай, когда {trigger}.",
    "ready.lapsed": "Подготовленное действие {actor} пропадает.",
    "ready.triggered": "Подготовленное действие {actor} срабатывает; его инициатива теперь {count}.",
    "simultaneous": "Действие «{kind}» {actor} срабатывает одновременно с действием {target}.",
    "speech.limit": "Лимит реплик: {limit} за пост.",
    "initiative.tie": "{actor} и {target} делят инициативу {value}; первым ходит {winner} ({policy}).",
}

TABLES: Mapping[str, Mapping[str, str]] = {"en": EN, "pt": PT, "ru": RU}

#: Why an action was refused or changed, by problem code (``params.problem`` of
#: ``action.rejected`` / ``action.changed``), for renderers in other languages. The English
#: reason is the event's own ``params.reason``, which is more specific.
REASONS: Mapping[str, Mapping[str, str]] = {
    "pt": {
        "budget.exceeded": "não resta ação para isso neste turno",
        "surprised": "{actor} está surpreendido e não pode fazer isso agora",
        "surprise.one": "na rodada de surpresa cada atacante tem UMA opção: ataque/conjuração, "
                        "movimento ou duas ações rápidas",
        "conversion.refused": "ações só se convertem para baixo: 1 ataque/conjuração vira 2 "
                              "rápidas; nunca movimento, e rápidas nunca viram ataque",
        "kind.unknown": "este sistema não tem esse tipo de ação",
        "move.too-far": "vai além do deslocamento ({speed})",
        "move.grappled": "agarrado não pode se mover (escape antes, com uma ação de combate)",
        "target.unknown": "não há ninguém chamado '{target_key}' neste combate",
        "target.missing": "um ataque precisa de um alvo",
        "target.down": "o alvo já caiu",
        "weapon.unknown": "arma que não está na ficha",
        "power.missing": "crie o poder antes: uma ação de movimento e um teste de Controle",
        "speech.spell": "magia ou poder dito em voz alta não é ação livre",
        "extra-attack.split": "ataques extras saem da mesma ação de combate: não dá para "
                              "atacar, fazer outra coisa e atacar de novo",
        "latency.forfeit": "ação perdida: o post chegou depois do prazo",
        "ride.kind": "só ações rápidas, de movimento e livres valem no turno de outro",
        "ready.trigger": "uma ação preparada precisa de um gatilho: a ação de quem a dispara",
        "maneuver.unknown": "manobra desconhecida",
        "delay.floor": "só dá para atrasar até o bônus de iniciativa - 10; age nessa contagem",
    },
    "ru": {
        "budget.exceeded": "на это в этом ходу не осталось действий",
        "surprised": "{actor} застигнут врасплох и сейчас не может этого сделать",
        "surprise.one": "в раунде внезапности каждому нападающему — ОДНО: атака/каст, "
                        "перемещение или два быстрых действия",
        "conversion.refused": "действия меняются только вниз: атака/каст — в два быстрых; "
                              "никогда в перемещение, и быстрые не складываются в атаку",
        "kind.unknown": "в этой системе нет такого действия",
        "move.too-far": "дальше, чем позволяет скорость ({speed})",
        "move.grappled": "в захвате нельзя двигаться (сначала вырвитесь боевым действием)",
        "target.unknown": "в этом бою нет никого по имени '{target_key}'",
        "target.missing": "для атаки нужна цель",
        "target.down": "цель уже выбыла",
        "weapon.unknown": "такого оружия нет в листе персонажа",
        "power.missing": "сначала создайте силу: действие перемещения и проверка Контроля",
        "speech.spell": "заклинание или сила, произнесённые вслух, — не свободное действие",
        "extra-attack.split": "дополнительные атаки идут из одного боевого действия: нельзя "
                              "атаковать, сделать другое и снова атаковать",
        "latency.forfeit": "действие потеряно: пост пришёл после срока",
        "ride.kind": "в чужой ход можно только быстрые, перемещение и свободные действия",
        "ready.trigger": "подготовленному действию нужен триггер: чьё действие его запускает",
        "maneuver.unknown": "неизвестный приём",
        "delay.floor": "отложить можно только до бонуса инициативы - 10; ход в этот момент",
    },
}


#: condition keys (pbp.rules.conditions) and the words condition events use, per language
WORDS: Mapping[str, Mapping[str, str]] = {
    "pt": {
        "flat-footed": "desprevenido", "prone": "caído", "frightened": "assustado",
        "concealed": "camuflado", "invisible": "invisível", "blinded": "cego",
        "cover": "sob cobertura", "higher-ground": "em posição mais alta",
        "fatigued": "fatigado", "flanked": "flanqueado", "grappled": "agarrado",
        "grappling": "agarrando", "feinted": "fintado", "defending": "em defesa total",
        "latency-penalty": "penalizado pelo atraso", "engaged": "em corpo-a-corpo",
        "power": "com um poder ativo", "advantage": "com vantagem",
        "disadvantage": "com desvantagem", "full-round": "ocupado com uma ação de rodada completa",
        "expired": "expirou", "stood up": "levantou-se", "used": "usado", "escaped": "escapou",
        "released": "soltou", "completed": "concluída", "cancelled": "cancelada",
        "Fortitude success": "sucesso em Fortitude",
    },
    "ru": {
        "flat-footed": "застигнут врасплох", "prone": "лежит", "frightened": "напуган",
        "concealed": "скрыт", "invisible": "невидим", "blinded": "ослеплён",
        "cover": "в укрытии", "higher-ground": "на возвышенности", "fatigued": "утомлён",
        "flanked": "окружён", "grappled": "в захвате", "grappling": "держит захват",
        "feinted": "обманут финтом", "defending": "в полной защите",
        "latency-penalty": "наказан за опоздание", "engaged": "в ближнем бою",
        "power": "с активной силой", "advantage": "с преимуществом",
        "disadvantage": "с помехой", "full-round": "занят действием на весь раунд",
        "expired": "истекло", "stood up": "встал", "used": "использовано",
        "escaped": "вырвался", "released": "отпустил", "completed": "завершено",
        "cancelled": "отменено", "Fortitude success": "успех Стойкости",
    },
}


def word(text: Any, lang: str) -> Any:
    """A condition name or a condition event's reason in *lang* (unchanged if unknown)."""
    return WORDS.get(lang, {}).get(text, text) if isinstance(text, str) else text


def reason(problem: str | None, lang: str, params: Mapping[str, Any]) -> str | None:
    """The refusal reason for *problem* in *lang*, or None (use the English one)."""
    template = REASONS.get(lang, {}).get(problem or "")
    return template.format_map(_Safe(params)) if template is not None else None


def render(code: str, lang: str, params: Mapping[str, Any]) -> str:
    """The sentence for event *code* in *lang* (falling back to English, then the code)."""
    table = TABLES.get(lang, EN)
    template = table.get(code) or EN.get(code)
    if template is None:
        return code
    return template.format_map(_Safe(params))
