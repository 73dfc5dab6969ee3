"""Computer racers and the deadline's autopilot. A computer racer plays by what a racer can know: the
hints, the speeds and places, its own stat block; it never reads a DC."""

from __future__ import annotations

from typing import Any

from rules.race import data, flow, maneuvers
from rules.race.actions import Act, GmReveal, GmRule, Prepare, React, Stabilize, Throttle, TryFeature, Tune
from rules.race.state import Phase, Racer, RaceState

SECTION_RISK = {"straight": 0, "curved": 1, "twisted": 2, "maze": 3}


def comfort_speed(state: RaceState, racer: Racer) -> int:
    """The speed a racer is happy to take into the next section: more for a better pilot, less for a
    harder section type; never above the vehicle's maximum."""
    pilot = state.pilot_spec(racer)
    risk = SECTION_RISK[state.the_section.type]
    return min(state.vehicle_spec(racer).max_speed, 350 + 25 * pilot.piloting - 50 * risk)


def _trap_seen(state: RaceState, racer: Racer) -> bool:
    return flow.trap_key(state.section, flow.feature_index(state)) in racer.sees_traps


def _feature_choice(state: RaceState, racer: Racer) -> TryFeature:
    feature = flow.stage_features(state)[state.feature]
    if feature.kind == "boost_trap":
        return TryFeature(not _trap_seen(state, racer))
    if feature.kind == "trampoline":
        gap = next((f for f in flow.stage_features(state)[state.feature + 1:] if f.kind == "gap"), None)
        return TryFeature(gap is not None and racer.speed < gap.speed)
    return TryFeature(True)


def _action_choice(state: RaceState, racer: Racer) -> Act:
    spec = state.vehicle_spec(racer)

    def can(maneuver: str, then: str = "") -> bool:
        return maneuvers.why_not(state, racer, maneuver, then) is None

    if racer.hp * 2 < spec.hp and can("patch"):
        return Act("patch")
    pilot = state.pilot_spec(racer)
    ahead = state.ahead_of(racer.id)
    if can("ram") and ahead is not None and racer.hp * 3 > spec.hp * 2 and spec.con >= state.vehicle_spec(ahead).con \
            and maneuvers.legality(state, "ram") == "legal":
        return Act("ram")   # a sturdier vehicle shoves where ramming is legal: the computer never risks the judges
    if can("pass"):
        if can("feint", "pass") and ahead is not None and pilot.deception > state.pilot_spec(ahead).insight:
            return Act("feint", "pass")
        return Act("pass")
    behind = state.behind(racer.id)
    if can("sweep") and behind is not None and behind.speed - racer.speed >= 20:
        return Act("sweep")
    if can("emergency_brake") and behind is not None and pilot.piloting > state.pilot_spec(behind).piloting \
            and racer.speed - behind.speed <= 30:
        return Act("emergency_brake")   # a better pilot makes the one behind pass at a disadvantage
    if can("attack") and maneuvers.legality(state, "attack") == "legal" and ahead is not None:
        return Act("attack", target=ahead.id)
    if ahead is not None and racer.speed < ahead.speed and racer.hp * 3 > spec.hp * 2:
        return Act("turbo")
    if can("savvy") and SECTION_RISK[state.the_track.sections[(state.section + 1)
                                                               % len(state.the_track.sections)].type] >= 1:
        return Act("savvy")
    if state.position(racer.id) == 1 and can("show_off"):
        return Act("show_off")
    return Act("none")


def _can_shoot(state: RaceState) -> bool:
    """Whether the racer answering may shoot back (a weapon bears, the GM did not refuse it) with no judge
    to disqualify it: the computer and the autopilot never take an illegal shot."""
    return maneuvers.reaction_why_not(state, "attack") is None and maneuvers.reaction_caught_chance(state) is None


def _reaction(state: RaceState, racer: Racer) -> React:
    kind = state.the_pending.kind
    if kind == "attack_back":
        return React("attack" if _can_shoot(state) else "none")
    if kind in ("ram", "sweep"):
        return React("dodge", brake=racer.speed > comfort_speed(state, racer))
    passer = state.racer(state.the_pending.actor)
    if passer.speed - racer.speed >= 30:      # much faster: swept into the hazard, or it sweeps itself
        return React("sweep")
    if maneuvers.legality(state, "attack") == "legal" and _can_shoot(state) and racer.hp * 2 > \
            state.vehicle_spec(racer).hp:
        return React("attack")
    return React("block")


def computer_action(state: RaceState, player: str) -> Any:
    """What a computer racer does now, or None when the race does not wait on it."""
    racer = state.racer_of(player)
    if racer is None or racer.out or player not in flow.acting_players(state):
        return None
    if state.phase == Phase.TUNE:
        return Tune(next((a for a in ("str", "dex") if a not in racer.tuned), ""))
    if state.phase == Phase.PREPARE:
        if racer.speed > comfort_speed(state, racer) + 50:
            return Prepare(brake=True, to=comfort_speed(state, racer))
        drop = racer.altitude - data.table()["hover_altitude"]
        return Prepare(descend=drop) if drop > 0 else Prepare()
    if state.phase == Phase.ACCELERATE:
        wanted = comfort_speed(state, racer)
        return Throttle(True, wanted) if racer.speed < wanted else Throttle(False)
    if state.phase == Phase.FEATURE:
        return _feature_choice(state, racer)
    if state.phase == Phase.ACTION:
        return _action_choice(state, racer)
    if state.phase == Phase.REACTION:
        return _reaction(state, racer)
    if state.phase == Phase.STABILIZE:
        return Stabilize(True)
    return None


def autopilot_action(state: RaceState, player: str, passive: bool = False) -> Any:
    """A deadline's answer for an absent racer: hold the speed, coast, go for what helps, avoid what
    hurts, take no action, and defend; a GM who is away reveals the section and refuses what waits."""
    if player not in flow.acting_players(state):
        return None
    if state.phase == Phase.GM and player == state.gm:
        return GmReveal()
    if state.phase == Phase.APPROVAL and player == state.gm:
        return GmRule(False)
    racer = state.racer_of(player)
    if racer is None or racer.out:
        return None
    if state.phase == Phase.TUNE:
        return Tune("")
    if state.phase == Phase.PREPARE:
        return Prepare()
    if state.phase == Phase.ACCELERATE:
        return Throttle(not passive and racer.speed < comfort_speed(state, racer))
    if state.phase == Phase.FEATURE:
        return _feature_choice(state, racer)
    if state.phase == Phase.ACTION:
        return Act("none")
    if state.phase == Phase.REACTION:   # defends: blocks a pass, dodges a ram or sweep, shoots back
        kind = state.the_pending.kind
        if kind == "attack_back":
            return React("attack" if _can_shoot(state) else "none")
        return React("dodge" if kind in ("ram", "sweep") else "block")
    if state.phase == Phase.STABILIZE:
        return Stabilize(True)
    return None


def autopilot_manner_for(state: RaceState, player: str, passive: bool) -> str:
    """How the autopilot plays for `player` now: the GM's part, or a racer's."""
    if player == state.gm:
        return "reveals the section as the GM readied it, and refuses an action that waits on a ruling"
    return autopilot_manner(passive)


def autopilot_manner(passive: bool) -> str:
    """How the autopilot races, for the deadline notice."""
    return ("holds the speed, coasts, takes helpful features, avoids harmful ones, takes no action and "
            "defends" if passive else
            "holds the speed, accelerates to a safe pace, takes helpful features, avoids harmful ones, "
            "takes no action and defends")
