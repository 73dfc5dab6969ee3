"""Rams: a vehicle driving (or drifting) into another's point. Seed:

- "Ramming (Head On): Roll 3 dice plus both vehicles' speed. Both vehicles take full damage. Speed drops to 0."
- "Ramming (Side Ram): Roll 3 dice plus rammer's speed. Rammed vehicle takes full damage; rammer takes half
  (rounded down)."
- "Ramming (Shunt Ram): Roll 3 dice minus rammed vehicle's speed. Rammed vehicle takes full damage; rammer
  takes half (rounded down)."
- "A vehicle comes to a dead stop after a crash or ram."
- "Rammers take full damage when hitting a tank; the tank takes no damage from side or shunt rams and
  half damage from head-on collisions."

Which ram it is follows where the rammer comes from, seen from the rammed vehicle (ruling): from its
front or a front quarter, head on; from either side, a side ram; from behind or a rear quarter, a shunt.
The rammed vehicle takes the damage on that section; the rammer on its front (its rear when reversing).
Crash bars halve the damage their vehicle takes in a ram (reconstruction).

From rules revision 5 a rammer's crash bars do not halve what it takes hitting a tank: "Rammers take full
damage when hitting a tank" (earlier revisions halved it).

From rules revision 4 the tank's exceptions hold whichever vehicle rams, as the sentence says them of
the tank and the vehicle table calls it "immune to side/shunt rams": a tank that rams takes nothing in a
side or shunt ram and half head on, even when it rams a tank. Earlier revisions gave them only to a
rammed tank (a ramming tank took full damage head on, half otherwise, and all of it hitting a tank).
"""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars.damage import SECTION_INDEX, hit_armour
from rules.battlecars.events import DiceRolled, Rammed
from rules.battlecars.grid import bearing, label
from rules.battlecars.rolls import D6, roll
from rules.battlecars.state import REVERSE, BattlecarsState, Vehicle, point_of

KINDS = {0: "head-on", 1: "head-on", 7: "head-on", 2: "side", 6: "side", 3: "shunt", 4: "shunt", 5: "shunt"}
SECTION = {"head-on": "front", "side": "middle", "shunt": "rear"}
TANK_EITHER_WAY = 4   # the rules revision from which a ramming tank takes the tank's share too
FULL_ON_A_TANK = 5    # the rules revision from which crash bars do not halve what a rammer takes from a tank


def _speed(vehicle: Vehicle) -> int:
    """A vehicle's speed for a ram: its counter, 1 in reverse, 0 on a three-point turn."""
    return 1 if vehicle.speed == REVERSE else max(0, vehicle.speed)


def ram_kind(rammer: Vehicle, rammed: Vehicle) -> str:
    """head-on, side or shunt, from where the rammer is seen from the rammed vehicle."""
    return KINDS[bearing(point_of(rammed), rammed.facing, point_of(rammer))]


def _tank_share(kind: str, total: int) -> int:
    """What a tank takes of a ram's total: nothing from a side or shunt ram, half head on."""
    return total // 2 if kind == "head-on" else 0


def damages(kind: str, total: int, rammer: Vehicle, rammed: Vehicle, revision: int) -> tuple[int, int]:
    """(to the rammer, to the rammed) from the ram's total, with the tank's exceptions (for a ramming
    tank too from revision 4) and crash bars. From revision 5 a rammer hitting a tank takes the full
    damage (seed) even with crash bars; before, they halved it."""
    to_rammer = total if kind == "head-on" else total // 2
    to_rammed = total
    if rammed.spec.type == "tank":
        to_rammer = total
        to_rammed = _tank_share(kind, total)
    if rammer.spec.type == "tank" and revision >= TANK_EITHER_WAY:
        to_rammer = _tank_share(kind, total)
    full = rammed.spec.type == "tank" and rammer.spec.type != "tank" and revision >= FULL_ON_A_TANK
    if rammer.has("crash_bars") and not full:
        to_rammer //= 2
    if rammed.has("crash_bars"):
        to_rammed //= 2
    return to_rammer, to_rammed


def struck_section(kind: str, rammed: Vehicle) -> str:
    """The rammed vehicle's section a ram of `kind` strikes; a side ram on a vehicle with no middle (a
    bike) strikes whichever of front and rear has more boxes left (its driver's choice, ruling)."""
    section = SECTION[kind]
    if rammed.spec.armour[SECTION_INDEX[section]] == 0:
        section = max(("front", "rear"), key=lambda s: rammed.armour[SECTION_INDEX[s]])
    return section


def ram(state: BattlecarsState, rammer_id: str, rammed_id: str) -> tuple[BattlecarsState, tuple]:
    """Resolve a ram: roll 3d6, add or take the speeds by kind, damage both, stop the rammer dead (and
    the rammed vehicle too when head on)."""
    rammer, rammed = state.vehicle(rammer_id), state.vehicle(rammed_id)
    kind = ram_kind(rammer, rammed)
    state, faces = roll(state, D6, 3)
    if kind == "head-on":
        modifier, rule = _speed(rammer) + _speed(rammed), "3d6 + both speeds"
    elif kind == "side":
        modifier, rule = _speed(rammer), "3d6 + rammer's speed"
    else:
        modifier, rule = -_speed(rammed), "3d6 - rammed vehicle's speed"
    total = max(0, sum(faces) + modifier)
    to_rammer, to_rammed = damages(kind, total, rammer, rammed, state.revision)
    events: tuple = (Rammed(rammer.name, rammed.name, kind, label(point_of(rammed))),
                     DiceRolled(rammer.name, f"rolls the {kind} ram", rule, "d6", faces, total, modifier=modifier))
    reversing = rammer.speed == REVERSE
    state = state.with_vehicle(replace(state.vehicle(rammer_id), speed=0, drift=0))
    if kind == "head-on":
        state = state.with_vehicle(replace(state.vehicle(rammed_id), speed=0, drift=0))
    if to_rammed:
        state, more = hit_armour(state, rammed_id, struck_section(kind, rammed), to_rammed)
        events += more
    if to_rammer:
        state, more = hit_armour(state, rammer_id, "rear" if reversing else "front", to_rammer)
        events += more
    return state, events
