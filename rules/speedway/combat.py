"""Firing offensive weapons: arc, range, line of sight, the to-hit roll and damage (seed: Weapons)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules.dice import roll_d6
from rules.errors import BadOption
from rules.hexgrid import Hex
from rules.speedway import data
from rules.speedway.damage import damage_car
from rules.speedway.errors import IllegalShot
from rules.speedway.events import DiceRolled, WeaponFired
from rules.speedway.geometry import in_arc, line_of_sight, midpoint, range_hexes
from rules.speedway.odds import hit_chance
from rules.speedway.state import SEED_FIDELITY, Car, SpeedwayState, Weapon
from rules.table import looks_like_an_id, plural


@dataclass(frozen=True)
class ShotPlan:
    """A legal shot before the dice: weapon, target, range, dice and the chance to hit."""

    weapon: Weapon
    target: Car
    range_hexes: int
    to_hit_dice: int
    targeting: int
    chance: float
    damage_dice: tuple[str, ...]


def find_weapon(car: Car, name: str) -> Weapon:
    """A car's weapon by mount ('front') or by (the start of) its name ('vulcan')."""
    wanted = name.strip().lower()
    by_mount = [w for w in car.weapons if w.mount.lower() == wanted]
    by_name = [w for w in car.weapons if w.name.lower().startswith(wanted)] if wanted else []
    matches = by_mount or by_name
    if len(matches) != 1:
        options = ", ".join(f"{w.mount.lower()} ({w.name})" for w in car.weapons)
        raise BadOption(f"{car.name} has no single weapon '{name}'. Weapons: {options}.")
    return matches[0]


def find_target(state: SpeedwayState, text: str, shooter: Car | None = None) -> Car:
    """The car a shot or a question names (revision 2): its id ('c2') first, then a car's name, then
    its driver's name when that driver has one car. A name that fits several cars is refused."""
    wanted = text.strip().casefold()
    by_id = [c for c in state.cars if c.id.casefold() == wanted]
    if by_id:
        return by_id[0]
    by_name = [c for c in state.cars if c.name.casefold() == wanted]
    by_driver = [c for c in state.cars if (p := state.player(c.owner)) and p.name.casefold() == wanted]
    for found in (by_name, by_driver):
        if len(found) == 1:
            return found[0]
        if found:
            raise BadOption(f"'{text.strip()}' could be {_car_list(found)}: name the car by its id, "
                            f"e.g. target:{found[0].id}.")
    others = [c for c in state.cars if shooter is None or c.id != shooter.id]
    if not wanted:
        raise BadOption(f"Name the target car by its id or its name. Cars: {_car_list(others)}.")
    raise BadOption(f"No car called '{text.strip()}'. Cars: {_car_list(others)}.")


def target_value(state: SpeedwayState, car: Car) -> str:
    """How a command names a target car: by its id. In a revision 1 game a name may also look like an
    id (a player called c2), and a name is read first there: such a game keeps naming cars by name."""
    names = [c.name for c in state.cars] + [p.name for p in state.players]
    if state.revision >= 2 or not any(looks_like_an_id(name) for name in names):
        return car.id
    return car.name


def _car_list(cars: list[Car]) -> str:
    """'alice (c1), Robo2 (c2)'."""
    return ", ".join(f"{c.name} ({c.id})" for c in cars) or "none"


def sight_blockers(state: SpeedwayState, firer: Car, target: Car) -> frozenset[Hex]:
    """Hexes that block a shot between these two cars: other cars and smoke (from revision 3, not the
    firer's own smoke while it is still immune to it: RULES.md, Defensive Weapons)."""
    cars = {h for c in state.cars if c.id not in (firer.id, target.id) for h in c.hexes}
    smoke = {hz.hex for hz in state.hazards if hz.kind == "smoke"
             and (state.revision < SEED_FIDELITY or hz.owner != firer.id or hz.owner_clear)}
    return frozenset(cars | smoke)


def targeting(car: Car) -> int:
    """The car's Targeting rating now: its sheet's, less the paint it drove through this turn."""
    rating = car.systems.rating("targeting")
    if car.painted:
        rating = max(0, rating - data.collision_rules()["hazards"]["paint_targeting_loss"])
    return rating


def plan_shot(state: SpeedwayState, car: Car, weapon: Weapon, target: Car) -> ShotPlan:
    """Check every condition of a shot; a refusal says which one fails."""
    if not weapon.offensive:
        raise IllegalShot(f"{weapon.name} is a defensive weapon: use /drop weapon:{weapon.mount.lower()}.")
    if not weapon.working:
        raise IllegalShot(f"{weapon.label} is destroyed.")
    if weapon.mount in car.fired:
        raise IllegalShot(f"{weapon.label} has already fired this turn.")
    if target.id == car.id:
        raise IllegalShot("A car cannot shoot itself.")
    if target.out:
        raise IllegalShot(f"{target.name} is already out of the game.")
    if not in_arc(car, weapon.mount, target):
        raise IllegalShot(f"{target.name} is not in {car.name}'s {weapon.mount} arc.")
    spec = data.offensive_weapons()[weapon.name]
    distance = range_hexes(car, target)
    if distance > spec.max_range:
        raise IllegalShot(f"{target.name} is {distance} hexes away; {weapon.name} reaches {spec.max_range}.")
    if not line_of_sight(car, target, data.arena(state.arena), sight_blockers(state, car, target)):
        raise IllegalShot(f"No clear line of sight from {car.name} to {target.name}.")
    dice = len(weapon.track.boxes) - weapon.track.crossed
    aim = targeting(car)
    return ShotPlan(weapon, target, distance, dice, aim, hit_chance(dice, aim, distance), spec.dice_at(distance))


def legal_shots(state: SpeedwayState, car: Car) -> tuple[ShotPlan, ...]:
    """Every shot the car could take now."""
    plans = []
    for weapon in car.weapons:
        if not weapon.offensive or not weapon.working or weapon.mount in car.fired:
            continue
        for target in state.cars:
            try:
                plans.append(plan_shot(state, car, weapon, target))
            except IllegalShot:
                continue
    return tuple(plans)


def fire(state: SpeedwayState, car: Car, plan: ShotPlan) -> tuple[SpeedwayState, tuple]:
    """Roll to hit (d6 per undamaged box + Targeting >= range); on a hit, roll its damage."""
    dice, faces = roll_d6(state.dice, plan.to_hit_dice)
    total = sum(faces) + plan.targeting
    hit = total >= plan.range_hexes
    roll = DiceRolled(car.name, "rolls to hit",
                      "to hit: d6 per undamaged box + Targeting >= range", "d6", faces, total,
                      plan.range_hexes, hit, modifier=plan.targeting, car_id=car.id)
    fired = replace(car, fired=car.fired + (plan.weapon.mount,))
    state = replace(state.with_car(fired), dice=dice)
    events: tuple = (WeaponFired(car.name, plan.weapon.label, plan.target.name, plan.range_hexes,
                                 car_id=car.id, target_id=plan.target.id), roll)
    if hit:
        source = f"{plan.weapon.name} at {plural(plan.range_hexes, 'hex', 'hexes')}"
        state, damage, _taken = damage_car(state, plan.target.id, plan.damage_dice, source, midpoint(car))
        events += damage
    return state, events
