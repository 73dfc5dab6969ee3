"""Defensive weapons and their counters: mines, oil slicks and smoke (seed: Defensive Weapons)."""

from __future__ import annotations

from dataclasses import replace

from rules.hexgrid import Hex, distance, label, step
from rules.speedway import data
from rules.speedway.damage import damage_car
from rules.speedway.driving import driver_roll
from rules.speedway.errors import IllegalDeployment
from rules.speedway.events import CarPainted, HazardLaid, HazardRemoved, InertiaGained, MineExploded
from rules.speedway.geometry import centre
from rules.speedway.state import SEED_FIDELITY, WHERE_RULES_MEET, Car, Hazard, SpeedwayState, Weapon


def _behind(car: Car) -> Hex:
    """The hex directly behind the car's back half."""
    return step(car.back_hex, car.facing + 3)


def _smoke_hexes(car: Car) -> tuple[Hex, ...]:
    """RECONSTRUCTION: the lost smoke pattern is a fan of three hexes behind the back half."""
    return (_behind(car), step(car.back_hex, car.facing + 2), step(car.back_hex, car.facing + 4))


def _free(state: SpeedwayState, h: Hex, kind: str) -> bool:
    """A counter goes on an open hex with no car and no counter of its own kind."""
    occupied = {x for c in state.cars for x in c.hexes}
    same = {hz.hex for hz in state.hazards if hz.kind == kind}
    return data.arena(state.arena).is_open(h) and h not in occupied and h not in same


def _lay(state: SpeedwayState, car: Car, kind: str, h: Hex) -> tuple[SpeedwayState, tuple]:
    hazard = Hazard(state.next_hazard_id, kind, h, car.id)
    state = replace(state, hazards=state.hazards + (hazard,), next_hazard_id=state.next_hazard_id + 1)
    return state, (HazardLaid(car.name, kind, label(h)),)


def deploy_spots(state: SpeedwayState, car: Car, weapon: Weapon) -> tuple[Hex, ...]:
    """The open hexes a defensive weapon would lay its counters in."""
    kind = data.defensive_weapons()[weapon.name].hazard
    spots = _smoke_hexes(car) if kind == "smoke" else (_behind(car),)
    return tuple(h for h in spots if _free(state, h, kind))


def can_deploy(state: SpeedwayState, car: Car, weapon: Weapon) -> bool:
    """True when the weapon could be deployed now."""
    return (not weapon.offensive and weapon.working and weapon.mount not in car.fired
            and bool(deploy_spots(state, car, weapon)))


def deploy(state: SpeedwayState, car: Car, weapon: Weapon) -> tuple[SpeedwayState, tuple]:
    """Fire a defensive weapon: lay its counters behind the car and spend a charge."""
    if weapon.charges is None:   # an offensive weapon: it has no charges
        raise IllegalDeployment(f"{weapon.name} is an offensive weapon: use /fire.")
    if not weapon.working:
        reason = "has no charges left" if weapon.charges == 0 else "is destroyed"
        raise IllegalDeployment(f"{weapon.label} {reason}.")
    if weapon.mount in car.fired:
        raise IllegalDeployment(f"{weapon.label} has already been used this turn.")
    spec = data.defensive_weapons()[weapon.name]
    spots = deploy_spots(state, car, weapon)
    if not spots:
        raise IllegalDeployment(f"There is no open hex behind {car.name} for {weapon.name}.")
    index = car.weapons.index(weapon)
    spent = replace(weapon, charges=weapon.charges - 1)
    car = replace(car, weapons=car.weapons[:index] + (spent,) + car.weapons[index + 1:],
                  fired=car.fired + (weapon.mount,),
                  oil_drops_left=spec.follow_up_moves if spec.hazard == "oil" else car.oil_drops_left)
    state = state.with_car(car)
    events: tuple = ()
    for h in spots:
        state, laid = _lay(state, car, spec.hazard, h)
        events += laid
    return state, events


def after_move(state: SpeedwayState, car_id: str) -> tuple[SpeedwayState, tuple]:
    """After each Move: an oil slick still flowing lays its next counter behind the car."""
    car = state.car(car_id)
    if car.oil_drops_left <= 0 or car.out:
        return state, ()
    state = state.with_car(replace(car, oil_drops_left=car.oil_drops_left - 1))
    if not _free(state, _behind(car), "oil"):
        return state, ()
    return _lay(state, state.car(car_id), "oil", _behind(car))


def _update_immunity(state: SpeedwayState, car: Car) -> SpeedwayState:
    """The layer is immune until it has been more than one hex away from its counter."""
    hazards = tuple(
        replace(hz, owner_clear=True)
        if hz.owner == car.id and not hz.owner_clear and min(distance(h, hz.hex) for h in car.hexes) > 1
        else hz
        for hz in state.hazards)
    return replace(state, hazards=hazards)


def affects(hz: Hazard, car: Car) -> bool:
    """Whether a counter acts on a car: always, except on the car that laid it while that car has not
    yet moved more than one hex away (seed: "The firing car is immune from the hazard ...")."""
    return hz.owner != car.id or hz.owner_clear


def inertia_entered(state: SpeedwayState, car: Car, entered: tuple[Hex, ...]) -> dict[str, int]:
    """The inertia `car` gains entering these hexes, by kind of counter (oil, debris, water), as car_entered
    gives it (and a plan's preview counts it before the skid odds)."""
    gained = {}
    for kind, per_hex in data.collision_rules()["hazards"]["inertia_per_hex"].items():
        hexes = {hz.hex for hz in state.hazards if hz.kind == kind and hz.hex in entered and affects(hz, car)}
        if hexes:
            gained[kind] = len(hexes) * per_hex
    return gained


def car_entered(state: SpeedwayState, car_id: str, entered: tuple[Hex, ...]) -> tuple[SpeedwayState, tuple]:
    """Resolve the counters a car meets on entering hexes: oil, debris and water (inertia), paint,
    smoke, then mines."""
    state = _update_immunity(state, state.car(car_id))
    events: tuple = ()
    entered_set = set(entered)
    rules = data.collision_rules()["hazards"]
    for kind, gained in inertia_entered(state, state.car(car_id), entered).items():
        car = state.car(car_id)
        state = state.with_car(replace(car, inertia=car.inertia + gained))
        events += (InertiaGained(car.name, gained, kind),)
    car = state.car(car_id)
    if not car.painted and any(hz.kind == "paint" and hz.hex in entered_set and affects(hz, car)
                               for hz in state.hazards):
        state = state.with_car(replace(car, painted=True))
        events += (CarPainted(car.name, rules["paint_targeting_loss"]),)
    car = state.car(car_id)
    smoke = [hz for hz in state.hazards if hz.kind == "smoke" and hz.hex in entered_set]
    if smoke:
        gone = {hz.id for hz in smoke}
        state = replace(state, hazards=tuple(hz for hz in state.hazards if hz.id not in gone))
        events += tuple(HazardRemoved("smoke", label(hz.hex), f"{car.name} drove through") for hz in smoke)
    for mine in [hz for hz in state.hazards if hz.kind == "mine"]:
        car = state.car(car_id)
        near = any(distance(h, mine.hex) <= 1 for h in entered_set)
        if car.out or not near or car.id in mine.checked or not affects(mine, car):
            continue
        state, more = _check_mine(state, car, mine)
        events += more
    return state, events


def _check_mine(state: SpeedwayState, car: Car, mine: Hazard) -> tuple[SpeedwayState, tuple]:
    """A Driver Roll against 3; a failure sets the mine off against every car on or next to it."""
    target = data.collision_rules()["hazards"]["mine_driver_target"]
    state, roll = driver_roll(state, car, target, f"passes the mine at {label(mine.hex)}", "mine: Driver Roll vs 3")
    if roll.success:
        checked = replace(mine, checked=mine.checked + (car.id,))
        return replace(state, hazards=tuple(checked if hz.id == mine.id else hz for hz in state.hazards)), (roll,)
    state = replace(state, hazards=tuple(hz for hz in state.hazards if hz.id != mine.id))
    events: tuple = (roll, MineExploded(label(mine.hex)))
    victims = [c.id for c in state.cars if any(distance(h, mine.hex) <= 1 for h in c.hexes)
               and (state.revision < SEED_FIDELITY or affects(mine, c))]
    for victim in victims:
        state, damage, _taken = damage_car(state, victim, tuple(data.collision_rules()["mine"]),
                                           f"mine at {label(mine.hex)}", centre(mine.hex))
        events += damage
    return state, events


def clear_smoke_of(state: SpeedwayState, player_id: str) -> tuple[SpeedwayState, tuple]:
    """Upkeep step 5: the player's smoke from the previous turn blows away (and any wreck's smoke,
    whose owner has no Upkeep left to clear it). Before revision 5 every wreck's smoke went, even one
    whose owner still drives another car and so clears it at their own next Upkeep."""
    wrecks = {c.id for c in state.cars if c.out
              and (state.revision < WHERE_RULES_MEET or not state.operable_cars_of(c.owner))}
    cars = {c.id for c in state.cars_of(player_id)} | wrecks
    gone = [hz for hz in state.hazards if hz.kind == "smoke" and hz.owner in cars]
    if not gone:
        return state, ()
    state = replace(state, hazards=tuple(hz for hz in state.hazards if hz not in gone))
    return state, tuple(HazardRemoved("smoke", label(hz.hex), "it blew away") for hz in gone)
