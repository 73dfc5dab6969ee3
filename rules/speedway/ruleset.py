"""Speedway as a Ruleset: setup, the turn's actions, legal actions, view and description (seed 000)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from rules.codec import without_fields
from rules.dice import DiceState
from rules.engine import (
    Autopilot,
    ComputerSeats,
    ExampleOpening,
    LegalAction,
    Ruleset,
    chosen_action,
    has_command,
    suggest_legal,
)
from rules.errors import BadOption, GameError, GameOver, NotSeated, NotYourTurn, WrongPhase
from rules.hexgrid import DIRECTION_NAMES, label
from rules.phases import GAME_OVER
from rules.ranking import Order, last_out_higher
from rules.referee import Resignation
from rules.seats import addressed
from rules.speedway import ai, combat, data, hazards, lobby, movement, orders, turns
from rules.speedway import events as speedway_events
from rules.speedway import review as speedway_review
from rules.speedway.actions import (
    ACTIONS,
    AddComputer,
    AnswerSkid,
    ChooseRam,
    Drop,
    EndTurn,
    Fire,
    Join,
    Move,
    SetSpeed,
    Start,
)
from rules.speedway.collisions import maneuver_made, resolve_ram, stop, swipe
from rules.speedway.commands import GRAMMAR, RAM_OUTCOMES, SKID_CHOICES
from rules.speedway.driving import driver_roll, parse_maneuver, skid_vector, skids_at
from rules.speedway.errors import IllegalManeuver, IllegalSpeed
from rules.speedway.events import (
    EVENTS,
    CarStopped,
    ControlLost,
    ControlRegained,
    HazardLaid,
    SkidPending,
    SmokeUnseen,
    SpeedLost,
    SpeedSet,
)
from rules.speedway.hexes import skid_hexes
from rules.speedway.maneuver_words import SLIDE, maneuver_choices, maneuver_name
from rules.speedway.odds import driver_chance
from rules.speedway.phases import NOT_STARTED, PHASES, RUNNING, SpeedwayPhase
from rules.speedway.plans import turn_plans
from rules.speedway.preview import TurnPreview, check_plan, preview_text, preview_turn
from rules.speedway.selfplay import SELFPLAY
from rules.speedway.state import SEED_AUDIT, WHERE_RULES_MEET, Car, Hazard, PendingSkid, SpeedwayState, Weapon
from rules.speedway.summary import turn_summary
from rules.speedway.turns import after_speed_set, check_victory, finish_car, finish_move, others_move_before_next_turn
from rules.table import agreed_words, plural, required, revision_option, rounds_option

# The newest rules revision (see RULES.md "Rules revisions"): 2 gives every car a unique name, every
# computer seat an id of its own, and names targets by car id; 3 follows the seed on a layer's immunity,
# rams and outcome A (state.SEED_FIDELITY); 4 asks for no ram outcome when both would only stop the
# attacker where it is (state.RAM_CHOICE_THAT_MATTERS); 5 follows the seed where two rules meet
# (state.WHERE_RULES_MEET); 6 follows seed sentences an audit found contradicted (state.SEED_AUDIT). Games
# stored without one are revision 1.
REVISION = 6


def setup(options: dict[str, Any], seed: int, host: str) -> SpeedwayState:
    """A new game in the lobby, on the chosen (or default) arena, with an optional round cap."""
    arena_id = options.get("arena") or data.table_limits()["default_arena"]
    try:
        data.arena(arena_id)
    except KeyError:
        raise BadOption(f"No arena called '{arena_id}'. Arenas: {', '.join(data.arena_ids())}.") from None
    rounds = rounds_option(options)
    revision = revision_option(options, REVISION)
    # The arena's own counters (debris, water, paint) lie there from the start, laid by nobody.
    counters = tuple(Hazard(number, kind, h, "") for number, (kind, h) in enumerate(data.arena(arena_id).counters, 1))
    return SpeedwayState(arena=arena_id, host=host, dice=DiceState(seed), max_rounds=rounds, revision=revision,
                         hazards=counters, next_hazard_id=len(counters) + 1)


# --- who may act ---------------------------------------------------------------------------------

# Where the active driver may ask the odds and be offered choices as they type: moving, or at a skid.
_ASKING = frozenset((SpeedwayPhase.MOVEMENT, SpeedwayPhase.SKID))

def _check_seated(state: SpeedwayState, actor: str) -> None:
    if not state.player(actor):
        raise NotSeated("You are not playing in this game. Use /game join before it starts.")


def _check_under_way(state: SpeedwayState) -> None:
    """Refuse a question about a game not started or over."""
    if state.phase == SpeedwayPhase.FINISHED:
        raise GameOver(GAME_OVER)
    if state.phase == SpeedwayPhase.LOBBY:
        raise WrongPhase(NOT_STARTED)


def _check_turn(state: SpeedwayState, actor: str) -> None:
    """Refuse `actor` unless seated and, in a game under way, the one the game waits on."""
    _check_seated(state, actor)
    if state.phase in RUNNING and state.deciding_player != actor:
        raise NotYourTurn(f"It is {state.seat(state.deciding_player).name}'s turn, not yours.")


def _acting_car(state: SpeedwayState, actor: str) -> Car:
    """The car `actor` acts with now (the phase table has admitted the action), or why they may not."""
    _check_turn(state, actor)
    return state.current_car


def _car_asked_about(state: SpeedwayState, actor: str, phases: frozenset[SpeedwayPhase]) -> Car:
    """The car a question (a planned turn) is about when asked in one of `phases`, or why not."""
    _check_turn(state, actor)
    _check_under_way(state)
    if state.phase not in phases:
        raise WrongPhase(_phase_hint(state))
    return state.current_car


def _phase_hint(state: SpeedwayState) -> str:
    car = state.current_car
    if state.phase == SpeedwayPhase.UPKEEP:
        low, high = speed_range(car)
        return f"First set {car.name}'s speed for this turn: /speed value:{low}..{high}."
    if state.phase == SpeedwayPhase.RAM:
        chooser = addressed(state.seat(state.open_ram.chooser))
        return f"{chooser} won the ramming roll-off and picks /ram outcome:A or /ram outcome:B."
    if state.phase == SpeedwayPhase.SKID:
        answers = (a.command for c in skid_choices(state) for a in _skid_answers(state, c))
        return f"{car.name} must answer: " + ", ".join(answers) + "."
    if state.moves_left == 0:
        return f"{car.name} has no Moves left: /fire or /drop, or /end the turn."
    if not car.in_control:
        return f"{car.name} is out of control: /move maneuver:slide."
    moves = plural(state.moves_left, "Move", "Moves")
    turn = " (it must Turn)" if car.must_turn else ""
    return f"{car.name} has {moves} left{turn}: use /move (and /fire or /drop between Moves)."


def speed_range(car: Car) -> tuple[int, int]:
    """Upkeep step 2: the speeds the car may choose, within Brakes below and Engine above."""
    top = data.table_limits()["max_speed"]
    low = max(0, car.speed - car.systems.rating("brakes"))
    high = min(top, car.speed + car.systems.rating("engine"))
    return low, max(low, high)


def skid_choices(state: SpeedwayState) -> tuple[str, ...]:
    """The answers the pending skid (or swipe chance) accepts."""
    pending = state.open_skid
    choices: tuple[str, ...] = ("accept", "resist") if pending.skid_applies else ("continue",)
    if pending.swipe_targets and state.moves_left >= 1:
        choices += ("swipe",)
    return choices


# --- the turn's actions -----------------------------------------------------------------------

def _set_speed(state: SpeedwayState, actor: str, action: SetSpeed):
    car = _acting_car(state, actor)
    low, high = speed_range(car)
    if not low <= action.value <= high:
        raise IllegalSpeed(f"{car.name} is at speed {car.speed}: Brakes {car.systems.rating('brakes')} and "
                           f"Engine {car.systems.rating('engine')} allow {low} to {high}.")
    events: tuple = (SpeedSet(car.name, car.speed, action.value),)
    updated = replace(car, speed=action.value)
    if action.value == 0:
        # A car brought to a halt is no longer skidding and has nothing left to turn out of.
        updated = replace(updated, in_control=True, skid=None, must_turn=False)
        if not car.in_control:
            events += (ControlRegained(car.name),)
    state, more = after_speed_set(state.with_car(updated))
    return state, events + more


def _complete_move(state: SpeedwayState) -> tuple[SpeedwayState, tuple]:
    """A Move is over: oil still flowing lays its next counter, then the turn goes on."""
    state, events = hazards.after_move(state, state.current_car.id)
    state, more = finish_move(state)
    return state, events + more


_ONLY_SLIDE = "{} is out of control and can only slide: /move maneuver:slide."
_TURN_OWED = "{} lost the ramming roll-off: this Move must be turn-left or turn-right."


def _move(state: SpeedwayState, actor: str, action: Move):
    car = _acting_car(state, actor)
    if state.moves_left <= 0:
        raise WrongPhase(f"{car.name} has no Moves left: /fire, or /end the turn.")
    if action.skid and action.skid not in SKID_CHOICES:
        raise BadOption(f"The skid answer is one of {', '.join(SKID_CHOICES)}.")
    if not car.in_control:
        if action.maneuver != SLIDE:
            raise IllegalManeuver(_ONLY_SLIDE.format(car.name))
        return _out_of_control_move(state, car)
    if action.maneuver == SLIDE:
        raise IllegalManeuver(f"{car.name} is in control; choose a maneuver instead of slide.")
    spec, side = parse_maneuver(action.maneuver)
    if car.must_turn and spec.id != "turn":
        raise IllegalManeuver(_TURN_OWED.format(car.name))
    state = replace(state, moves_left=state.moves_left - 1)
    state, events, placed = movement.maneuver(state, car, spec, side, action.maneuver)
    if state.phase == SpeedwayPhase.RAM:
        if state.revision >= SEED_AUDIT:   # outcome B may complete the maneuver, skid and all: keep the answer
            state = replace(state, pending_ram=replace(state.open_ram, skid=action.skid))
        return state, events
    if not placed:
        state, more = _complete_move(state)
        return state, events + more
    state, more = _maneuver_placed(state, car, spec, side, action.skid)
    return state, events + more


def _maneuver_placed(state: SpeedwayState, before: Car, spec: data.Maneuver, side: int,
                     answer: str = "") -> tuple[SpeedwayState, tuple]:
    """A maneuver put the car in its new hexes: the skid procedure when it was taken at its skid speed, or a
    chance to swipe a car in a skid hex (seed: In Control); else the Move is over. `answer` is the skid's
    answer given in advance, applied when it fits."""
    moved = state.car(before.id)
    vector = skid_vector(before.facing, spec, side)
    if vector is None or moved.out:
        return _complete_move(state)
    applies = skids_at(spec, moved.speed)
    targets = _swipe_targets(state, moved, vector)
    if not applies and not (targets and state.moves_left >= 1):
        return _complete_move(state)
    state = replace(state, phase=SpeedwayPhase.SKID, pending_skid=PendingSkid(
        maneuver_name(spec, side), vector, applies, targets[0] if targets else None, targets[1:]))
    skid_speed = required(spec.skid_speed, "a maneuver with a skid vector has a skid speed", spec.id)
    events: tuple = (SkidPending(moved.name, moved.speed, skid_speed, DIRECTION_NAMES[vector], applies,
                                 " or ".join(state.car(t).name for t in targets)),)
    # An answer given in advance applies when it fits; otherwise the question stays open (e.g. "resist"
    # was given but only a swipe chance came up, or "swipe" with a car in each skid hex to choose from).
    if answer in skid_choices(state) and (answer != "swipe" or len(targets) == 1):
        state, more = _resolve_skid(state, answer)
        return state, events + more
    return state, events


def _swipe_targets(state: SpeedwayState, car: Car, vector: int) -> tuple[str, ...]:
    """The other cars in either skid hex, which may be swiped (seed: Swipes), the front skid hex's first;
    before revision 6, the first of them only."""
    found: list[str] = []
    for h in skid_hexes(car, vector):
        found += [other.id for other in state.cars if other.id != car.id and h in other.hexes and other.id not in found]
    return tuple(found) if state.revision >= SEED_AUDIT else tuple(found[:1])


def _answer_skid(state: SpeedwayState, actor: str, action: AnswerSkid):
    _acting_car(state, actor)
    return _resolve_skid(state, action.choice, action.target)


def _swiped(state: SpeedwayState, target: str) -> str:
    """The car a swipe hits: the one named, which must be in a skid hex; unnamed, the only one there."""
    offered = state.open_skid.swipe_targets
    cars = " or ".join(f"target:{t} ({state.car(t).name})" for t in offered)
    if not target.strip():
        if len(offered) > 1:
            raise BadOption(f"Name the car to swipe: {cars}.")
        return offered[0]
    named = combat.find_target(state, target, state.current_car).id
    if named not in offered:
        raise BadOption(f"{state.car(named).name} is in neither skid hex: swipe {cars}.")
    return named


def _resolve_skid(state: SpeedwayState, choice: str, target: str = "") -> tuple[SpeedwayState, tuple]:
    """Accept: slide and stay In Control. Resist: a Driver Roll decides. Swipe: bump a car in a skid hex
    (`target`, when there are several) instead."""
    allowed = skid_choices(state)
    if choice not in allowed:
        raise BadOption(f"Answer with {' or '.join(allowed)}.")
    car = state.current_car
    swiped = _swiped(state, target) if choice == "swipe" else ""
    pending = state.open_skid
    state = replace(state, pending_skid=None, phase=SpeedwayPhase.MOVEMENT)
    events: tuple = ()
    if choice == "swipe":
        state = replace(state, moves_left=state.moves_left - 1)
        state, events = swipe(state, car.id, swiped)
        if state.revision >= WHERE_RULES_MEET:
            # The maneuver's Move is over; the Swipe's own Move is counted by _complete_move below
            # (oil flows for "its next four moves", the Swipe's among them).
            state, laid = hazards.after_move(state, car.id)
            events += laid
    elif choice == "accept":
        state, events, _outcome = movement.slide(state, car, pending.vector, "skid accepted")
    elif choice == "resist":
        state, roll = driver_roll(state, car, car.speed + car.inertia, "resists the skid",
                                  "Driver Roll vs speed + inertia")
        events = (roll,)
        if not roll.success:
            state, slid, outcome = movement.slide(state, car, pending.vector, "failed to resist")
            events += slid
            if outcome != movement.STOPPED:
                state = state.with_car(replace(state.car(car.id), in_control=False, skid=pending.vector))
                events += (ControlLost(car.name, DIRECTION_NAMES[pending.vector]),)
    state, more = _complete_move(state)
    return state, events + more


def _out_of_control_move(state: SpeedwayState, car: Car) -> tuple[SpeedwayState, tuple]:
    """Out Of Control: slide one hex along the skid, lose one speed, then try to regain control."""
    state = replace(state, moves_left=state.moves_left - 1)
    state, events, outcome = movement.slide(state, car, car.skid_heading, "out of control")
    if outcome != movement.STOPPED:
        car = state.car(car.id)
        if outcome == movement.MOVED:  # a glance already cost this Move's point of speed
            car = replace(car, speed=car.speed - 1)
            state = state.with_car(car)
            events += (SpeedLost(car.name, car.speed),)
        if car.speed == 0:
            state = stop(state, car.id)
            events += (CarStopped(car.name, label(car.front_hex), "it slowed to a halt"),)
        else:
            state, roll = driver_roll(state, car, car.speed + car.inertia, "tries to regain control",
                                      "Driver Roll vs speed + inertia")
            events += (roll,)
            if roll.success:
                state = state.with_car(replace(state.car(car.id), in_control=True, skid=None))
                events += (ControlRegained(car.name),)
    state, more = _complete_move(state)
    return state, events + more


def _choose_ram(state: SpeedwayState, actor: str, action: ChooseRam):
    chooser = state.open_ram.chooser
    if actor != chooser:
        raise NotYourTurn(f"{state.seat(chooser).name} won the roll-off and chooses.")
    outcome = action.outcome.strip().upper()
    if outcome not in RAM_OUTCOMES:
        raise BadOption("The ramming outcome is A or B.")
    pending = state.open_ram
    attacker = state.car(pending.attacker)
    state, events = resolve_ram(state, outcome)
    made = maneuver_made(attacker, pending.front, pending.facing)
    if state.revision >= SEED_AUDIT and made and state.car(attacker.id).front == pending.struck:
        # Outcome B put the attacker where its maneuver was going: the Move was that maneuver, skid and all.
        state, more = _maneuver_placed(state, attacker, *made, pending.skid)
    else:
        state, more = _complete_move(state)
    return state, events + more


def _fire(state: SpeedwayState, actor: str, action: Fire):
    car = _acting_car(state, actor)
    weapon = combat.find_weapon(car, action.weapon)
    target = _target(state, action.target, car)
    state, events = combat.fire(state, car, combat.plan_shot(state, car, weapon, target))
    state, more = finish_move(state)
    return state, events + more


def _drop(state: SpeedwayState, actor: str, action: Drop):
    car = _acting_car(state, actor)
    state, events = hazards.deploy(state, car, combat.find_weapon(car, action.weapon))
    if any(isinstance(e, HazardLaid) and e.kind == "smoke" for e in events) \
            and not others_move_before_next_turn(state, actor):
        events += (SmokeUnseen(car.name, state.seat(actor).name),)
    state, more = finish_move(state)
    return state, events + more


def _end_turn(state: SpeedwayState, actor: str, action: EndTurn):
    car = _acting_car(state, actor)
    if state.moves_left > 0:
        moves = plural(state.moves_left, "Move", "Moves")
        raise WrongPhase(f"{car.name} still has {moves} to make.")
    return finish_car(state)


# --- what can be done, seen and said -----------------------------------------------------------

def legal_actions(state: SpeedwayState, player: str) -> tuple[LegalAction, ...]:
    """The commands `player` may use now (empty when it is not their move)."""
    if state.phase == SpeedwayPhase.LOBBY:
        actions: list[LegalAction] = [LegalAction("/game join", "Join")]
        if player == state.host:
            actions += [LegalAction("/game add-ai", "Add computer", action=AddComputer()),
                        LegalAction("/game start", "Start", action=Start())]
        return tuple(actions)
    if state.phase == SpeedwayPhase.FINISHED or state.deciding_player != player:
        return ()
    if state.phase == SpeedwayPhase.RAM:
        return tuple(LegalAction(f"/ram outcome:{o}", f"Outcome {o}", action=ChooseRam(o)) for o in RAM_OUTCOMES)
    car = state.current_car
    if state.phase == SpeedwayPhase.UPKEEP:
        low, high = speed_range(car)
        return tuple(LegalAction(f"/speed value:{v}", f"Speed {v}", action=SetSpeed(v)) for v in range(low, high + 1))
    if state.phase == SpeedwayPhase.SKID:
        return tuple(answer for c in skid_choices(state) for answer in _skid_answers(state, c))
    actions = []
    if state.moves_left > 0:
        if not car.in_control:
            actions.append(LegalAction(f"/move maneuver:{SLIDE}", "Slide", action=Move(SLIDE)))
        else:
            names = [m for m in maneuver_choices() if not car.must_turn or m.startswith("turn-")]
            actions += [LegalAction(f"/move maneuver:{m}", m, action=Move(m)) for m in names]
    for plan in combat.legal_shots(state, car):
        mount, target = plan.weapon.mount.lower(), combat.target_value(state, plan.target)
        actions.append(LegalAction(f"/fire weapon:{mount} target:{target}",
                                   f"Fire {plan.weapon.mount} at {plan.target.name} ({plan.chance:.0%})",
                                   action=Fire(mount, target), primary=True))
    for weapon in car.weapons:
        if hazards.can_deploy(state, car, weapon):
            mount = weapon.mount.lower()
            actions.append(LegalAction(f"/drop weapon:{mount}", f"Drop {weapon.name}", action=Drop(mount)))
    if state.moves_left == 0:
        actions.append(LegalAction("/end", "End turn", action=EndTurn()))
    return tuple(actions)


def _skid_answers(state: SpeedwayState, choice: str) -> tuple[LegalAction, ...]:
    """The legal actions of one skid answer: a swipe of each car in the skid hexes, named when there are
    several (revision 6), each other answer once."""
    targets = state.open_skid.swipe_targets
    if choice != "swipe" or len(targets) == 1:
        return (LegalAction(f"/skid choice:{choice}", choice.capitalize(), action=AnswerSkid(choice)),)
    return tuple(LegalAction(f"/skid choice:swipe target:{t}", f"Swipe {state.car(t).name}",
                             action=AnswerSkid("swipe", t)) for t in targets)


def _target(state: SpeedwayState, text: str, shooter: Car) -> Car:
    """The car a shot or a question names. Revision 1 reads a name first, as it always did (so every
    logged shot still hits what it hit), and then a car id: games running from before revision 2
    get buttons that name cars by id, which fixes duplicate names there too."""
    if state.revision >= 2:
        return combat.find_target(state, text, shooter)
    target = state.car_named(text) or next((c for c in state.cars if c.id == text.strip().lower()), None)
    if target is None:
        names = ", ".join(c.name for c in state.cars if c.id != shooter.id)
        raise BadOption(f"No car called '{text}'. Cars: {names}.")
    return target


def view(state: SpeedwayState, viewer: str | None) -> SpeedwayState:
    """Speedway has no hidden information: everyone sees the whole table."""
    return state


def _car_line(state: SpeedwayState, car: Car) -> str:
    design = data.car_designs()[car.design].name
    if car.front is None:
        return f"{car.name} ({design}) waiting in the pits."
    if car.out:
        return f"{car.name}'s {design} is a wreck at {label(car.front)}-{label(car.back_hex)}."
    control = "in control" if car.in_control else f"OUT OF CONTROL skidding {DIRECTION_NAMES[car.skid_heading]}"
    fire = f", on fire ({car.fire_chips})" if car.fire_chips else ""
    return (f"{car.name}'s {design} at {label(car.front)}-{label(car.back_hex)} facing {DIRECTION_NAMES[car.facing]}, "
            f"speed {car.speed}, inertia {car.inertia}, {control}{fire}; {_damage_words(car)}.")


def _damage_words(car: Car) -> str:
    """What is left of a car, in words: Armor, Engine, Driver, and the weapons that still work."""
    rating = car.systems.rating
    working = sum(1 for w in car.weapons if w.working)
    return (f"Armor {rating('armor')}, Engine {rating('engine')}, Driver {rating('driver')}, "
            f"{working} of {len(car.weapons)} weapons working")


def describe(state: SpeedwayState) -> str:
    """The table in words, for alt text and logs."""
    arena = data.arena(state.arena)
    lines = [f"Speedway in the {arena.name} ({arena.columns}x{arena.rows} hexes)."]
    lines += [_car_line(state, car) for car in state.cars]
    if state.hazards:
        counts: dict[str, list[str]] = {}
        for hz in state.hazards:
            counts.setdefault(hz.kind, []).append(label(hz.hex))
        lines.append("Hazards: " + "; ".join(f"{k} at {', '.join(v)}" for k, v in sorted(counts.items())) + ".")
    lines.append(prompt(state))
    return " ".join(lines)


def prompt(state: SpeedwayState) -> str:
    """What the game waits for, in one line: whose turn and which command."""
    if state.phase == SpeedwayPhase.LOBBY:
        return f"Lobby: {len(state.players)} seated; waiting for players to /game join and the host to /game start."
    if state.phase == SpeedwayPhase.FINISHED:
        if state.ended_by:
            return f"Game over (ended by {state.ended_by})."
        if state.agreed:
            return agreed_words(state.agreed)
        if state.winner:
            return f"Game over: {state.seat(state.winner).name} wins."
        return "Game over: a draw."
    return f"Round {state.round + 1}, {addressed(state.seat(state.deciding_player))}: {_phase_hint(state)}"


def _odds_car(state: SpeedwayState, player: str) -> tuple[Car, str]:
    """The car /odds is about: the acting car on the player's turn; off-turn (planning), the player's
    first running car where it stands, every weapon ready as at the start of its next turn."""
    _check_seated(state, player)
    _check_under_way(state)
    if state.deciding_player == player and state.phase in _ASKING:
        return state.current_car, ""
    running = state.operable_cars_of(player)
    if not running:
        raise WrongPhase("You have no car running.")
    return replace(running[0], fired=()), " (off-turn: from where it stands, every weapon ready)"


def _shot_line(plan) -> str:
    return (f"{plan.weapon.label} at {plan.target.name} ({plan.target.id}): range {plan.range_hexes}, "
            f"{plan.to_hit_dice}d6 + Targeting {plan.targeting} -> {plan.chance:.0%} to hit; damage "
            f"{' + '.join(plan.damage_dice)}.")


def odds(state: SpeedwayState, player: str, options: dict[str, Any]) -> str:
    """The chance of a shot or of resisting a skid, without changing anything; bare, every shot open
    now. Off-turn it answers for the player's car as it stands, for planning."""
    car, note = _odds_car(state, player)
    if not any(options.get(key) for key in ("weapon", "target", "maneuver")):
        shots = combat.legal_shots(state, car)
        if not shots:
            return f"No shot is open to {car.name} now{note}: no enemy in a working weapon's arc, range and sight."
        return f"Shots open to {car.name}{note}:\n" + "\n".join(_shot_line(p) for p in shots)
    if options.get("weapon") or options.get("target"):
        target = _target(state, options.get("target", ""), car)
        plan = combat.plan_shot(state, car, combat.find_weapon(car, options.get("weapon", "")), target)
        return _shot_line(plan) + note
    spec, _side = parse_maneuver(options["maneuver"])   # the only option left: a maneuver
    if not skids_at(spec, car.speed):
        return f"{options['maneuver']} at speed {car.speed} does not skid (skid speed {spec.skid_speed or '-'})."
    needed = car.speed + car.inertia + spec.inertia
    chance = driver_chance(car.systems.rating("driver"), needed)
    return (f"{options['maneuver']} at speed {car.speed}: resisting the skid needs {needed} on "
            f"{car.systems.rating('driver')} driver dice -> {chance:.0%}.")


def command_to_action(command: str, options: dict[str, Any]) -> Any:
    """Translate a typed command (already syntax-checked by the bot) into a Speedway action."""
    simple = {"game start": Start, "end": EndTurn}
    if command in simple:
        return simple[command]()
    if command == "game join":
        return Join(name=options.get("name", ""), car=options.get("car", ""))
    if command == "game add-ai":
        return AddComputer(car=options.get("car", ""))
    if command == "speed":
        return SetSpeed(int(options["value"]))
    if command == "move":
        if not options.get("maneuver"):
            raise BadOption("Give a maneuver (maneuver:turn-left) or a plan (plan:normal,turn-left,normal).")
        return Move(options["maneuver"], options.get("skid", ""))
    if command == "skid":
        return AnswerSkid(options["choice"], options.get("target", ""))
    if command == "fire":
        return Fire(options["weapon"], options["target"])
    if command == "drop":
        return Drop(options["weapon"])
    if command == "ram":
        return ChooseRam(options["outcome"])
    raise BadOption(f"Speedway has no command /{command}.")


def is_computer(state: SpeedwayState, player: str) -> bool:
    """Whether `player` is a computer seat."""
    seat = state.player(player)
    return seat is not None and seat.ai


def computer_command(state: SpeedwayState, player: str) -> str | None:
    """The command a computer driver plays now, as written, or None when `player` is a person."""
    if not is_computer(state, player):
        return None
    return ai.choose_command(state, player, [a.command for a in legal_actions(state, player)])


def computer_action(state: SpeedwayState, player: str) -> Any:
    """The action a computer driver takes now (one of its legal actions), or None."""
    return chosen_action(legal_actions(state, player), computer_command(state, player))


def _plan_fire(state: SpeedwayState, car: Car, fire: tuple[str, str] | None) -> tuple[Weapon, Car] | None:
    """The weapon and target a plan's `fire:` names (None without one), or why there is no such weapon or car."""
    return None if fire is None else _fire_named(state, car, fire)


def _fire_named(state: SpeedwayState, car: Car, fire: tuple[str, str]) -> tuple[Weapon, Car]:
    """The weapon and target of a (mount, target) pair, or why there is no such weapon or car."""
    mount, target = fire
    return combat.find_weapon(car, mount), _target(state, target, car)


def plan_preview(state: SpeedwayState, player: str, maneuvers: list[str],
                 fire: tuple[str, str] | None, accept: bool = False) -> TurnPreview:
    """The planned path of the player's car, for a private preview before committing."""
    car = _car_asked_about(state, player, frozenset((SpeedwayPhase.MOVEMENT,)))
    if maneuvers:   # no path drawn that the first Move would refuse
        if not car.in_control:
            raise IllegalManeuver(_ONLY_SLIDE.format(car.name))
        check_plan(car, state.moves_left, maneuvers)
        if car.must_turn and parse_maneuver(maneuvers[0])[0].id != "turn":
            raise IllegalManeuver(_TURN_OWED.format(car.name))
    return preview_turn(state, car, maneuvers, _plan_fire(state, car, fire), accept)


def plan_check(state: SpeedwayState, player: str, maneuvers: list[str], fire: tuple[str, str] | None,
               accept: bool = False) -> None:
    """Refuse, before its first Move, a plan its driver could not drive as written now: more maneuvers
    than Moves left, one that is not a maneuver, or a shot no point of its path allows (the path
    worked out as the preview does). Off-turn, the first step refuses as usual."""
    if state.phase == SpeedwayPhase.MOVEMENT and state.deciding_player == player:
        car = state.current_car
        if car.in_control:
            plan_preview(state, player, maneuvers, fire, accept)


def plan_fire_ready(start: SpeedwayState, player: str, fire: tuple[str, str]) -> Callable[[SpeedwayState], str | None]:
    """When a plan's shot can be taken: while the car the plan started with is still making its Moves,
    and the shot is legal from where it stands. The answer is why not, or None."""
    car_id = start.active_car if start.phase in RUNNING else None

    def why_not(state: SpeedwayState) -> str | None:
        if car_id is None or state.phase != SpeedwayPhase.MOVEMENT or state.active_car != car_id \
                or state.deciding_player != player:
            return "the car's Moves were over first"
        car = state.car(car_id)
        try:
            weapon, target = _fire_named(state, car, fire)
            combat.plan_shot(state, car, weapon, target)
        except GameError as exc:
            return exc.message
        return None
    return why_not


def suggest(state: SpeedwayState, player: str, command: str, option: str,
            chosen: dict[str, Any]) -> list[tuple[str, str]]:
    """What to offer as a player types an option: only what is legal now, with the odds (a drop, whose
    mounts have no odds, offers the defensive weapons it may drop; a speed, the speeds it may set; a swipe,
    the cars in the skid hexes)."""
    if command in ("drop", "speed", "skid"):   # the speeds the Upkeep allows, the cars a swipe may hit
        return suggest_legal(legal_actions)(state, player, command, option, chosen)
    if state.phase not in _ASKING or state.deciding_player != player:
        return []
    if command != "odds" and not has_command(legal_actions(state, player), command):
        return []   # an action only where one of its kind is legal (no maneuver at a skid); /odds asks on
    car = state.current_car
    if option == "maneuver":
        if not car.in_control:
            return [("slide (out of control)", SLIDE)]
        names = [m for m in maneuver_choices() if not car.must_turn or m.startswith("turn-")]
        offers = []
        for name in names:
            spec, _side = parse_maneuver(name)
            if skids_at(spec, car.speed):
                chance = driver_chance(car.systems.rating("driver"), car.speed + car.inertia + spec.inertia)
                offers.append((f"{name} (skid: resist {chance:.0%})", name))
            else:
                offers.append((name, name))
        return offers
    shots = combat.legal_shots(state, car)
    if option == "weapon":
        best: dict[str, combat.ShotPlan] = {}
        for plan in shots:
            mount = plan.weapon.mount.lower()
            if mount not in best or plan.chance > best[mount].chance:
                best[mount] = plan
        return [(f"{m}: {p.weapon.name} ({p.chance:.0%} at {p.target.name})", m) for m, p in best.items()]
    if option == "target":
        weapon = (chosen.get("weapon") or "").lower()
        named = (lambda c: f"{c.name} ({c.id})") if state.revision >= 2 else (lambda c: c.name)
        return [(f"{named(p.target)}: {p.chance:.0%} with {p.weapon.mount.lower()} {p.weapon.name}",
                 combat.target_value(state, p.target))
                for p in shots if not weapon or p.weapon.mount.lower() == weapon]
    return []


def forced_action(state: SpeedwayState, player: str) -> Any:
    """A speed with one value to choose (a car with no engine left, standing still: 0 to 0) is set by the
    table (ruling: the seed's upkeep has every car set its speed; a choice of one is no choice)."""
    if state.phase != SpeedwayPhase.UPKEEP or state.deciding_player != player:
        return None
    low, high = speed_range(state.current_car)
    return SetSpeed(low) if low == high else None


def autopilot_action(state: SpeedwayState, player: str, passive: bool = False) -> Any:
    """What a deadline plays for an absent driver: keep speed (or, `passive`, brake hard), drive
    straight, no fire; every obligation kept: a car that must Turn takes the better Turn, and a ram's
    winner picks the outcome that spares its own car (B as the attacker, A as the defender). None when
    `player` has nothing to do now."""
    if state.phase not in RUNNING or state.deciding_player != player:
        return None
    if state.phase == SpeedwayPhase.RAM:
        return ChooseRam("B" if state.car(state.open_ram.attacker).owner == player else "A")
    car = state.current_car
    if state.phase == SpeedwayPhase.UPKEEP:
        low, high = speed_range(car)
        return SetSpeed(low if passive else min(max(car.speed, low), high))
    if state.phase == SpeedwayPhase.SKID:
        return AnswerSkid("accept" if "accept" in skid_choices(state) else "continue")
    if state.moves_left == 0:
        return EndTurn()
    if not car.in_control:
        return Move(SLIDE)
    return Move(ai.obliged_turn(state, car) if car.must_turn else "normal")


def _autopilot_manner(passive: bool) -> str:
    return f"{'braking hard' if passive else 'keeping speed'}, straight ahead unless a ram owes a Turn, no fire"


def turn_key(state: SpeedwayState) -> str:
    """Round and player: one key per turn, so a table can keep one message per turn."""
    if state.phase not in RUNNING:
        return str(state.phase)
    return f"{state.round}:{state.active_player}"


def undo_blocker(before: SpeedwayState, after: SpeedwayState) -> str | None:
    """An action can be taken back only if it rolled no dice (Speedway hides nothing else)."""
    if after.dice.counter != before.dice.counter:
        return "dice were rolled"
    return None


def acting_players(state: SpeedwayState) -> tuple[str, ...]:
    """Who the game is waiting on."""
    return (state.deciding_player,) if state.deciding_player else ()


class Speedway(Ruleset[SpeedwayState]):
    """Speedway, the arena duel (seed 000)."""

    id = "speedway"
    title = "Speedway"
    state_type = SpeedwayState
    actions, events = ACTIONS, EVENTS
    example = ExampleOpening("arena:duel", (("ann", "/game join car:brawler"), ("ben", "/game join car:torch"),
                                            ("ann", "/game start")))
    grammar = GRAMMAR
    revision = REVISION

    # The referee (rules.referee) admits each action by the phase table (`PHASES`) and the turn, then runs
    # its handler and the victory check.
    phases = PHASES
    handlers = {Join: lobby.join, AddComputer: lobby.add_computer, Start: lobby.start, SetSpeed: _set_speed,
                Move: _move, AnswerSkid: _answer_skid, ChooseRam: _choose_ram, Fire: _fire, Drop: _drop,
                EndTurn: _end_turn}
    cleared_on_end = {"active_car": None, "pending_skid": None, "pending_ram": None}
    resignation = Resignation(turns.resign, "Their cars are out, wrecks where they stand.")

    setup = staticmethod(setup)
    legal_actions = staticmethod(legal_actions)
    view = staticmethod(view)
    describe = staticmethod(describe)
    game_command = staticmethod(command_to_action)
    acting_players = staticmethod(acting_players)
    prompt = staticmethod(prompt)
    turn_key = staticmethod(turn_key)
    check_turn = staticmethod(_check_turn)

    def after(self, state: SpeedwayState, actor: str, action: Any) -> tuple[SpeedwayState, tuple]:
        """After every action of the race: the victory check."""
        return check_victory(state)

    def still_in(self, state: SpeedwayState) -> tuple[str, ...]:
        """The players with a car still running (rules.speedway.turns.alive_players) who did not resign."""
        kept = set(super().still_in(state))
        return tuple(p for p in turns.alive_players(state) if p in kept)

    round_cap = staticmethod(lambda state: state.max_rounds)
    queries = {"odds": odds}
    computer = ComputerSeats(is_computer, computer_action)
    autopilot = Autopilot(autopilot_action, _autopilot_manner)
    orders = orders.ORDERS
    named_dice = {"white driver dice": data.driver_die()}
    hit_size = staticmethod(speedway_events.hit_size)
    review = speedway_review.REVIEW

    def final_order(self, state: SpeedwayState, left: Mapping[str, int]) -> Order:
        """Seed (Overview): "the last operable car being the victor"; RULES.md "Rating order" rules the rest:
        the others by when their last car went out, the later the higher."""
        return last_out_higher(state, self.still_in(state), left)

    forced = staticmethod(forced_action)
    plans = turn_plans(plan_preview, plan_check, plan_fire_ready, preview_text)
    undo_blocker = staticmethod(undo_blocker)
    seat_limit = staticmethod(lambda state: (len(state.cars), data.max_cars(state.arena)))   # a seat is a car
    suggest = staticmethod(suggest)
    selfplay = SELFPLAY
    turn_summary = staticmethod(turn_summary)
    # Schema 2: the last action's words, roll and shot are drawn from the log's events, not stored.
    snapshot_upgrades = {1: without_fields("last_action", "last_roll", "last_shot")}


SPEEDWAY = Speedway()
apply = SPEEDWAY.apply   # the referee (rules.referee.Referee.apply), as tools and tests call it
RULESET = SPEEDWAY  # what rules.registry looks up
