"""Speed, place and hull: gaining and losing speed (the +1/+2 bonus, falling below 300 km/h), damage and
the speed it costs, altitude, places in the move order, and going out of the race."""

from __future__ import annotations

from dataclasses import replace

from rules.race import data
from rules.race.events import Damaged, FellBehind, Out, PlacesSwapped, SpeedChanged
from rules.race.rolls import vehicle_roll
from rules.race.state import RaceState


def floor_speed() -> int:
    return data.table()["start_speed"]


def gain(state: RaceState, racer_id: str, amount: int, why: str, capped: bool) -> tuple[RaceState, tuple]:
    """Add speed; `capped` keeps it at the vehicle's maximum (accelerating, ruling: Turbo Boost and boost
    strips may go beyond it)."""
    racer = state.racer(racer_id)
    after = racer.speed + max(0, amount)
    if capped:
        after = max(racer.speed, min(after, state.vehicle_spec(racer).max_speed))
    state = state.with_racer(replace(racer, speed=after))
    return state, (SpeedChanged(racer.name, why, racer.speed, after),)


def lose(state: RaceState, racer_id: str, amount: int, why: str, bonus: bool = True) -> tuple[RaceState, tuple]:
    """Take speed away. Seed: a drop of 10 km/h or more gives +1 on the next Piloting check, 20 or more +2
    (not for speed spent climbing: `bonus` False); below 300 km/h the racer is passed by the next one in
    the move order and is back at 300."""
    racer = state.racer(racer_id)
    amount = max(0, min(amount, racer.speed))
    if amount == 0:
        return state, ()
    after = racer.speed - amount
    earned = 2 if amount >= 20 else 1 if amount >= 10 else 0
    racer = replace(racer, speed=after, bonus=max(racer.bonus, earned) if bonus else racer.bonus)
    state = state.with_racer(racer)
    events: tuple = (SpeedChanged(racer.name, why, racer.speed + amount, after),)
    if after < floor_speed():
        state, more = _fall_behind(state, racer_id)
        events += more
    return state, events


def _fall_behind(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    racer = state.racer(racer_id)
    behind = state.behind(racer_id)
    state = state.with_racer(replace(racer, speed=floor_speed()))
    if behind is None:
        return state, (FellBehind(racer.name, "nobody", floor_speed()),)
    return swap(state, behind.id, racer_id), (FellBehind(racer.name, behind.name, floor_speed()),)


def set_speed(state: RaceState, racer_id: str, speed: int, why: str, bonus: bool = True) -> tuple[RaceState, tuple]:
    """Make a racer's speed `speed`: a loss goes through `lose`, a gain is not capped."""
    racer = state.racer(racer_id)
    if speed < racer.speed:
        return lose(state, racer_id, racer.speed - speed, why, bonus)
    return gain(state, racer_id, speed - racer.speed, why, capped=False)


def swap(state: RaceState, ahead_now: str, behind_now: str) -> RaceState:
    """`ahead_now` takes the place just in front of `behind_now` (they swap places)."""
    order = list(state.order)
    a, b = order.index(ahead_now), order.index(behind_now)
    order[a], order[b] = order[b], order[a]
    return replace(state, order=tuple(order))


def swapped(state: RaceState, ahead_now: str, behind_now: str) -> tuple[RaceState, tuple]:
    """A pass: the passer and the passed change places."""
    return swap(state, ahead_now, behind_now), (PlacesSwapped(state.racer(ahead_now).name,
                                                              state.racer(behind_now).name),)


def move_to(state: RaceState, racer_id: str, place: int) -> RaceState:
    """Put a racer at `place` (1 first) among those racing, the others keeping their order."""
    racing = [r.id for r in state.racing() if r.id != racer_id]
    place = max(1, min(place, len(racing) + 1))
    racing.insert(place - 1, racer_id)
    out = [r for r in state.order if r not in racing]
    return replace(state, order=tuple(racing + out))


def damage(state: RaceState, racer_id: str, points: int, slows: bool = True) -> tuple[RaceState, tuple]:
    """Damage to a vehicle. Seed: a Vehicle Roll (Constitution) is taken from the damage and the rest,
    rounded down to tens, is speed lost (not for a Turbo Boost: `slows` False). At 0 HP the vehicle is
    wrecked and out of the race (ruling)."""
    racer = state.racer(racer_id)
    if points <= 0 or racer.out:
        return state, ()
    hp = max(0, racer.hp - points)
    state = state.with_racer(replace(racer, hp=hp))
    if hp == 0:
        state, gone = go_out(state, racer_id, "wrecked")
        return state, (Damaged(racer.name, points, 0),) + gone
    if not slows:
        return state, (Damaged(racer.name, points, hp),)
    state, con, rolled = vehicle_roll(state, racer, "con", state.vehicle_spec(racer))
    lost = max(0, (points - con) // 10 * 10)
    events: tuple = (rolled, Damaged(racer.name, points, hp, lost))
    if lost:
        state, more = lose(state, racer_id, lost, "loses speed to the damage")
        events += more
    return state, events


def go_out(state: RaceState, racer_id: str, why: str) -> tuple[RaceState, tuple]:
    """A racer leaves the race (wrecked, disqualified, fell); the standings remember when."""
    racer = state.racer(racer_id)
    if racer.out:
        return state, ()
    state = replace(state, step=state.step + 1)
    return state.with_racer(replace(racer, out=why, out_order=state.step)), (Out(racer.name, why),)


def change_altitude(state: RaceState, racer_id: str, metres: int) -> tuple[RaceState, tuple]:
    """Seed: climbing costs 2 (km/h) of speed a metre, and does not earn the speed-loss bonus; falling
    gains 1 a 2 metres (ruling: 'meters of speed' are km/h). The ceiling caps a climb; 1 m is the floor.
    From revision 4 the ceiling caps only a climb: a racer a trampoline lifted over it climbs no higher,
    and drops what it asks; before, either brought it down to the ceiling."""
    racer = state.racer(racer_id)
    spec = state.vehicle_spec(racer)
    ceiling = max(spec.ceiling, racer.altitude) if state.revision >= 4 else spec.ceiling
    target = max(data.table()["hover_altitude"], min(ceiling, racer.altitude + metres))
    if target == racer.altitude:
        return state, ()
    state = state.with_racer(replace(racer, altitude=target))
    if target > racer.altitude:
        state, events = lose(state, racer_id, 2 * (target - racer.altitude), "climbs", bonus=False)
    else:
        state, events = gain(state, racer_id, (racer.altitude - target) // 2, "dives", capped=False)
    moved = state.racer(racer_id)
    return state, tuple(replace(e, altitude=moved.altitude) if isinstance(e, SpeedChanged) and e.name == racer.name
                        else e for e in events)
