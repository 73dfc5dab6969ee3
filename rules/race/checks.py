"""Difficulty and Piloting checks: a section's DC for a racer at their altitude (type, conditions, a
GM's change), the check itself with the speed penalty and the bonuses it uses up, and the hazards a
failed check throws a racer into."""

from __future__ import annotations

from dataclasses import replace

from rules.race import data
from rules.race.events import DiceRolled, HazardHit, PlacesLost
from rules.race.rolls import d20, damage_dice, dice
from rules.race.speed import damage, go_out, lose, move_to, set_speed
from rules.race.state import Racer, RaceState


def condition_reach(condition: data.Condition) -> str | None:
    """Ruling (4.2.4 rule 3): 'above' (at or above its altitude: wind, storms) or 'below' (fog); None for
    a condition that applies at every altitude."""
    where = data.table()["conditions"][condition.kind]["applies"]
    return None if condition.altitude == 0 or where == "all" else where


def condition_applies(condition: data.Condition, altitude: int) -> bool:
    """Whether a condition acts on a racer at `altitude`."""
    reach = condition_reach(condition)
    if reach is None:
        return True
    return altitude >= condition.altitude if reach == "above" else altitude < condition.altitude


def condition_words(condition: data.Condition) -> str:
    """A condition as racers are told it: its kind and where it applies, never what it adds to a DC."""
    kind, reach = condition.kind.replace("_", " "), condition_reach(condition)
    if reach is None:
        return kind
    return f"{kind} at {condition.altitude} m and above" if reach == "above" else f"{kind} below {condition.altitude} m"


def condition_dc(section: data.Section, altitude: int) -> int:
    """Seed: each condition adds to the DC of a section and of its features."""
    return sum(data.table()["conditions"][c.kind]["dc"] for c in section.conditions if condition_applies(c, altitude))


def section_dc(state: RaceState, section_index: int, altitude: int, changed: bool = True) -> int:
    """A section's Piloting DC at `altitude`: its type's base, its conditions there, and (when `changed`)
    a seated GM's change."""
    section = state.the_track.sections[section_index]
    change = sum(d for s, d in state.dc_changes if s == section_index) if changed else 0
    return max(0, data.table()["section_types"][section.type] + condition_dc(section, altitude) + change)


def needs_check(state: RaceState, racer: Racer) -> bool:
    """Seed: a straight section with no condition making it difficult does not prompt a check.

    From revision 2 the conditions decide, as the seed says, and never a seated GM's private change to
    the DC: a check that appeared only because the GM raised the DC would tell the racers so."""
    section = state.the_section
    if section.type != "straight":
        return True
    if state.revision >= 2:
        return condition_dc(section, racer.altitude) > 0
    return section_dc(state, state.section, racer.altitude) > 0


def check_dc(state: RaceState, racer: Racer) -> int:
    """The DC of the section's check made again "as at the beginning of the section" (a boost trap's).

    From revision 5 the GM's private change counts only where the conditions bring a check, as at the
    beginning (revision 2's ruling): where they bring none, the conditions alone set the DC, so the check
    tells nobody the GM changed it. Before, the GM's change always counted."""
    changed = state.revision < 5 or needs_check(state, racer)
    return section_dc(state, state.section, racer.altitude, changed)


def feature_dc(state: RaceState, feature: data.Feature, altitude: int) -> int:
    """A feature's DC: its own, plus the section's conditions at `altitude` (seed)."""
    return feature.dc + condition_dc(state.the_section, altitude)


def piloting(state: RaceState, racer_id: str, purpose: str, dc: int | None = None, extra: tuple = (),
             advantage: bool = False, disadvantage: bool = False) -> tuple[RaceState, int, DiceRolled]:
    """An Intelligence (Piloting) check: the pilot's bonus, Table 2's speed penalty, and the bonus for
    speed lost and the hand-weapon penalty, both used up by it. Against `dc`, meeting it is success
    (ruling); the event tells the verdict, never the DC."""
    racer = state.racer(racer_id)
    pilot = state.pilot_spec(racer)
    modifiers = (("Piloting", pilot.piloting), ("speed", data.speed_penalty(racer.speed)),
                 ("speed lost", racer.bonus), ("hand weapon", -racer.penalty)) + extra
    state = state.with_racer(replace(racer, bonus=0, penalty=0))
    verdict = None if dc is None else (lambda total: "made it" if total >= dc else "missed")
    return d20(state, racer.name, purpose, modifiers, advantage, disadvantage, verdict)


def hazard_for(section: data.Section, altitude: int) -> data.Hazard:
    """Ruling (4.2.4 rule 4): at or below the hazard's height a racer hits it; above, the secondary
    hazard when one is listed."""
    if altitude > section.hazard.height and section.secondary is not None:
        return section.secondary
    return section.hazard


def severity_dice(state: RaceState, severity: str) -> int:
    """The d10s of the damage severity table's column, on the track's league row (found: DMG p.249)."""
    return data.table()["leagues"][state.the_track.league][severity]


def hit_hazard(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    """A racer who failed the section's check (or was side swept) meets its hazard (seed)."""
    racer = state.racer(racer_id)
    hazard = hazard_for(state.the_section, racer.altitude)
    events: tuple = (HazardHit(racer.name, hazard.what),)
    if hazard.kind == "deep_trench":
        state, more = go_out(state, racer_id, "fell")
        return state, events + more
    if hazard.severity:
        count = severity_dice(state, hazard.severity)
        state, points, rolled = damage_dice(state, racer.name, f"{hazard.severity} damage", count, 10)
        state, more = damage(state, racer_id, points)
        events += (rolled,) + more
    if hazard.speed_die and not state.racer(racer_id).out:
        state, (face,) = dice(state, 1, hazard.speed_die)
        events += (DiceRolled(racer.name, "speed lost", f"d{hazard.speed_die} x 10", (face,), face * 10),)
        state, more = lose(state, racer_id, face * 10, f"loses speed in the {hazard.what}")
        events += more
    if hazard.kind == "ditch" and not state.racer(racer_id).out:
        state, more = _ditch(state, racer_id)
        events += more
    if hazard.rejoin and not state.racer(racer_id).out:
        # From revision 4 the rejoin's speed is set like any other (seed: a speed "reduced by at least
        # 10 km/h by any means" earns the speed-loss bonus); before, it was written over with no bonus.
        state = move_to(state, racer_id, len(state.racing()))
        if state.revision >= 4:
            state, told = set_speed(state, racer_id, data.table()["start_speed"], "rejoins the track last")
            events += told
        else:
            state = state.with_racer(replace(state.racer(racer_id), speed=data.table()["start_speed"]))
        events += (PlacesLost(racer.name, 0, len(state.racing())),)
    return state, events


def _ditch(state: RaceState, racer_id: str) -> tuple[RaceState, tuple]:
    """Seed: the racer loses d8 places and is back on the track at the speed of the one it is set after.
    From revision 3 that speed is set like any other (a loss of 10 km/h or more earns the speed-loss
    bonus, seed: "reduced ... by any means"); before, it was written over with no bonus."""
    racer = state.racer(racer_id)
    state, (face,) = dice(state, 1, 8)
    place = min(state.position(racer_id) + face, len(state.racing()))
    state = move_to(state, racer_id, place)
    events: tuple = (DiceRolled(racer.name, "places lost", "d8", (face,), face), PlacesLost(racer.name, face, place))
    ahead = state.ahead_of(racer_id)
    if ahead is not None and state.revision >= 3:
        state, told = set_speed(state, racer_id, ahead.speed, "back on the track")
        events += told
    elif ahead is not None:
        state = state.with_racer(replace(state.racer(racer_id), speed=ahead.speed))
    return state, events
