"""The SW5e race as a Ruleset (seed 003): setup, the actions by phase, who is waited on, legal actions,
the views (the DCs are the GM's), the words for the table, computer racers and the deadline's autopilot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from rules.dice import DiceState
from rules.engine import (
    Autopilot,
    ComputerSeats,
    ExampleOpening,
    GameMaster,
    LegalAction,
    Logged,
    Ruleset,
    Secrets,
    suggest_legal,
)
from rules.errors import BadOption, NotSeated, NotYourTurn, WrongPhase
from rules.phases import PhaseTable
from rules.race import ai, checks, data, flow, lobby, maneuvers, orders, steps
from rules.race import events as race_events
from rules.race import review as race_review
from rules.race.actions import (
    ACTIONS,
    Act,
    AddComputer,
    AddCustom,
    BecomeGm,
    GmChange,
    GmCondition,
    GmReveal,
    GmReward,
    GmRule,
    GmTell,
    Join,
    Prepare,
    React,
    Stabilize,
    Start,
    Throttle,
    TryFeature,
    Tune,
)
from rules.race.commands import GRAMMAR
from rules.race.events import EVENTS
from rules.race.flow import acting_players
from rules.race.selfplay import SELFPLAY
from rules.race.state import GmNote, Phase, Racer, RaceState
from rules.ranking import Order, no_result, resigned
from rules.referee import TABLE_ACTIONS, Handler, Resignation
from rules.seats import addressed
from rules.table import HOST_NAME, agreed_words, plural, revision_option

_NOTES_ROOM = 1900   # what /notes shows at most (the newest notes first to go in)

# 2: a straight section's check comes of its conditions only; a group's own file is held to what a track
# needs (features, conditions, unique keys and names)
# 3: a step that waits on several racers at once is one turn (its key no longer names who is still
# waited on): one public message for it, and no racer's clock starts again when another one answers
# 4: where two rules meet (seed 003): a trampoline costs the speed of its lift, the banthas' rejoin at
# 300 km/h earns the speed-loss bonus, a racer over its ceiling climbs nowhere and descends what it asks,
# and a dive before a maneuver's check keeps the maneuver's speed conditions (a block never speeds the
# passer up; no side sweep on a racer the dive made slower)
# 5: the seed audit: a gap with an avoid DC may be avoided; a boost trap's check on a straight no
# condition makes hard leaves out the GM's private change; a dive before an action a seated GM rules on
# waits on the approval; a passer wrecked by the weapon reaction passes nobody; a ram's or sweep's speed
# bonus is measured as declared, before the target's dive
REVISION = 5

# What each phase allows (the table's ending and taking over are in every phase before the end, and a
# seated GM's reward for a show off and private notes at any point of the race), and who may act: in the lobby anyone,
# after it only whoever the race waits on.
_RUNNING = tuple(p for p in Phase if p not in (Phase.LOBBY, Phase.FINISHED))
_OWN = {
    Phase.LOBBY: (Join, AddComputer, AddCustom, BecomeGm, Start),
    Phase.TUNE: (Tune,),
    Phase.GM: (GmChange, GmCondition, GmReveal),
    Phase.PREPARE: (Prepare,),
    Phase.ACCELERATE: (Throttle,),
    Phase.FEATURE: (TryFeature,),
    Phase.ACTION: (Act,),
    Phase.REACTION: (React,),
    Phase.STABILIZE: (Stabilize,),
    Phase.APPROVAL: (GmRule,),
}
HANDLERS: dict[type, Handler] = {
    Join: lobby.join, AddComputer: lobby.add_computer, AddCustom: lobby.add_custom, BecomeGm: lobby.become_gm,
    Start: lobby.start, Tune: steps.tune, GmChange: steps.gm_change, GmCondition: steps.gm_condition,
    GmReveal: steps.gm_reveal,
    Prepare: steps.prepare, Throttle: steps.throttle, TryFeature: steps.try_feature, Act: maneuvers.act,
    React: maneuvers.react, Stabilize: maneuvers.stabilize, GmRule: maneuvers.gm_rule, GmReward: steps.gm_reward,
    GmTell: steps.gm_tell,
}


def _check_turn(state: RaceState, actor: str) -> None:
    """Refuse anyone the race is not waiting on (once it has left the lobby)."""
    if state.phase == Phase.LOBBY or actor in acting_players(state):
        return
    if state.player(actor) is None:
        raise NotSeated("You are not in this race; you can watch.")
    names = ", ".join(_addressed(state, p) for p in acting_players(state)) or "nobody"
    raise NotYourTurn(f"The race waits on {names}, not you.")


def setup(options: dict[str, Any], seed: int, host: str) -> RaceState:
    """A new grid in the lobby on the chosen track (the first by default)."""
    revision = revision_option(options, REVISION)
    track = str(options.get("track") or data.track_ids()[0]).strip().lower()
    if track not in data.track_ids():
        raise BadOption(f"track: one of {', '.join(data.track_ids())}.")
    tuning = options.get("tuning", data.table()["fine_tune_attempts"])
    if type(tuning) is not int or not 0 <= tuning <= 3:
        raise BadOption("tuning: a whole number of attempts from 0 to 3.")
    gm = str(options.get("gm") or "no").strip().lower()
    if gm not in ("yes", "no"):
        raise BadOption("gm: yes or no.")
    state = RaceState(track=track, host=host, dice=DiceState(seed), revision=revision, tune_attempts=tuning)
    if gm == "yes":
        state, _events = lobby.become_gm(state, host, BecomeGm(host), str(options.get(HOST_NAME) or ""))
    return state


def _name(state: RaceState, player: str | None) -> str:
    seat = state.player(player)
    return seat.name if seat else (player or "")


def _addressed(state: RaceState, player: str) -> str:
    """A seat as words addressed to its player name it: its holder too once another member took it."""
    seat = state.player(player)
    return addressed(seat) if seat else player


# --- what can be done ------------------------------------------------------------------------------

def legal_actions(state: RaceState, player: str) -> tuple[LegalAction, ...]:
    """The commands `player` may use now, each with the action it stands for."""
    if state.phase == Phase.LOBBY:
        actions = [] if state.player(player) else [LegalAction("/game join", "Join")]
        if player == state.host:
            actions += [LegalAction("/game add-ai", "Add computer", action=AddComputer()),
                        LegalAction("/game start", "Start", action=Start())]
        return tuple(actions)
    if player not in acting_players(state) or state.hidden and state.phase in (Phase.GM, Phase.APPROVAL):
        return ()
    if state.phase == Phase.TUNE:
        racer = state.racer_for(player)
        return tuple(LegalAction(f"/tune ability:{a}", f"Tune {a}", action=Tune(a)) for a in ("str", "dex", "con")
                     if a not in racer.tuned) + (LegalAction("/tune ability:ready", "Ready", action=Tune("")),)
    if state.phase == Phase.PREPARE:
        racer = state.racer_for(player)
        actions = [LegalAction("/steady", "Steady", action=Prepare()),
                   LegalAction("/brake", "Brake", action=Prepare(brake=True))]
        if racer.altitude > data.table()["hover_altitude"]:
            drop = racer.altitude - data.table()["hover_altitude"]
            actions.append(LegalAction(f"/steady descend:{drop}", f"Down to {data.table()['hover_altitude']} m",
                                       action=Prepare(descend=drop)))
        return tuple(actions)
    if state.phase == Phase.ACCELERATE:
        return (LegalAction("/accelerate", "Accelerate", action=Throttle(), primary=True),
                LegalAction("/coast", "Coast", action=Throttle(accelerate=False)))
    if state.phase == Phase.FEATURE:
        feature = flow.stage_features(state)[state.feature]
        name = flow.FEATURE_NAMES[feature.kind]
        verb = "Go for" if feature.positive else "Avoid"
        # the foul a racer's passive Perception saw is named on their own buttons (offered only privately)
        seen = flow.trap_key(state.section, flow.feature_index(state)) in state.racer_for(player).sees_traps
        return (LegalAction("/feature attempt:yes", f"{verb} the {name}" + (": you see it is a trap" if seen else ""),
                            action=TryFeature(True)),
                LegalAction("/feature attempt:no", "Leave it" if feature.positive else "Ride through",
                            action=TryFeature(False)))
    if state.phase == Phase.ACTION:
        return _action_choices(state, state.racer_for(player))
    if state.phase == Phase.REACTION:
        caught = maneuvers.reaction_caught_chance(state)
        judges = f" · illegal: judges catch {caught:.0%}" if caught is not None else ""
        return tuple(LegalAction(f"/react reaction:{r}", r.capitalize() + (judges if r == "attack" else ""),
                                 action=React(r))
                     for r in maneuvers.REACTIONS_TO[state.the_pending.kind]
                     if maneuvers.reaction_why_not(state, r) is None)
    if state.phase == Phase.STABILIZE:
        return (LegalAction("/stabilize attempt:yes", "Stabilize", action=Stabilize(True), primary=True),
                LegalAction("/stabilize attempt:no", "Take the hazard", action=Stabilize(False)))
    if state.phase == Phase.GM:
        return (LegalAction("/gm reveal:yes", "Reveal", action=GmReveal(), primary=True),
                LegalAction("/gm change:2", "DC +2", action=GmChange(2)),
                LegalAction("/gm change:-2", "DC -2", action=GmChange(-2)))
    if state.phase == Phase.APPROVAL:
        return (LegalAction("/gm approve:yes", "Approve", action=GmRule(True)),
                LegalAction("/gm approve:no", "Refuse", action=GmRule(False)))
    return ()


def _action_choices(state: RaceState, racer: Racer) -> tuple[LegalAction, ...]:
    choices = []
    for maneuver in ("pass", "ram", "sweep", "attack", "turbo", "savvy", "patch", "show_off", "emergency_brake"):
        if maneuvers.why_not(state, racer, maneuver) is None:
            label = maneuver.replace("_", " ").capitalize()
            odds = maneuvers.opposed_odds(state, racer, maneuver)
            label += f" ({odds:.0%})" if odds is not None else ""
            caught = maneuvers.caught_chance(state, racer, maneuver)
            label += f" · illegal: judges catch {caught:.0%}" if caught is not None else ""
            targets = maneuvers.attack_targets(state, racer) if maneuver == "attack" else []
            if len(targets) > 1:   # each target its own choice: "/act maneuver:attack" alone names none
                choices += [LegalAction(f"/act maneuver:attack target:{other.id}", f"{label} {other.name}",
                                        group="Attack", action=Act("attack", target=other.id))
                            for _way, other in targets]
                continue
            choices.append(LegalAction(f"/act maneuver:{maneuver}", label, action=Act(maneuver),
                                       primary=maneuver == "pass"))
    for then in ("pass", "sweep"):
        if maneuvers.why_not(state, racer, "feint", then) is None:
            choices.append(LegalAction(f"/act maneuver:feint then:{then}", f"Feint, then {then}",
                                       group="Feint", action=Act("feint", then)))
    choices.append(LegalAction("/act maneuver:none", "No action", action=Act("none")))
    return tuple(choices)


# --- what is seen and said ------------------------------------------------------------------------

def view(state: RaceState, viewer: str | None) -> RaceState:
    """What `viewer` may see: the GM's DC changes only by the GM, a boost trap only by whoever's Perception
    saw it, a GM's note only by the GM and its racer's player, no dice seed. While a seated GM readies the
    next section, its conditions (which the GM may be changing) are the GM's until the reveal tells them."""
    racers = tuple(r if r.owner == viewer else replace(r, sees_traps=()) for r in state.racers)
    gm = viewer is not None and viewer == state.gm
    notes = state.notes if gm else tuple(n for n in state.notes if viewer is not None and _reads(state, n, viewer))
    changes = state.dc_changes if gm else ()
    track = state.custom_track
    if state.phase == Phase.GM and not gm:
        sections = tuple(replace(s, conditions=()) if n == state.section else s
                         for n, s in enumerate(state.the_track.sections))
        track = replace(state.the_track, sections=sections)
    return replace(state, racers=racers, dc_changes=changes, custom_track=track, dice=DiceState(0, state.dice.counter),
                   hidden=True, notes=notes)


def describe(state: RaceState) -> str:
    """The race in public words (alt text, logs): the section, and each racer's place, speed, altitude
    and hull; never a DC."""
    track = state.the_track
    lines = [f"Race on {track.name} ({data.table()['leagues'][track.league]['name']} league, "
             f"{track.laps} lap{'s' if track.laps != 1 else ''})."]
    if state.phase != Phase.LOBBY:
        section = state.the_section
        lines.append(f"Lap {state.lap + 1}, section {state.section + 1} of {len(track.sections)}: "
                     f"{section.name} ({section.type}).")
        for place, racer in enumerate(state.racing(), 1):
            spec = state.vehicle_spec(racer)
            lines.append(f"{place}. {racer.name}: {racer.speed} km/h, {racer.altitude} m, {racer.hp}/{spec.hp} HP.")
        for racer in (r for r in state.racers if r.out):
            lines.append(f"{racer.name}: {racer.out}.")
    else:
        lines.append(f"{len(state.seats)} racers on the grid.")
    lines.append(prompt(state))
    return " ".join(lines)


def prompt(state: RaceState) -> str:
    """What the race waits for, in one line."""
    if state.phase == Phase.LOBBY:
        gm = f" {_name(state, state.gm)} is the GM." if state.gm else ""
        return f"Lobby: {plural(len(state.seats), 'racer', 'racers')}; /game join, then the host uses /game start.{gm}"
    if state.phase == Phase.FINISHED:
        if state.ended_by:
            return f"The race was ended by {state.ended_by}."
        if state.agreed:
            return agreed_words(state.agreed)
        return f"The race is over: {_name(state, state.winner)} wins." if state.winner else "The race is over."
    names = ", ".join(_addressed(state, p) for p in acting_players(state))
    if state.phase == Phase.FEATURE:
        return f"Waiting on {names}: {_feature_ask(state)}."
    if state.phase == Phase.ACTION:
        return f"Waiting on {names}: your action: /act maneuver:…{_judges(maneuvers.illegal_here(state))}."
    if state.phase == Phase.REACTION and maneuvers.reaction_why_not(state, "attack") is None \
            and maneuvers.reaction_caught_chance(state) is not None:   # shooting back is one answer open
        return f"Waiting on {names}: react to the racer who targets you: /react reaction:…{_judges('weapon attacks')}."
    asks = {
        Phase.TUNE: "fine-tune the vehicle (/tune ability:str|dex|con) or /tune ability:ready",
        Phase.GM: "the GM readies the next section (/gm change:N, then /gm reveal:yes)",
        Phase.PREPARE: "brake (/brake) or hold (/steady) before the section's Piloting check",
        Phase.ACCELERATE: "made the check: /accelerate or /coast",
        Phase.REACTION: "react to the racer who targets you: /react reaction:…",
        Phase.STABILIZE: "side swept: /stabilize attempt:yes or attempt:no",
        Phase.APPROVAL: "the GM approves or refuses the action (/gm approve:yes|no)",
    }
    return f"Waiting on {names}: {asks[state.phase]}."


def _judges(banned: str) -> str:
    """The warning that what the judges watch for may disqualify: '' when they watch for nothing."""
    return f" ({banned} are illegal on this track: a racer the judges catch is disqualified)" if banned else ""


def _feature_ask(state: RaceState) -> str:
    """What each answer to a feature does, in the words of its buttons."""
    feature = flow.stage_features(state)[state.feature]
    name = flow.FEATURE_NAMES[feature.kind]
    if feature.positive:
        return f"go for the {name} (/feature attempt:yes) or leave it (/feature attempt:no)"
    return f"try to avoid the {name} (/feature attempt:yes) or ride through it (/feature attempt:no)"


def dcs(state: RaceState, player: str, _options: dict[str, Any]) -> str:
    """/dcs: the section's and its features' DCs at each racer's altitude, for the game master only."""
    if player != state.gm:
        raise NotSeated("Only the game master sees the DCs.")
    if state.phase in (Phase.LOBBY, Phase.FINISHED):
        raise WrongPhase("The DCs are for a race under way.")
    section = state.the_section
    lines = [f"{section.name}: base {data.table()['section_types'][section.type]} ({section.type})."]
    for racer in state.racing():
        dc = checks.section_dc(state, state.section, racer.altitude)
        feats = ", ".join(f"{flow.FEATURE_NAMES[f.kind]} {checks.feature_dc(state, f, racer.altitude)}"
                          for f in section.before + section.after if flow.asked(state, f))
        lines.append(f"{racer.name} at {racer.altitude} m: DC {dc}" + (f"; {feats}" if feats else "") + ".")
    return "\n".join(lines)


def command_to_action(command: str, options: dict[str, Any]) -> Any:
    """A typed command as an action: /brake to:400, /act maneuver:pass, /gm reveal:yes, /game ..."""
    def number(key: str) -> int:
        value = options.get(key, 0) or 0
        try:
            value = int(value)
        except (TypeError, ValueError):
            raise BadOption(f"{key}: a whole number.") from None
        if not 0 <= value <= 2000:
            raise BadOption(f"{key}: a whole number from 0 to 2000.")
        return value

    def yes(key: str) -> bool:
        text = str(options.get(key, "")).strip().lower()
        if text not in ("yes", "no", "true", "false", ""):
            raise BadOption(f"{key}: yes or no.")
        return text in ("yes", "true")

    simple = {"game start": Start, "game add-ai": lambda: AddComputer(str(options.get("pilot", "")),
                                                                      str(options.get("vehicle", "")))}
    if command in simple:
        return simple[command]()
    made = {
        "game join": lambda: Join(str(options.get("name", "")), str(options.get("pilot", "")),
                                  str(options.get("vehicle", ""))),
        "tune": lambda: Tune(str(options.get("ability", "")).strip().lower().replace("ready", "")),
        "brake": lambda: Prepare(True, number("to"), number("descend"), number("climb")),
        "steady": lambda: Prepare(False, 0, number("descend"), 0),
        "accelerate": lambda: Throttle(True, number("to"), number("climb")),
        "coast": lambda: Throttle(False, 0, number("climb")),
        "feature": lambda: TryFeature(yes("attempt"), number("descend")),
        "act": lambda: Act(str(options.get("maneuver", "")), str(options.get("then", "")),
                           str(options.get("target", "")), number("descend")),
        "react": lambda: React(str(options.get("reaction", "")), yes("brake"), number("descend")),
        "stabilize": lambda: Stabilize(yes("attempt")),
    }
    if command in made:
        return made[command]()
    if command == "custom":
        raw = options.get("file")
        if not isinstance(raw, (bytes, bytearray)):
            raise BadOption("Attach the TOML or JSON file of your vehicles and racers.")
        try:
            return AddCustom(bytes(raw).decode("utf-8"))
        except UnicodeDecodeError:
            raise BadOption("The file is not UTF-8 text.") from None
    if command == "gm":
        if options.get("tell"):
            if not str(options.get("racer") or "").strip():
                raise BadOption("tell: name the racer too: /gm racer:NAME tell:WORDS.")
            return GmTell(str(options["racer"]), str(options["tell"]))
        if options.get("reward"):
            return GmReward(str(options.get("racer", "")), str(options["reward"]))
        if options.get("approve"):
            return GmRule(yes("approve"))
        if options.get("condition"):
            text = str(options["condition"]).strip()
            return GmCondition(text.lstrip("-"), number("altitude"), text.startswith("-"))
        if options.get("change") not in (None, ""):
            try:
                return GmChange(int(options["change"]))
            except (TypeError, ValueError):
                raise BadOption("change: a whole number from -20 to 20.") from None
        if yes("reveal"):
            return GmReveal()
        raise BadOption("/gm: change:N, condition:KIND [altitude:M] (or -KIND), reveal:yes, approve:yes|no, "
                        "racer:NAME reward:WORDS, racer:NAME tell:WORDS, or thread:yes.")
    raise BadOption(f"This game has no command /{command}.")


def withheld(state: RaceState, log: Sequence[Logged], viewer: str | None) -> dict[int, str]:
    """A group's own track is the GM's (its DCs and traps): its file is read only by whoever added it and
    a seated GM, even once the race is over (a rematch races it again)."""
    return {entry.seq: "the group's own file, with a track only its game master reads" for entry in log
            if isinstance(entry.action, AddCustom) and viewer not in (entry.actor, state.gm)
            and lobby.has_track(entry.action)}


def kept(state: RaceState, log: Sequence[Logged], viewer: str | None) -> dict[int, str]:
    """What stays withheld from a viewer after the race too: a group's own track, and the GM's notes."""
    return {**withheld(state, log, viewer), **notes_kept(state, log, viewer)}


def notes_kept(state: RaceState, log: Sequence[Logged], viewer: str | None) -> dict[int, str]:
    """A GM's note is read only by the GM and its racer's player, even once the race is over: the others
    learn only that the GM told that racer something."""
    kept = {}
    for entry in log:
        if isinstance(entry.action, GmTell) and viewer != state.gm:
            try:
                racer: Racer | None = steps.named_racer(state, entry.action.racer)
            except BadOption:   # an imported log naming nobody: kept all the same
                racer = None
            if racer is None or racer.owner != viewer:
                kept[entry.seq] = f"a private note from the GM to {racer.name if racer else 'a racer'}"
    return kept


def notes(state: RaceState, player: str, _options: dict[str, Any]) -> str:
    """/notes: the GM's private notes to the asker's racer (the GM: every note they sent), newest last."""
    gm = player == state.gm
    mine = state.notes if gm else tuple(n for n in state.notes if _reads(state, n, player))
    if not mine:
        return "You have sent no note yet: /gm racer:NAME tell:WORDS." if gm else "The GM has sent you no note."
    lines: list[str] = []
    for note in reversed(mine):
        to = f" to {state.racer(note.racer).name}" if gm else ""
        line = f"Lap {note.lap + 1}, section {note.section + 1}{to}: {note.text}"
        if sum(len(x) + 1 for x in lines) + len(line) > _NOTES_ROOM:
            break
        lines.insert(0, line)
    head = (f"Your notes to the racers ({len(mine)}; each read only by its racer and you):" if gm
            else f"The GM's notes to you ({len(mine)}; only you and the GM read them):")
    return "\n".join([head, *lines])


def _reads(state: RaceState, note: GmNote, player: str) -> bool:
    """Whether `player` races the racer a note went to."""
    return any(r.id == note.racer and r.owner == player for r in state.racers)


def suggest(state: RaceState, player: str, command: str, option: str, chosen: dict[str, Any]) -> list[tuple[str, str]]:
    """The racers by name for the GM's racer: (a reward or a note); the vehicles and pilots at /game join and
    /game add-ai (free text in the grammar: a group may bring its own); elsewhere what the legal actions use."""
    if command == "gm" and option == "racer":
        return [(r.name, r.name) for r in state.racers] if player == state.gm else []
    if command in ("game join", "game add-ai") and option in ("vehicle", "pilot"):
        return _grid_choices(state, option)
    return suggest_legal(legal_actions)(state, player, command, option, chosen)


def _grid_choices(state: RaceState, option: str) -> list[tuple[str, str]]:
    """The vehicles (with their top speed) or pilots a racer may join with: the built-in ones and the group's own."""
    if option == "vehicle":
        return [(f"{v.name} ({v.max_speed} km/h)", v.id) for v in (*data.vehicles().values(), *state.custom_vehicles)]
    return [(p.name, p.id) for p in (*data.racers().values(), *state.custom_pilots)]


def unseen(state: RaceState, logged: Logged, viewer: str | None) -> bool:
    """A seated GM's changes to the next section are the GM's alone: racers do not learn they were made."""
    return isinstance(logged.action, (GmChange, GmCondition)) and viewer != state.gm


def turn_key(state: RaceState) -> str:
    """One key per step of the race, and within a step per racer it waits on alone. A step every racer
    answers at once (flow.TOGETHER) keeps its key while they answer, from revision 3; before, the key
    named who was still waited on, so every answer began a new turn."""
    together = state.phase in flow.TOGETHER and state.revision >= 3
    who = "together" if together else ",".join(acting_players(state))
    return f"{state.phase}:{state.lap}:{state.section}:{state.feature_stage}{state.feature}:{who}"


def undo_blocker(before: RaceState, after: RaceState) -> str | None:
    """An action can be taken back only if it rolled no dice."""
    return "dice were rolled" if after.dice.counter != before.dice.counter else None


def _gm_refusal(state: RaceState) -> str:
    """Why a GM's step is refused now: a race the bot referees has no GM to take it; else what it waits on."""
    if state.gm is None:
        return "This race has no seated game master: the bot referees it (/gm is for a GM seated with gm:yes)."
    return prompt(state)


GRID_CLOSED = "The race has started: the grid is closed. You can watch, and join the next race."
PHASES = PhaseTable(
    Phase,
    allows={**{phase: own + TABLE_ACTIONS + ((GmReward, GmTell) if phase in _RUNNING else ())
                for phase, own in _OWN.items()},
            Phase.FINISHED: ()},
    expects={phase: prompt for phase in _OWN},   # the prompt names who the race waits on, and for what
    refusals={Join: GRID_CLOSED, AddComputer: GRID_CLOSED, Start: "The race has already started.",
              AddCustom: "A group's own vehicles, racers and track are added in the lobby, before the start.",
              GmChange: _gm_refusal, GmCondition: _gm_refusal, GmReveal: _gm_refusal},
    over=(Phase.FINISHED,),
    turn_actions=(Tune, GmChange, GmCondition, GmReveal, Prepare, Throttle, TryFeature, Act, React, Stabilize, GmRule),
)


def _computer_refuses(state: RaceState, seat: str) -> str:
    """The computer races a racer; it does not sit as the GM."""
    return "The computer does not sit as the GM: give the seat to another member (/game seat give)." \
        if seat == state.gm else ""


class Race(Ruleset[RaceState]):
    """The SW5e speeder race, with a game master (seed 003)."""

    id = "race"
    title = "Race (SW5e speeders)"
    state_type = RaceState
    actions, events = ACTIONS, EVENTS
    example = ExampleOpening("tuning:0", (("ann", "/game join pilot:rookie"), ("ben", "/game join pilot:veteran"),
                                          ("ann", "/game start")))
    more_examples = (ExampleOpening(   # a seated game master, who makes the game and rules privately
        "tuning:0 gm:yes", (("ann", "/game join pilot:rookie"), ("ben", "/game join pilot:veteran"),
                            ("gina", "/game start")),
        maker="gina", gm_rulings=("/gm change:3", "/gm change:-2", "/gm condition:fog altitude:3",
                                  "/gm condition:darkness")),)
    grammar = GRAMMAR
    revision = REVISION
    private_actions = True

    phases = PHASES
    handlers = HANDLERS
    cleared_on_end = {"pending": None}
    resignation = Resignation(steps.resign)

    setup = staticmethod(setup)
    legal_actions = staticmethod(legal_actions)
    view = staticmethod(view)
    describe = staticmethod(describe)
    game_command = staticmethod(command_to_action)
    acting_players = staticmethod(acting_players)
    prompt = staticmethod(prompt)
    turn_key = staticmethod(turn_key)
    check_turn = staticmethod(_check_turn)

    def still_in(self, state: RaceState) -> tuple[str, ...]:
        """The racers still racing (not out) whose players did not resign; a seated GM races no racer."""
        kept = set(super().still_in(state))
        return tuple(r.owner for r in state.racers if not r.out and r.owner in kept)

    def final_order(self, state: RaceState, left: Mapping[str, int]) -> Order:
        """RULES.md "Finish" (4.2.4 rule 16): the finishers in the move order, then the racers who went out, the
        later out the higher; a draw by agreement ties the racers still racing. A resigned racer ranks last
        and a seated GM races no racer (RULES.md "Rating order")."""
        if no_result(state):
            return ()
        gone = resigned(state)
        racing = [r.owner for r in state.racing() if r.owner not in gone]
        first = [tuple(racing)] if state.agreed == "draw" else [(owner,) for owner in racing]
        out = sorted((r for r in state.racers if r.out and r.owner not in gone), key=lambda r: -r.out_order)
        last = tuple(r.owner for r in state.racers if r.owner in gone)
        return tuple(group for group in (*first, *((r.owner,) for r in out), last) if group)

    queries = {"dcs": dcs, "notes": notes}
    computer = ComputerSeats(lambda state, p: bool(state.player(p) and state.player(p).ai), ai.computer_action,
                             _computer_refuses)
    autopilot = Autopilot(ai.autopilot_action, ai.autopilot_manner, ai.autopilot_manner_for)
    orders = orders.ORDERS
    hit_size = staticmethod(race_events.hit_size)
    review = race_review.REVIEW
    undo_blocker = staticmethod(undo_blocker)
    seat_limit = staticmethod(lambda state: (len(state.seats), data.table()["max_racers"]))
    selfplay = SELFPLAY
    secrets = Secrets(withheld, unseen, kept=kept)
    suggest = staticmethod(suggest)
    game_master = GameMaster(lambda state: state.gm, ("gm", "dcs", "notes"),
                             lambda action: steps.note_words(action.text) if isinstance(action, GmTell) else None)


RULESET = Race()
apply = RULESET.apply   # the referee (rules.referee.Referee.apply), as tools and tests call it
