"""Firing: which lines a pod or the turret fires along, the nearest target on a line, what blocks a
line, the limits on weapons and targets a turn, the range dice and the damage's section.

Found (the rules reference sheet, rules-gaps.md 2.1): "Pods fire along the barrel line and 45° to either
side; turrets fire along any line. Only the nearest target on a line may be chosen ... Building and tree
corners block fire." "Roll equal to or greater than the range with the weapon's range dice. +1 to hit
with Gunnery Computer." At most 2 targets a turn (3 with a Gunnery Computer), one round each.
Seed: "Fire any weapon once per turn. Machine Guns can fire in addition to a Weapon Pod. A Gunnery
Computer allows one additional weapon to fire." "Front/rear sides can be damaged from the front/back or
side; the defending player decides which zone is hit."

From rules revision 6 the seed's own sentences win where the sheet or the table read otherwise: a hit needs
a roll higher than the range ("a target 3 squares away requires a roll higher than 3"); a weapon fired as
return fire fires no more that turn ("Fire any weapon once per turn"); a vehicle fires before its move
starts or once it is complete ("Move and fire in any order, but all movement must be completed once
started"); smoke on the firer's or the target's own point blocks the shot too ("blocks line of sight and
firing"). And (ruling) a hit on the empty vehicle of a player out of the game asks nobody where it lands.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache
from itertools import product

from rules.battlecars import data, scenery
from rules.battlecars.damage import FLAME_ONLY, SECTION_INDEX, defended, hit_armour, is_running, sections_hit
from rules.battlecars.events import DiceRolled, ReturnFireOffered, ShotFliesOn, WeaponFired
from rules.battlecars.grid import Point, between, corners_passed, label, line_to, step
from rules.battlecars.movement import left_to_move, mid_move
from rules.battlecars.passive import smoke_between
from rules.battlecars.pedestrians import wound
from rules.battlecars.rams import struck_section
from rules.battlecars.rolls import D3, D6, D8, damage_die, roll
from rules.battlecars.state import (
    BattlecarsState,
    Pedestrian,
    PendingHit,
    PendingReturn,
    Phase,
    Pod,
    Vehicle,
    point_of,
)
from rules.errors import BadOption, GameError
from rules.table import required

RETURN_ONCE_A_TURN = 5    # the rules revision from which return fire takes no weapon that fired this turn
RETURN_FIRE_SPENT = 6     # ... and from which a weapon fired as return fire fires no more that turn
HIGHER_THAN_RANGE = 6     # the rules revision from which a hit needs a roll higher than the range (seed)
FIRE_OUTSIDE_MOVE = 6     # the rules revision from which a started move is completed before firing (seed)
SMOKE_AT_EITHER_END = 6   # the rules revision from which smoke on the firer's or target's point blocks too
NOBODY_ASKED = 6          # ... and from which a hit on a vehicle nobody defends lands where it faces, unasked


class IllegalShot(GameError):
    """The weapon cannot fire at that target now."""


@dataclass(frozen=True)
class ShotPlan:
    weapon: Pod
    target: Vehicle | Pedestrian
    range: int
    dice: int
    modifier: int
    needed: int   # the least total that hits (needed_roll)

    @property
    def chance(self) -> float:
        return hit_chance(self.dice, self.modifier, self.needed)


@cache
def hit_chance(dice: int, modifier: int, needed: int) -> float:
    """The chance that `dice` d6 plus `modifier` reach `needed`."""
    rolls = list(product(range(1, 7), repeat=dice))
    return sum(1 for r in rolls if sum(r) + modifier >= needed) / len(rolls)


def needed_roll(state: BattlecarsState, distance: int) -> int:
    """The least range-dice total that hits at `distance`: from revision 6 one higher than the range (seed:
    "a target 3 squares away requires a roll higher than 3", over the found sheet's "equal to or greater
    than"); before, the range itself."""
    return distance + 1 if state.revision >= HIGHER_THAN_RANGE else distance


def find_target(state: BattlecarsState, text: str, shooter: str | None = None) -> Vehicle | Pedestrian:
    """A target by id (v2, or d2 for a driver on foot), by its name, or by its mat's name when one
    vehicle has it."""
    wanted = text.strip().casefold()
    everyone = state.vehicles + state.pedestrians
    for match in (lambda t: t.id == wanted, lambda t: t.name.casefold() == wanted,
                  lambda t: hasattr(t, "spec") and t.spec.name.casefold() == wanted):
        found = [t for t in everyone if match(t) and t.id != shooter]
        if len(found) == 1:
            return found[0]
    others = ", ".join(f"{t.name} ({t.id})" for t in everyone if t.id != shooter)
    raise BadOption(f"No single target '{text.strip()}'. Targets: {others}.")


def lines_of(vehicle: Vehicle, weapon: Pod) -> tuple[int, ...]:
    """The facings a weapon fires along: the turret any of the eight, a pod its barrel line and 45° to
    either side."""
    if weapon.id == "turret":
        return tuple(range(8))
    base = (vehicle.facing + data.POD_TURN[weapon.facing]) % 8
    return ((base - 1) % 8, base, (base + 1) % 8)


def line_blocker(state: BattlecarsState, origin: Point, facing: int, distance: int) -> str | None:
    """What stops fire along a line before `distance`: a building or trees on a point between, or the
    corner of one a diagonal passes (found: "Building and tree corners block fire"); flattened ones no
    longer do."""
    board = state.the_board
    point = origin
    for k in range(distance):
        corners = corners_passed(point, facing)
        for corner in corners or ():
            if scenery.stands(state, corner):
                return f"the corner of the {board.terrain(corner)} at {label(corner)}"
        point = step(point, facing)
        if k < distance - 1 and scenery.stands(state, point):
            return f"the {board.terrain(point)} at {label(point)}"
    return None


def already_fired(vehicle: Vehicle, weapon: Pod) -> str | None:
    """Why `weapon` has no shot left this turn, or None: it fired in the vehicle's move, or as return fire
    (recorded from revision 6 only, so an older game's return fire spends nothing; seed: "Fire any weapon
    once per turn")."""
    if weapon.id in vehicle.fired:
        return f"{weapon.label} has already fired this turn."
    if weapon.id in vehicle.return_fired:
        return f"{weapon.label} has already fired this turn, as return fire."
    return None


def fire_limit(vehicle: Vehicle, weapon: Pod) -> str | None:
    """Why the vehicle may not fire `weapon` this turn, or None: each weapon once; one pod round and
    machine-gun fire besides (seed), one more weapon with a working Gunnery Computer. Return fire counts
    in none of it but the weapon's once (ruling)."""
    why = already_fired(vehicle, weapon)
    if why:
        return why
    fired = [w for w in vehicle.weapons() if w.id in vehicle.fired]
    guns = sum(1 for w in fired if w.load == "mg") + (weapon.load == "mg")
    others = sum(1 for w in fired if w.load != "mg") + (weapon.load != "mg")
    over = max(0, guns - 1) + max(0, others - 1)
    if over > vehicle.has("gunnery_computer"):
        return (f"{vehicle.name} has fired its pod round and its machine gun this turn"
                + ("" if vehicle.has("gunnery_computer") else " (a Gunnery Computer would allow one more)") + ".")
    return None


def target_limit(vehicle: Vehicle, target: Vehicle | Pedestrian) -> str | None:
    """Why the vehicle may not shoot at `target` now: one round a target, 2 targets a turn (3 with a
    working Gunnery Computer, found)."""
    if target.id in vehicle.targets:
        return f"{vehicle.name} has shot at {target.name} this turn: one round a target."
    most = data.table()["targets_per_turn"] + vehicle.has("gunnery_computer")
    if len(vehicle.targets) >= most:
        return f"{vehicle.name} has shot at {most} targets this turn, its most."
    return None


def check_line(state: BattlecarsState, origin: Point, lines: tuple[int, ...], target: Vehicle | Pedestrian,
               reach: int | None, what: str) -> int:
    """The range to `target` along one of `lines` from `origin`, or IllegalShot: not on a line, out of
    the arc, someone nearer on the line, blocked, or out of reach."""
    line = line_to(origin, point_of(target))
    if line is None:
        raise IllegalShot(f"{target.name} at {label(point_of(target))} is on none of the lines through "
                          f"{label(origin)}: weapons fire along the grid's lines.")
    facing, distance = line
    if facing not in lines:
        raise IllegalShot(f"{target.name} is not in {what}'s arc.")
    on_the_way = between(origin, facing, distance)
    nearer = next((v.name for v in state.vehicles if v.point in on_the_way), None) or \
        next((p.name for p in state.pedestrians if p.point in on_the_way), None)
    if nearer is not None:
        raise IllegalShot(f"{nearer} is nearer on that line: only the nearest target may be chosen.")
    blocker = line_blocker(state, origin, facing, distance) or _smoke_on_line(state, origin, facing, distance)
    if blocker:
        raise IllegalShot(f"{blocker} blocks the line to {target.name}.")
    if reach is not None and distance > reach:
        raise IllegalShot(f"{target.name} is {distance} points away; {what} reaches {reach}.")
    return distance


def _smoke_on_line(state: BattlecarsState, origin: Point, facing: int, distance: int) -> str | None:
    """The smoke that blocks a line of fire `distance` points long: on a point between; from revision 6 on
    the firer's or the target's own point too (seed: smoke "blocks line of sight and firing")."""
    points = between(origin, facing, distance)
    if state.revision >= SMOKE_AT_EITHER_END:
        points = (origin, *points, step(origin, facing, distance))
    return smoke_between(state, points)


def aim(state: BattlecarsState, firer: Vehicle | Pedestrian, target: Vehicle | Pedestrian) -> int:
    """The to-hit modifier: +1 with a Gunnery Computer (found); -2 at a pedestrian, and -2 more when it
    is in a building or trees still standing (found: "Shots at pedestrians are -2 to hit, and another
    -2 ..." in cover)."""
    bonus = int(isinstance(firer, Vehicle) and firer.has("gunnery_computer"))
    if isinstance(target, Pedestrian):
        bonus -= 2 + 2 * scenery.stands(state, target.point)
    return bonus


def plan_shot(state: BattlecarsState, firer: Vehicle, weapon: Pod, target: Vehicle | Pedestrian,
              returning: bool = False) -> ShotPlan:
    """Check every condition of a shot; IllegalShot says which one fails. Return fire is not held to
    the turn's weapon and target limits, nor counted in them (ruling); but from revision 5 it may not
    fire a weapon that fired this turn (seed: "Fire any weapon once per turn"), and from revision 6 a
    weapon that returned fire fires no more that turn. From revision 6 a vehicle whose move has started
    fires only once it is complete (seed: "all movement must be completed once started")."""
    spec = data.rounds()[weapon.load]
    if weapon.destroyed:
        raise IllegalShot(f"{weapon.label} is destroyed.")
    if spec.kind != "missile":
        raise IllegalShot(f"{weapon.label} holds {spec.name}: drop it behind with /drop.")
    if weapon.rounds <= 0:
        raise IllegalShot(f"{weapon.label} is out of rounds.")
    limits = (already_fired(firer, weapon) if state.revision >= RETURN_ONCE_A_TURN else None,) if returning else \
        (moving_now(state, firer), fire_limit(firer, weapon), target_limit(firer, target))
    for why in limits:
        if why:
            raise IllegalShot(why)
    if target.id == firer.id:
        raise IllegalShot("A vehicle cannot shoot itself.")
    if isinstance(target, Vehicle) and target.destroyed:
        raise IllegalShot(f"{target.name} is a wreck already.")
    distance = check_line(state, point_of(firer), lines_of(firer, weapon), target, spec.max_range, weapon.label)
    return ShotPlan(weapon, target, distance, spec.range_dice, aim(state, firer, target), needed_roll(state, distance))


def moving_now(state: BattlecarsState, vehicle: Vehicle) -> str | None:
    """Why the vehicle may not fire in the middle of its move (revision 6 on), or None."""
    if state.revision < FIRE_OUTSIDE_MOVE or not mid_move(vehicle):
        return None
    left = left_to_move(vehicle)
    return (f"{vehicle.name}'s move has started: it drives the {left} more {'point' if left == 1 else 'points'} "
            "first, then fires (seed: all movement must be completed once started).")


def targets(state: BattlecarsState) -> tuple[Vehicle | Pedestrian, ...]:
    """Everything that may be shot at: vehicles not yet wrecked, and drivers on foot."""
    return tuple(v for v in state.vehicles if not v.destroyed) + state.pedestrians


def legal_shots(state: BattlecarsState, firer: Vehicle) -> tuple[ShotPlan, ...]:
    """Every shot the vehicle could take now."""
    plans = []
    for weapon in firer.weapons():
        for target in targets(state):
            try:
                plans.append(plan_shot(state, firer, weapon, target))
            except IllegalShot:
                continue
    return tuple(plans)


def return_shots(state: BattlecarsState, defender: Vehicle, attacker: Vehicle | Pedestrian) -> tuple[ShotPlan, ...]:
    """Every round the defender could send back at its attacker now."""
    plans = []
    for weapon in defender.weapons():
        try:
            plans.append(plan_shot(state, defender, weapon, attacker, returning=True))
        except IllegalShot:
            continue
    return tuple(plans)


def offer_return(state: BattlecarsState, attacker_id: str, target_id: str) -> tuple[BattlecarsState, tuple]:
    """After a shot: the vehicle fired upon may return one round of missile weapon at its attacker
    (found), once in each enemy's move (ruling), if it still runs and has a shot that way."""
    attacker, target = state.shootable(attacker_id), state.shootable(target_id)
    if state.phase != Phase.MOVE or not isinstance(target, Vehicle) or not is_running(target) or attacker is None \
            or getattr(attacker, "destroyed", False) or target.id in state.returned \
            or not return_shots(state, target, attacker):
        return state, ()
    pending = PendingReturn(target.id, target.owner, attacker.id)
    return replace(state, phase=Phase.RETURN, pending_return=pending, returned=state.returned + (target.id,)), \
        (ReturnFireOffered(target.name, attacker.name),)


def fire(state: BattlecarsState, firer_id: str, weapon_id: str, target_id: str,
         returning: bool = False) -> tuple[BattlecarsState, tuple]:
    """Fire one round: the range dice against the range; on a hit the d8 damage, on the one section
    the shot can strike or, where several can, on the section the target's driver chooses. Then the
    target may return fire (not at return fire)."""
    firer, target = state.vehicle(firer_id), state.target(target_id)
    weapon = firer.weapon(weapon_id)
    if weapon is None:
        names = ", ".join(w.id for w in firer.weapons())
        raise BadOption(f"{firer.name} has no weapon '{weapon_id}'. Weapons: {names}.")
    plan = plan_shot(state, firer, weapon, target, returning)
    spec = data.rounds()[weapon.load]
    spent = replace(weapon, rounds=weapon.rounds - 1)
    firer = replace(firer, pods=tuple(spent if p.id == weapon.id else p for p in firer.pods),
                    turret=spent if weapon.id == "turret" else firer.turret)
    if not returning:
        firer = replace(firer, fired=firer.fired + (weapon.id,), targets=firer.targets + (target.id,))
    elif state.revision >= RETURN_FIRE_SPENT:
        firer = replace(firer, return_fired=firer.return_fired + (weapon.id,))
    state = state.with_vehicle(firer)
    state, hit, events = _to_hit(state, firer, weapon.label, target, plan.range, plan.dice, plan.modifier)
    if not hit and isinstance(target, Pedestrian) and scenery.takes_misses(state, target.point):
        state, points, rolled = _roll_damage(state, firer.name, spec)
        state, more = scenery.damage(state, target.point, points)
        return _answered(state, firer_id, target_id, events + (rolled,) + more, returning)
    if not hit:
        beyond = _beyond(state, firer, target, spec.max_range)
        if beyond is None:
            return _answered(state, firer_id, target_id, events, returning)
        # Found: "a miss may hit something beyond it". Reconstruction: the range dice again, at its range.
        target, distance = beyond
        events += (ShotFliesOn(firer.name, target.name),)
        state, hit, more = _to_hit(state, firer, weapon.label, target, distance, plan.dice,
                                   aim(state, firer, target))
        events += more[1:]
        if not hit:
            return _answered(state, firer_id, target_id, events, returning)
    state, points, rolled = _roll_damage(state, firer.name, spec)
    flamer = spec.id == "flame" and state.revision >= FLAME_ONLY   # a flame weapon (the extinguisher's)
    return land(state, firer, target, points, spec.flame, returning, events + (rolled,), flamer)


def _roll_damage(state: BattlecarsState, who: str, spec: data.RoundSpec | None,
                 against: str = "a vehicle") -> tuple[BattlecarsState, int, DiceRolled]:
    """A round's damage: its d8s plus its bonus; a pistol's (`spec` None) die against `against`: the d3
    (reconstruction) before revision 6, then the d8 (seed: "All damage uses the D8")."""
    if spec is None:
        die = damage_die(state, D3)
        state, (points,) = roll(state, die)
        return state, points, DiceRolled(who, "rolls damage", f"pistol against {against}: d{len(die)}", f"d{len(die)}",
                                         (points,), points)
    state, faces = roll(state, D8, spec.damage)
    points = sum(faces) + spec.bonus
    rule = f"{spec.name}: {spec.damage}d8" + (f" + {spec.bonus}" if spec.bonus else "")
    return state, points, DiceRolled(who, "rolls damage", rule, "d8", faces, points, modifier=spec.bonus)


def _beyond(state: BattlecarsState, firer: Vehicle, missed: Vehicle | Pedestrian,
            reach: int | None) -> tuple[Vehicle | Pedestrian, int] | None:
    """What a missed shot may hit next: the first vehicle or pedestrian further along the same line,
    within the weapon's reach, with nothing blocking between; None when there is none."""
    origin = point_of(firer)
    facing, distance = required(line_to(origin, point_of(missed)), "no line of fire to", missed.id)
    board = state.the_board
    for k in range(distance + 1, max(board.width, board.height)):
        if reach is not None and k > reach:
            return None
        point = step(origin, facing, k)
        if not board.inside(point):
            return None
        found = next((t for t in targets(state) if t.point == point and t.id != firer.id), None)
        if found is not None:
            blocked = line_blocker(state, origin, facing, k) or _smoke_on_line(state, origin, facing, k)
            return None if blocked else (found, k)
    return None


def _to_hit(state: BattlecarsState, firer: Vehicle | Pedestrian, weapon: str, target: Vehicle | Pedestrian,
            distance: int, dice: int, modifier: int) -> tuple[BattlecarsState, bool, tuple]:
    """Roll the range dice against the range: a total higher than it hits from revision 6 (seed), one
    equal to it too before (found: "equal to or greater than the range")."""
    state, faces = roll(state, D6, dice)
    total = sum(faces) + modifier
    needed = needed_roll(state, distance)
    hit = total >= needed
    why = " + 1 Gunnery Computer" if modifier > 0 else (f" {modifier} at a pedestrian" if modifier < 0 else "")
    reads = ">" if needed > distance else ">="
    return state, hit, (WeaponFired(firer.name, weapon, target.name, distance),
                        DiceRolled(firer.name, "rolls to hit", f"range dice: {dice}d6{why} {reads} range", "d6",
                                   faces, total, distance, hit, modifier))


def land(state: BattlecarsState, firer: Vehicle | Pedestrian, target: Vehicle | Pedestrian, points: int,
         flame: bool, returning: bool, events: tuple, flamer: bool = False) -> tuple[BattlecarsState, tuple]:
    """A hit's `points`: off a pedestrian's health, or onto a vehicle's section (its driver choosing
    where several apply); then the target may answer. `flamer`: a flame weapon's round (revision 5)."""
    if isinstance(target, Pedestrian):
        state, more = wound(state, target.id, points, f"shot by {firer.name}")
        return _answered(state, firer.id, target.id, events + more, returning)
    sections = _sections_asked(state, target, point_of(firer))
    if len(sections) == 1:
        state, more = hit_armour(state, target.id, sections[0], points, flame, flamer=flamer)
        return _answered(state, firer.id, target.id, events + more, returning)
    pending = PendingHit(target.id, target.owner, points, sections, flame, firer.id, returning, flamer)
    return replace(state, phase=Phase.SECTION, pending_hit=pending), events


def _sections_asked(state: BattlecarsState, target: Vehicle, from_point: Point) -> tuple[str, ...]:
    """The sections a hit from `from_point` may strike, among which the target's driver chooses; from revision
    6 only the one facing it when nobody defends the vehicle (an eliminated player's empty vehicle), as for a
    ram, so the game waits on nobody out of it (ruling); before, its player was asked all the same."""
    if state.revision >= NOBODY_ASKED and not defended(state, target):
        return (struck_section(target, from_point),)
    return sections_hit(target, from_point)


def check_pistol(state: BattlecarsState, walker: Pedestrian, target: Vehicle | Pedestrian | None) -> int:
    """The range of a pistol shot, or IllegalShot saying why it cannot be taken."""
    if walker.fired:
        raise IllegalShot(f"{walker.name} has fired this turn.")
    if walker.rounds <= 0:
        raise IllegalShot(f"{walker.name}'s pistol is empty.")
    if target is None or target.id == walker.id or (isinstance(target, Vehicle) and target.destroyed):
        raise IllegalShot("The pistol needs a target: a running vehicle or another pedestrian.")
    return check_line(state, walker.point, tuple(range(8)), target, None, "the pistol")


def pistol(state: BattlecarsState, walker_id: str, target_id: str) -> tuple[BattlecarsState, tuple]:
    """A pedestrian's pistol (reconstruction): once a turn along any line, 2d6 to hit; 1 health off a
    pedestrian, a die's points on a vehicle (the d3; the d8 from revision 6, seed: "All damage uses the D8")."""
    walker = state.pedestrian(walker_id)
    target = state.shootable(target_id)
    distance = check_pistol(state, walker, target)
    assert target is not None   # check_pistol refuses a missing target
    state = state.with_pedestrian(replace(walker, fired=True, rounds=walker.rounds - 1))
    dice = data.table()["pistol_range_dice"]
    state, hit, events = _to_hit(state, walker, "a pistol", target, distance, dice, aim(state, walker, target))
    if not hit and isinstance(target, Pedestrian) and scenery.takes_misses(state, target.point):
        state, points, rolled = _roll_damage(state, walker.name, None, "cover")
        state, more = scenery.damage(state, target.point, points)
        return _answered(state, walker_id, target_id, events + (rolled,) + more, False)
    if not hit:
        return _answered(state, walker_id, target_id, events, False)
    if isinstance(target, Pedestrian):
        return land(state, walker, target, 1, False, False, events)
    state, points, rolled = _roll_damage(state, walker.name, None)
    return land(state, walker, target, points, False, False, events + (rolled,))


def _answered(state: BattlecarsState, firer_id: str, target_id: str, events: tuple,
              returning: bool) -> tuple[BattlecarsState, tuple]:
    """A shot is over: after return fire the move goes on; after the mover's shot, the target may answer."""
    if returning:
        return replace(state, phase=Phase.MOVE, pending_return=None), events
    state, more = offer_return(state, firer_id, target_id)
    return state, events + more


def choose_section(state: BattlecarsState, section: str) -> tuple[BattlecarsState, tuple]:
    """The hit vehicle's driver puts the damage on one of the sections the shot (or the ram) could strike;
    a ram is answered by no return fire."""
    pending = state.open_hit
    wanted = section.strip().lower()
    if wanted not in pending.sections:
        raise BadOption(f"The hit can go on {', '.join(pending.sections)}.")
    state = replace(state, phase=Phase.MOVE, pending_hit=None)
    state, events = hit_armour(state, pending.target, wanted, pending.points, pending.flame, flamer=pending.flamer)
    if pending.ram:
        return state, events
    return _answered(state, pending.attacker, pending.target, events, pending.returning)


def best_section(state: BattlecarsState) -> str:
    """The section a careful driver puts a hit on: the one with most boxes left (the computer's and the
    deadline's choice)."""
    pending = state.open_hit
    target = state.vehicle(pending.target)
    return max(pending.sections, key=lambda s: (target.armour[SECTION_INDEX[s]], -SECTION_INDEX[s]))
