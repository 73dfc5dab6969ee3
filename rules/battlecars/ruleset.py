"""Battlecars as a Ruleset (seed 001): setup, the actions by phase, legal actions, the private view of
the speed counters, the words for the table, computer drivers and the deadline's autopilot."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from rules.battlecars import ai, combat, counters, data, lobby, movement, orders, passive, pedestrians, speed, turns
from rules.battlecars import events as battlecars_events
from rules.battlecars import review as battlecars_review
from rules.battlecars.actions import (
    ACTIONS,
    AddComputer,
    Board,
    ChooseSection,
    Drop,
    EndMove,
    Fire,
    HoldFire,
    Join,
    Leave,
    Move,
    Reload,
    SetSpeed,
    Start,
    ThreePointTurn,
    Walk,
)
from rules.battlecars.combat import legal_shots
from rules.battlecars.commands import GRAMMAR
from rules.battlecars.events import EVENTS, FireHeld
from rules.battlecars.grid import FACING_NAMES, TURN_STEPS, distance, facing_by_name, label, step
from rules.battlecars.plans import PLANS
from rules.battlecars.selfplay import SELFPLAY
from rules.battlecars.state import THREE_POINT, BattlecarsState, Pedestrian, Phase, Vehicle, point_of, speed_label
from rules.battlecars.turns import acting_players
from rules.dice import DiceState
from rules.engine import Autopilot, ComputerSeats, ExampleOpening, LegalAction, Ruleset, Secrets, suggest_legal
from rules.errors import BadOption, GameError, NotSeated, NotYourTurn, WrongPhase
from rules.phases import PhaseTable
from rules.ranking import Order, last_out_higher
from rules.referee import TABLE_ACTIONS, Handler, Resignation
from rules.seats import addressed
from rules.table import Rollback, agreed_words, revision_option, rounds_option

REVISION = 6


def setup(options: dict[str, Any], seed: int, host: str) -> BattlecarsState:
    """A new table in the lobby on the chosen board (the classic open layout by default)."""
    revision = revision_option(options, REVISION)
    board = str(options.get("board") or data.board_ids()[0]).strip().lower()
    if board not in data.board_ids():
        raise BadOption(f"board: one of {', '.join(data.board_ids())}.")
    rounds = rounds_option(options)
    return BattlecarsState(board=board, host=host, dice=DiceState(seed), revision=revision, max_rounds=rounds)


# --- who acts ------------------------------------------------------------------------------------

def _check_acting(state: BattlecarsState, actor: str) -> None:
    if state.player(actor) is None:
        raise NotSeated("You are not playing in this game; you can watch.")
    if actor not in acting_players(state):
        names = ", ".join(state.seat(p).name for p in acting_players(state)) or "nobody"
        raise NotYourTurn(f"It is {names}'s move, not yours.")


def _moving(state: BattlecarsState, actor: str) -> Vehicle:
    """The actor's vehicle when it is their move and they are aboard, or why not."""
    if state.phase != Phase.MOVE:
        raise WrongPhase(prompt(state))
    _check_acting(state, actor)
    if state.pedestrian_of(actor) is not None:
        raise WrongPhase("You are on foot: /walk, /fire weapon:pistol, /board your vehicle, or /end.")
    return state.vehicle_for(actor)


def _walking(state: BattlecarsState, actor: str) -> Pedestrian:
    """The actor's pedestrian when it is their move on foot, or why not."""
    if state.phase != Phase.MOVE:
        raise WrongPhase(prompt(state))
    _check_acting(state, actor)
    walker = state.pedestrian_of(actor)
    if walker is None:
        raise WrongPhase("Your driver is in the vehicle: /leave it first (at speed 0) to go on foot.")
    return walker


# --- apply ---------------------------------------------------------------------------------------

def _set_speed(state: BattlecarsState, actor: str, action: SetSpeed) -> tuple[BattlecarsState, tuple]:
    if state.player(actor) is None:
        raise NotSeated("You are not playing in this game; you can watch.")
    state, events = speed.declare(state, actor, action.speed)
    if state.phase == Phase.MOVE:
        state, more = turns.next_mover(state)
        events += more
    return state, events


def _move(state: BattlecarsState, actor: str, action: Move) -> tuple[BattlecarsState, tuple]:
    vehicle = _moving(state, actor)
    if vehicle.speed == THREE_POINT:
        raise BadOption(f"{vehicle.name} is on 3PT: /move facing:N..NW turns it on the spot.")
    return movement.drive(state, vehicle.id, action.turn)


def _three_point_turn(state: BattlecarsState, actor: str, action: ThreePointTurn) -> tuple[BattlecarsState, tuple]:
    vehicle = _moving(state, actor)
    facing = facing_by_name(action.facing)
    if vehicle.speed != THREE_POINT:
        raise BadOption(f"A three-point turn needs the speed counter on 3PT; {vehicle.name} is on "
                        f"{speed_label(vehicle.speed)}.")
    if facing is None:
        raise BadOption(f"facing: one of {', '.join(FACING_NAMES)}.")
    return movement.three_point_turn(state, vehicle.id, facing)


def _fire(state: BattlecarsState, actor: str, action: Fire) -> tuple[BattlecarsState, tuple]:
    """A shot: returned at the attacker, a pistol's on foot, or a vehicle's weapon on its move."""
    if state.phase == Phase.RETURN:
        _check_acting(state, actor)
        pending = state.open_return
        target = combat.find_target(state, action.target, pending.defender)
        if target.id != pending.attacker:
            raise BadOption(f"Return fire goes back at {state.target(pending.attacker).name} only.")
        return combat.fire(state, pending.defender, action.weapon, target.id, returning=True)
    if state.pedestrian_of(actor) is not None:
        walker = _walking(state, actor)
        if action.weapon.strip().lower() != "pistol":
            raise BadOption("On foot the only weapon is the pistol: /fire weapon:pistol target:...")
        return combat.pistol(state, walker.id, combat.find_target(state, action.target, walker.id).id)
    vehicle = _moving(state, actor)
    target = combat.find_target(state, action.target, vehicle.id)
    return combat.fire(state, vehicle.id, action.weapon, target.id)


def _hold(state: BattlecarsState, actor: str, _action: HoldFire) -> tuple[BattlecarsState, tuple]:
    _check_acting(state, actor)
    defender = state.vehicle(state.open_return.defender)
    return replace(state, phase=Phase.MOVE, pending_return=None), (FireHeld(defender.name),)


def _then_hand_over(step) -> Callable[[BattlecarsState, str, Any], tuple[BattlecarsState, tuple]]:
    """A step on foot or out of the vehicle that ends the driver's move."""
    def handler(state: BattlecarsState, actor: str, action: Any) -> tuple[BattlecarsState, tuple]:
        state, events = step(state, actor, action)
        state, more = turns.end_move(state)
        return state, events + more
    return handler


def _choose_section(state: BattlecarsState, actor: str, action: ChooseSection) -> tuple[BattlecarsState, tuple]:
    _check_acting(state, actor)
    return combat.choose_section(state, action.section)


def _end_move(state: BattlecarsState, actor: str, _action: EndMove) -> tuple[BattlecarsState, tuple]:
    if state.pedestrian_of(actor) is not None:
        _walking(state, actor)
        return turns.end_move(state)
    vehicle = _moving(state, actor)
    if not turns.move_is_complete(state):
        left = movement.left_to_move(vehicle)
        raise WrongPhase(f"{vehicle.name} must drive its whole speed first: {left} more "
                         f"{'point' if left == 1 else 'points'} (/move).")
    return turns.end_move(state)


SEATS_CLOSED = "The game has started; seats are closed."
_MOVING = (Move, ThreePointTurn, Fire, Leave, Walk, Reload, Board, Drop, EndMove)
PHASES = PhaseTable(
    Phase,
    allows={Phase.LOBBY: (Join, AddComputer, Start, *TABLE_ACTIONS), Phase.SPEED: (SetSpeed, *TABLE_ACTIONS),
            Phase.MOVE: (*_MOVING, *TABLE_ACTIONS), Phase.SECTION: (ChooseSection, *TABLE_ACTIONS),
            Phase.RETURN: (Fire, HoldFire, *TABLE_ACTIONS), Phase.FINISHED: ()},
    expects={Phase.LOBBY: "The game has not started: /game join, then the host uses /game start.",
             Phase.SPEED: lambda state: prompt(state), Phase.MOVE: lambda state: prompt(state),
             Phase.SECTION: lambda state: prompt(state), Phase.RETURN: lambda state: prompt(state)},
    refusals={Join: SEATS_CLOSED, AddComputer: SEATS_CLOSED, Start: "The game has already started.",
              SetSpeed: "Speeds are set at the start of a turn, before anyone moves.",
              HoldFire: "/hold answers a chance to return fire; none is open.",
              ChooseSection: "No hit waits for a section: that choice comes when your vehicle is hit."},
    over=(Phase.FINISHED,),
    turn_actions=(*_MOVING, HoldFire, ChooseSection),
)


def _settled(state: BattlecarsState) -> tuple[BattlecarsState, tuple]:
    """After an action: the game may be won; a moving driver who is out, or whose vehicle was just
    wrecked under them (they act on foot from the next turn), hands over."""
    state, events = turns.check_victory(state)
    walker = state.pedestrian_of(state.active)
    if state.phase == Phase.MOVE and state.active and (state.active not in turns.drivers_left(state)
                                                       or (walker is not None and walker.fresh)):
        state, handed = turns.next_mover(state)
        events += handed
    return state, events


def _counters_taken_up(state: BattlecarsState, _rollback: Rollback) -> BattlecarsState:
    """A table's rollback into a speed step takes up the face-down counters already set: the actions it set
    aside may have revealed them, so every driver sets a counter again (and the counters taken up stay
    withheld: counters.face_down)."""
    return replace(state, declared=()) if state.phase == Phase.SPEED else state


# One handler per action of the game's own (the referee, rules.referee, admits each by the phase table and the
# turn, runs its handler, then settles the table).
HANDLERS: dict[type, Handler] = {
    Join: lobby.join, AddComputer: lobby.add_computer, Start: lobby.start, SetSpeed: _set_speed, Move: _move,
    ThreePointTurn: _three_point_turn, Fire: _fire, HoldFire: _hold,
    Leave: _then_hand_over(lambda state, actor, _a: pedestrians.leave(state, _moving(state, actor))),
    Walk: lambda state, actor, action: pedestrians.walk(state, _walking(state, actor), action.direction),
    Reload: _then_hand_over(lambda state, actor, _a: pedestrians.reload(state, _walking(state, actor))),
    Board: _then_hand_over(lambda state, actor, _a: pedestrians.board(state, _walking(state, actor))),
    Drop: lambda state, actor, action: passive.drop(state, _moving(state, actor).id, action.weapon),
    ChooseSection: _choose_section, EndMove: _end_move}


# --- what a player may do ------------------------------------------------------------------------

def legal_actions(state: BattlecarsState, player: str) -> tuple[LegalAction, ...]:
    """Every action `player` may take now, written as a command, with a short label."""
    if state.phase == Phase.LOBBY:
        offers = [] if state.player(player) else [LegalAction("/game join", "Join")]
        if player == state.host and len(state.players) >= data.table()["min_players"]:
            offers.append(LegalAction("/game start", "Start", action=Start()))
        return tuple(offers)
    if player not in acting_players(state):
        return ()
    if state.phase == Phase.SPEED:
        vehicle = state.vehicle_for(player)
        return tuple(LegalAction(f"/speed value:{speed_label(p)}", f"Speed {speed_label(p)}", group="Speed",
                                 action=SetSpeed(p)) for p in speed.choices(state, vehicle))
    if state.phase == Phase.SECTION:
        return tuple(LegalAction(f"/section choice:{s}", f"Take it on the {s}", action=ChooseSection(s))
                     for s in state.open_hit.sections)
    if state.phase == Phase.RETURN:
        pending = state.open_return
        shots = combat.return_shots(state, state.vehicle(pending.defender), state.target(pending.attacker))
        return tuple(LegalAction(f"/fire weapon:{s.weapon.id} target:{s.target.id}",
                                 f"Return fire: {s.weapon.id} ({s.chance:.0%})", action=Fire(s.weapon.id, s.target.id),
                                 primary=True) for s in shots) + (LegalAction("/hold", "Hold fire", action=HoldFire()),)
    walker = state.pedestrian_of(player)
    if walker is not None:
        return _on_foot_actions(state, walker)
    vehicle = state.vehicle_for(player)
    offers = []
    for shot in legal_shots(state, vehicle):
        offers.append(LegalAction(f"/fire weapon:{shot.weapon.id} target:{shot.target.id}",
                                  f"Fire {shot.weapon.id} at {shot.target.name} ({shot.chance:.0%})",
                                  action=Fire(shot.weapon.id, shot.target.id), primary=True))
    for pod in vehicle.pods:
        try:
            _, point = passive.check_drop(state, vehicle, pod.id)
        except GameError:
            continue
        offers.append(LegalAction(f"/drop weapon:{pod.id}", f"Drop {data.rounds()[pod.load].name.lower()} at "
                                  f"{label(point)}", group="Drop", action=Drop(pod.id)))
    if vehicle.speed == THREE_POINT and not vehicle.moved:
        offers += [LegalAction(f"/move facing:{name}", f"Turn to {name}", group="Three-point turn",
                               action=ThreePointTurn(name)) for name in FACING_NAMES]
    elif movement.left_to_move(vehicle) > 0:
        for turn in movement.open_turns(state, vehicle):
            offers.append(LegalAction(f"/move turn:{turn}", turn.replace("-", " ").capitalize(), group="Drive",
                                      action=Move(turn)))
    if vehicle.spec.type != "truck" and vehicle.speed == 0 and not (vehicle.moved or vehicle.fired or vehicle.dropped) \
            and pedestrians.beside(state, vehicle) is not None:
        offers.append(LegalAction("/leave", "Get out on foot", action=Leave()))
    if turns.move_is_complete(state):
        offers.append(LegalAction("/end", "End move", action=EndMove()))
    return tuple(offers)


def _on_foot_actions(state: BattlecarsState, walker: Pedestrian) -> tuple[LegalAction, ...]:
    """A pedestrian's choices: the pistol's shots, a point's walk, boarding, reloading, the end of the move."""
    offers = []
    for target in combat.targets(state):
        if target.owner == walker.owner:   # their own vehicle: never offered, as /odds never counts it
            continue
        try:
            combat.check_pistol(state, walker, target)
        except GameError:
            continue
        offers.append(LegalAction(f"/fire weapon:pistol target:{target.id}", f"Pistol at {target.name}",
                                  action=Fire("pistol", target.id), primary=True))
    if not walker.walked:
        for way, name in enumerate(FACING_NAMES):
            to = step(walker.point, way)
            if pedestrians.is_free(state, to):
                offers.append(LegalAction(f"/walk direction:{name}", f"Walk {name} to {label(to)}", group="Walk",
                                          action=Walk(name)))
    vehicle = state.vehicle_of(walker.owner)
    if vehicle and not vehicle.destroyed and distance(point_of(vehicle), walker.point) == 1:
        offers.append(LegalAction("/board", f"Board {vehicle.name}'s vehicle", action=Board()))
    try:
        pedestrians.reload(state, walker)
        offers.append(LegalAction("/reload", "Reload from a dead driver's pistol", action=Reload()))
    except GameError:
        pass
    offers.append(LegalAction("/end", "End move", action=EndMove()))
    return tuple(offers)


def command_to_action(command: str, options: dict[str, Any]) -> Any:
    """Turn a parsed command (name and options) into an action."""
    if command == "game join":
        return Join(options.get("name", ""), options.get("vehicle", ""))
    if command == "game add-ai":
        return AddComputer(options.get("vehicle", ""))
    if command == "game start":
        return Start()
    if command == "speed":
        return SetSpeed(speed.parse_speed(options["value"]))
    if command == "move":
        if options.get("facing"):
            return ThreePointTurn(str(options["facing"]))
        turn = str(options.get("turn") or "ahead").strip().lower()
        if turn not in TURN_STEPS:
            raise BadOption(f"turn: one of {', '.join(TURN_STEPS)}.")
        return Move(turn)
    if command == "fire":
        return Fire(str(options["weapon"]), str(options["target"]))
    if command == "drop":
        return Drop(str(options["weapon"]))
    if command == "section":
        return ChooseSection(str(options["choice"]))
    if command == "end":
        return EndMove()
    if command == "hold":
        return HoldFire()
    if command == "leave":
        return Leave()
    if command == "walk":
        return Walk(str(options["direction"]))
    if command == "board":
        return Board()
    if command == "reload":
        return Reload()
    raise BadOption(f"Battlecars has no command /{command}.")


# --- words ---------------------------------------------------------------------------------------

def view(state: BattlecarsState, viewer: str | None) -> BattlecarsState:
    """What `viewer` may see: the speed counters still face down are blanked, except their own."""
    if not state.declared:
        return state
    return replace(state, declared=tuple((p, s if p == viewer else 0) for p, s in state.declared), hidden=True)


def prompt(state: BattlecarsState) -> str:
    """Who must act and how."""
    if state.phase == Phase.LOBBY:
        return f"Lobby: {len(state.players)} seated; /game join vehicle:..., then the host uses /game start."
    if state.phase == Phase.FINISHED:
        if state.agreed:
            return agreed_words(state.agreed)
        return f"Game over: {state.seat(state.winner).name} wins." if state.winner else "Game over: a draw."
    turn = f"Turn {state.round + 1}"
    if state.phase == Phase.SPEED:
        names = ", ".join(addressed(state.seat(p)) for p in speed.waiting(state))
        return f"{turn}: {names} to set a speed counter in secret (/speed value:...)."
    if state.phase == Phase.RETURN:
        pending = state.open_return
        return (f"{turn}: {addressed(state.seat(pending.chooser))} may return fire at "
                f"{state.target(pending.attacker).name}: /fire weapon:... target:{pending.attacker}, or /hold.")
    if state.phase == Phase.SECTION:
        hit = state.open_hit
        return (f"{turn}: {addressed(state.seat(hit.chooser))} chooses where the hit lands: "
                f"/section choice:{'|'.join(hit.sections)} ({hit.points} points).")
    walker = state.pedestrian_of(state.active)
    if walker is not None:
        return f"{turn}: {_on_foot_words(walker)}: {_on_foot_choices(state, walker)}."
    vehicle = state.vehicle_for(state.active)
    left = movement.left_to_move(vehicle)
    fire = _when_to_fire(state, vehicle)
    doing = f"{left} more {'point' if left == 1 else 'points'} to drive (/move){fire}" if left else \
        "/fire, or /end the move"
    return f"{turn}: {vehicle.name} at {label(point_of(vehicle))} facing {FACING_NAMES[vehicle.facing]}, " \
           f"speed {speed_label(vehicle.speed)}: {doing}."


def _when_to_fire(state: BattlecarsState, vehicle: Vehicle) -> str:
    """When the moving vehicle may fire, for its prompt: any time, or (revision 6 on) before its move
    starts or once the move is complete (seed: "all movement must be completed once started")."""
    if state.revision < combat.FIRE_OUTSIDE_MOVE:
        return ", /fire any time"
    return "" if movement.mid_move(vehicle) else ", /fire before the first point or after the last"


def describe(state: BattlecarsState) -> str:
    """The whole table in words: each vehicle's place, speed and mat, and each driver on foot."""
    board = state.the_board
    parts = [f"Battlecars on {board.name} ({board.width}x{board.height} points)."]
    for v in state.vehicles:
        where = f"at {label(v.point)} facing {FACING_NAMES[v.facing]}" if v.point else "not placed"
        status = "destroyed" if v.destroyed else "empty" if v.driver_out else f"speed {speed_label(v.speed)}"
        armour = "/".join(str(a) for a in v.armour)
        parts.append(f"{v.name}'s {v.spec.name} {where}, {status}; armour F/M/R {armour}, engine "
                     f"{v.spec.engine - v.engine_lost}/{v.spec.engine}, driver {v.spec.driver - v.driver_lost}/"
                     f"{v.spec.driver}.")
    parts += [_on_foot_words(walker) + "." for walker in state.pedestrians]
    parts.append(prompt(state))
    return " ".join(parts)


def _on_foot_words(walker: Pedestrian) -> str:
    """A driver on foot in a few words: where, health and rounds."""
    return f"{walker.name} on foot at {label(walker.point)}, health {walker.health}, pistol {walker.rounds}"


def _on_foot_choices(state: BattlecarsState, walker: Pedestrian) -> str:
    """What a driver on foot may do now, a command each (its option left open where there are several)."""
    shown: dict[str, list[str]] = {}
    for action in legal_actions(state, walker.owner):
        verb, *options = action.command.split()
        shown.setdefault(verb, []).append(" ".join(options))
    words = [f"{verb} {ways[0]}".strip() if len(ways) == 1 else f"{verb} {ways[0].split(':')[0]}:..."
             for verb, ways in shown.items()]
    return ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)


def _shot_line(plan) -> str:
    spec = data.rounds()[plan.weapon.load]
    bonus = f" {plan.modifier:+d}" if plan.modifier else ""
    damage = f"{spec.damage}d8" + (f"+{spec.bonus}" if spec.bonus else "")
    return (f"{plan.weapon.label} at {plan.target.name} ({plan.target.id}): range {plan.range}, "
            f"{plan.dice}d6{bonus} -> {plan.chance:.0%} to hit; damage {damage}.")


def _pistol_odds(state: BattlecarsState, walker: Pedestrian, options: dict[str, Any]) -> str:
    """A driver on foot's odds: the pistol at one target, or at every target it can shoot now."""
    if str(options.get("weapon") or "pistol").strip().lower() != "pistol":
        raise BadOption("On foot the only weapon is the pistol.")
    if options.get("turn"):
        raise BadOption("On foot there is no turn to skid on: a driver walks a point in any direction.")
    dice = data.table()["pistol_range_dice"]
    everyone: list[Vehicle | Pedestrian] = [*state.vehicles, *state.pedestrians]
    wanted = [combat.find_target(state, str(options["target"]), walker.id)] if options.get("target") else \
        [t for t in everyone if t.owner != walker.owner and t.point is not None]
    lines = []
    for target in wanted:
        try:
            distance = combat.check_pistol(state, walker, target)
        except GameError as why:
            if options.get("target"):
                return f"{walker.name} cannot shoot {target.name} now: {why.message}"
            continue
        modifier = combat.aim(state, walker, target)
        bonus = f" {modifier:+d}" if modifier else ""
        lines.append(f"pistol at {target.name} ({target.id}): range {distance}, {dice}d6{bonus} -> "
                     f"{combat.hit_chance(dice, modifier, combat.needed_roll(state, distance)):.0%} to hit.")
    if not lines:
        return f"No shot is open to {walker.name} now: nobody on a line in reach and in sight, or no round left."
    return f"Shots open to {walker.name} ({walker.rounds} rounds):\n" + "\n".join(lines)


def odds(state: BattlecarsState, player: str, options: dict[str, Any]) -> str:
    """The chance of a shot or of skidding on a turn, changing nothing; bare, every shot open now.
    Off-turn it answers for the player's vehicle as it stands, for planning."""
    if state.player(player) is None:
        raise NotSeated("You are not playing in this game.")
    if state.phase in (Phase.LOBBY, Phase.FINISHED):
        raise WrongPhase("The odds are for a game under way.")
    walker = state.pedestrian_of(player)
    if walker is not None:
        return _pistol_odds(state, walker, options)
    vehicle = state.vehicle_for(player)
    if options.get("turn"):
        turn = str(options["turn"]).strip().lower()
        if turn not in TURN_STEPS:
            raise BadOption(f"turn: one of {', '.join(TURN_STEPS)}.")
        angle = abs(TURN_STEPS[turn]) * 45
        limit = movement.cornering_limit(vehicle, state.the_board.terrain(point_of(vehicle)), angle)
        speed_now = max(0, vehicle.speed)
        if limit is None or speed_now <= limit:
            return f"{turn} at speed {speed_now} needs no skid test."
        over = speed_now - limit
        chance = min(1.0, 2 * over / 6)
        return (f"{turn} at speed {speed_now} (cornering {limit}): a skid on a d6 of {2 * over} or less, "
                f"{chance:.0%}.")
    if options.get("weapon") or options.get("target"):
        target = combat.find_target(state, str(options.get("target", "")), vehicle.id)
        weapon = vehicle.weapon(str(options.get("weapon", "")))
        if weapon is None:
            raise BadOption(f"{vehicle.name} has no weapon '{options.get('weapon', '')}'.")
        return _shot_line(combat.plan_shot(state, vehicle, weapon, target))
    shots = legal_shots(state, vehicle)
    if not shots and (moving := combat.moving_now(state, vehicle)):
        return f"No shot is open to {vehicle.name} now: {moving}"
    if not shots:
        return f"No shot is open to {vehicle.name} now: nothing on a weapon's line, in reach and in sight."
    return f"Shots open to {vehicle.name}:\n" + "\n".join(_shot_line(p) for p in shots)


def undo_blocker(before: BattlecarsState, after: BattlecarsState) -> str | None:
    """An action can be taken back only if it rolled no dice and revealed no speed counter."""
    if after.dice.counter != before.dice.counter:
        return "dice were rolled"
    if before.phase == Phase.SPEED and after.phase != Phase.SPEED:
        return "the speed counters were revealed"
    return None


def turn_key(state: BattlecarsState) -> str:
    """One key per driver's move (and per speed-setting), so a table keeps one message per turn."""
    return f"{state.phase}:{state.round}:{state.active or ''}"


def suggest(state: BattlecarsState, player: str, command: str, option: str,
            chosen: dict[str, Any]) -> list[tuple[str, str]]:
    """Only what is legal now; `/odds` offers the weapons and targets of the shots open now (its `/fire`'s)."""
    if command == "odds" and option in ("weapon", "target"):
        aimed = {k: v for k, v in chosen.items() if k in ("weapon", "target")}
        return suggest_legal(legal_actions)(state, player, "fire", option, aimed)
    return suggest_legal(legal_actions)(state, player, command, option, chosen)


class Battlecars(Ruleset[BattlecarsState]):
    """Battlecars, vehicles and drivers on foot (seed 001)."""

    id = "battlecars"
    title = "Battlecars"
    state_type = BattlecarsState
    actions, events = ACTIONS, EVENTS
    example = ExampleOpening("", (("ann", "/game join vehicle:interceptor"), ("ben", "/game join vehicle:rammer"),
                                  ("ann", "/game start")))
    grammar = GRAMMAR
    revision = REVISION
    private_actions = True

    phases = PHASES
    handlers = HANDLERS
    cleared_on_end = {"active": None, "pending_hit": None}
    resignation = Resignation(turns.resign, "Their vehicle stands empty where it is; their driver leaves the board.")

    setup = staticmethod(setup)
    legal_actions = staticmethod(legal_actions)
    suggest = staticmethod(suggest)
    own_words = staticmethod(speed.own_counter)   # one's own face-down counter, to them alone
    view = staticmethod(view)
    describe = staticmethod(describe)
    game_command = staticmethod(command_to_action)
    acting_players = staticmethod(acting_players)
    prompt = staticmethod(prompt)
    turn_key = staticmethod(turn_key)
    check_turn = staticmethod(_check_acting)
    on_rollback = staticmethod(_counters_taken_up)

    def after(self, state: BattlecarsState, actor: str, action: Any) -> tuple[BattlecarsState, tuple]:
        """After every action of the game: the table settled (victory, a driver out handing over)."""
        return _settled(state)

    def still_in(self, state: BattlecarsState) -> tuple[str, ...]:
        """The drivers not eliminated (rules.battlecars.turns.drivers_left) whose players did not resign."""
        kept = set(super().still_in(state))
        return tuple(p for p in turns.drivers_left(state) if p in kept)

    round_cap = staticmethod(lambda state: state.max_rounds)
    queries = {"odds": odds}
    secrets = Secrets(counters.face_down)
    computer = ComputerSeats(lambda state, p: bool(state.player(p) and state.player(p).ai), ai.computer_action)
    autopilot = Autopilot(ai.autopilot_action, ai.autopilot_manner)
    orders = orders.ORDERS
    hit_size = staticmethod(battlecars_events.hit_size)
    review = battlecars_review.REVIEW

    def final_order(self, state: BattlecarsState, left: Mapping[str, int]) -> Order:
        """Seed (Scoring / Victory Conditions): "The last vehicle (or driver) still operational wins. A player
        is eliminated when their driver is killed": the others by when they were eliminated, the later the
        higher (RULES.md "Rating order")."""
        return last_out_higher(state, self.still_in(state), left)

    plans = PLANS
    undo_blocker = staticmethod(undo_blocker)
    seat_limit = staticmethod(lambda state: (len(state.players), data.table()["max_players"]))
    selfplay = SELFPLAY


RULESET = Battlecars()
apply = RULESET.apply   # the referee (rules.referee.Referee.apply), as tools and tests call it
