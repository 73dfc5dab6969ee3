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

From rules revision 6 the 3 dice are d8s ("All damage uses the D8"; d6s before), and the rammed vehicle's
driver decides which zone is hit ("the defending player decides which zone is hit"): the sections a shot
from the rammer's point could strike, the driver choosing where several apply (before, the one section of
the ram's kind, which a wreck and an eliminated player's empty vehicle still take: nobody defends them).
"""

from __future__ import annotations

from dataclasses import replace

from rules.battlecars.damage import SECTION_INDEX, defended, hit_armour, sections_hit
from rules.battlecars.events import DiceRolled, Rammed
from rules.battlecars.grid import Point, bearing, label
from rules.battlecars.rolls import D6, damage_die, roll
from rules.battlecars.state import REVERSE, BattlecarsState, PendingHit, Phase, Vehicle, point_of

KINDS = {0: "head-on", 1: "head-on", 7: "head-on", 2: "side", 6: "side", 3: "shunt", 4: "shunt", 5: "shunt"}
SECTION = {"head-on": "front", "side": "middle", "shunt": "rear"}
TANK_EITHER_WAY = 4   # the rules revision from which a ramming tank takes the tank's share too
FULL_ON_A_TANK = 5    # the rules revision from which crash bars do not halve what a rammer takes from a tank
RAMMED_CHOOSES = 6    # the rules revision from which the rammed vehicle's driver chooses the section struck


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


def struck_section(rammed: Vehicle, from_point: Point) -> str:
    """The one section a blow from `from_point` strikes where nobody chooses (a ram before revision 6): the
    one its kind of ram names, facing it; a side blow on a vehicle with no middle (a bike) strikes whichever
    of front and rear has more boxes left (ruling)."""
    section = SECTION[KINDS[bearing(point_of(rammed), rammed.facing, from_point)]]
    if rammed.spec.armour[SECTION_INDEX[section]] == 0:
        section = max(("front", "rear"), key=lambda s: rammed.armour[SECTION_INDEX[s]])
    return section


def struck_sections(state: BattlecarsState, rammer: Vehicle, rammed: Vehicle) -> tuple[str, ...]:
    """The rammed vehicle's sections the ram may strike: from revision 6 those a shot from the rammer's
    point may (seed: "the defending player decides which zone is hit") unless nobody defends the vehicle (a
    wreck, or an eliminated player's empty vehicle); then, and before revision 6, the one of the ram's kind."""
    if state.revision >= RAMMED_CHOOSES and defended(state, rammed):
        return sections_hit(rammed, point_of(rammer))
    return (struck_section(rammed, point_of(rammer)),)


def ram(state: BattlecarsState, rammer_id: str, rammed_id: str) -> tuple[BattlecarsState, tuple]:
    """Resolve a ram: roll 3 dice, add or take the speeds by kind, damage both, stop the rammer dead (and
    the rammed vehicle too when head on). Where the ram may strike several sections of the rammed vehicle
    (revision 6 on), the rammer takes its share at once and the rammed vehicle's driver chooses where
    theirs lands, as for a shot (no return fire follows)."""
    rammer, rammed = state.vehicle(rammer_id), state.vehicle(rammed_id)
    kind = ram_kind(rammer, rammed)
    die = damage_die(state, D6)
    state, faces = roll(state, die, 3)
    if kind == "head-on":
        modifier, rule = _speed(rammer) + _speed(rammed), f"3d{len(die)} + both speeds"
    elif kind == "side":
        modifier, rule = _speed(rammer), f"3d{len(die)} + rammer's speed"
    else:
        modifier, rule = -_speed(rammed), f"3d{len(die)} - rammed vehicle's speed"
    total = max(0, sum(faces) + modifier)
    to_rammer, to_rammed = damages(kind, total, rammer, rammed, state.revision)
    events: tuple = (Rammed(rammer.name, rammed.name, kind, label(point_of(rammed))),
                     DiceRolled(rammer.name, f"rolls the {kind} ram", rule, f"d{len(die)}", faces, total,
                                modifier=modifier))
    reversing = rammer.speed == REVERSE
    sections = struck_sections(state, rammer, rammed)
    state = state.with_vehicle(replace(state.vehicle(rammer_id), speed=0, drift=0))
    if kind == "head-on":
        state = state.with_vehicle(replace(state.vehicle(rammed_id), speed=0, drift=0))
    asked = to_rammed > 0 and len(sections) > 1
    if to_rammed and not asked:
        state, more = hit_armour(state, rammed_id, sections[0], to_rammed)
        events += more
    if to_rammer:
        state, more = hit_armour(state, rammer_id, "rear" if reversing else "front", to_rammer)
        events += more
    if asked:
        pending = PendingHit(rammed_id, rammed.owner, to_rammed, sections, False, rammer_id, ram=True)
        state = replace(state, phase=Phase.SECTION, pending_hit=pending)
    return state, events
