"""The order of a section (seed, "Traversing a section"): the GM's description, optional braking, the
Piloting checks first to last with hazards and acceleration, the features before the action phase
first to last, the action phase last to first, the features after, then the next section, lap or the
finish. The steps that need no decision run on by themselves."""

from __future__ import annotations

from dataclasses import replace

from rules.race import checks, data
from rules.race.events import FeatureMet, RaceFinished, SectionBegan
from rules.race.rolls import d20, damage_dice
from rules.race.speed import change_altitude, damage, gain, go_out, lose
from rules.race.state import TOGETHER, Phase, Racer, RaceState
from rules.table import required

FEATURE_NAMES = {"boost": "boost strip", "boost_trap": "boost strip", "trampoline": "trampoline", "gap": "gap",
                 "mines": "mines", "magnetic": "magnetic rubble"}


def open_section(state: RaceState) -> tuple[RaceState, tuple]:
    """The next section begins: a seated GM readies it first; the bot GM reveals it at once."""
    fresh = tuple(replace(r, acted=False, reacted=False, made_check=False, sprung=False, answered=bool(r.out),
                          trying=False) for r in state.racers)
    state = replace(state, racers=fresh, pending=None, feature_stage="", feature=0, action_order=())
    if state.gm is not None:
        return replace(state, phase=Phase.GM), ()
    return reveal(state)


def reveal(state: RaceState) -> tuple[RaceState, tuple]:
    """The section's description with hints only (seed: "without revealing actual DC values"); racers
    whose passive Perception sees a boost trap learn it privately. Then braking, when anyone has a check."""
    track, section = state.the_track, state.the_section
    events: tuple = (SectionBegan(state.lap + 1, track.laps, state.section + 1, section.name, section.type,
                                  section.hint, tuple(checks.condition_words(c) for c in section.conditions)),)
    for index, feature in enumerate(section.before + section.after):
        if feature.kind == "boost_trap":
            key = trap_key(state.section, index)
            state = replace(state, racers=tuple(
                replace(r, sees_traps=r.sees_traps + (key,)) if state.pilot_spec(r).passive_perception >= feature.detect
                and key not in r.sees_traps else r for r in state.racers))
    if any(checks.needs_check(state, r) for r in state.racing()):
        return _together(state, Phase.PREPARE), events
    state, more = run_checks(state)
    return state, events + more


def trap_key(section: int, feature: int) -> str:
    return f"{section}:{feature}"


def _together(state: RaceState, phase: Phase, who: tuple[str, ...] | None = None) -> RaceState:
    """A simultaneous step: every racer still racing (or those in `who`) answers once."""
    racing = {r.id for r in state.racing()} if who is None else set(who)
    return replace(state, phase=phase,
                   racers=tuple(replace(r, answered=r.id not in racing, trying=False) for r in state.racers))


def waiting(state: RaceState) -> tuple[Racer, ...]:
    """The racers a simultaneous step still waits on, in move order."""
    return tuple(r for r in state.racing() if not r.answered)


def acting_players(state: RaceState) -> tuple[str, ...]:
    """Everyone the race waits on, in move order."""
    if state.phase in TOGETHER:
        return tuple(r.owner for r in waiting(state))
    if state.phase in (Phase.GM, Phase.APPROVAL):
        return (required(state.gm, "no GM is seated"),)
    if state.phase == Phase.ACTION:
        actor_now = actor(state)
        return (actor_now.owner,) if actor_now else ()
    if state.phase in (Phase.REACTION, Phase.STABILIZE):
        return (state.racer(state.the_pending.target).owner,)
    return ()


def run_checks(state: RaceState) -> tuple[RaceState, tuple]:
    """Seed: Piloting checks first to last; below the DC the hazard, at or above it (ruling) the racer
    may accelerate. Savvy's advantage is used up by this check."""
    events: tuple = ()
    for racer in state.racing():
        if not checks.needs_check(state, racer):   # Savvy's advantage was for this section: gone unused
            state = state.with_racer(replace(racer, made_check=True, advantage=False))
            continue
        dc = checks.section_dc(state, state.section, racer.altitude)
        state, total, rolled = checks.piloting(state, racer.id, "Piloting check for the section", dc,
                                               advantage=racer.advantage)
        state = state.with_racer(replace(state.racer(racer.id), advantage=False, made_check=total >= dc))
        events += (rolled,)
        if total < dc:
            state, more = checks.hit_hazard(state, racer.id)
            events += more
    able = tuple(r.id for r in state.racing() if r.made_check)
    if able:
        return _together(state, Phase.ACCELERATE, able), events
    state, more = start_features(state, "before")
    return state, events + more


def start_features(state: RaceState, stage: str) -> tuple[RaceState, tuple]:
    """The features of one stage ('before' or 'after' the action phase), one at a time."""
    state = replace(state, feature_stage=stage, feature=0)
    return next_feature(state)


def stage_features(state: RaceState) -> tuple[data.Feature, ...]:
    section = state.the_section
    return section.before if state.feature_stage == "before" else section.after


def feature_index(state: RaceState) -> int:
    """The current feature's index among the section's features (before first, then after)."""
    return state.feature + (len(state.the_section.before) if state.feature_stage == "after" else 0)


def asked(state: RaceState, feature: data.Feature) -> bool:
    """Whether racers choose about a feature: every one but an unavoidable gap.

    Seed: a gap's DC to avoid it is made "sufficiently high, so it is hard to avoid, or" the gap is made
    "unavoidable". From revision 5 a gap that lists a DC may be avoided; before, every gap was unavoidable."""
    return feature.kind != "gap" or (feature.dc > 0 and state.revision >= 5)


def next_feature(state: RaceState) -> tuple[RaceState, tuple]:
    """Ask everyone racing about the current feature; an unavoidable gap asks nobody; none left: on."""
    features = stage_features(state)
    events: tuple = ()
    while state.feature < len(features):
        feature = features[state.feature]
        if asked(state, feature) and state.racing():
            return _together(state, Phase.FEATURE), events
        state, more = resolve_feature(state)
        events += more
    if not state.racing():
        state, more = finish(state)
        return state, events + more
    if state.feature_stage == "before":
        state, more = start_actions(state)
    else:
        state, more = close_section(state)
    return state, events + more


def resolve_feature(state: RaceState) -> tuple[RaceState, tuple]:
    """Seed: racers resolve a feature in the move order, first to last."""
    feature = stage_features(state)[state.feature]
    events: tuple = ()
    for racer in state.racing():
        state, more = _meet(state, racer.id, feature)
        events += more
    return replace(state, feature=state.feature + 1), events


def _meet(state: RaceState, racer_id: str, feature: data.Feature) -> tuple[RaceState, tuple]:
    racer = state.racer(racer_id)
    name = FEATURE_NAMES[feature.kind]
    if feature.kind == "gap":
        return _gap(state, racer_id, feature)
    dc = checks.feature_dc(state, feature, racer.altitude)
    if not racer.trying:
        if feature.positive:
            return state, (FeatureMet(racer.name, name, "stays clear"),)
        return _feature_hits(state, racer_id, feature, f"does not try to avoid the {name}")
    state, total, rolled = checks.piloting(state, racer_id, f"Piloting check for the {name}", dc)
    made = total >= dc
    if feature.positive and not made:
        return state, (rolled, FeatureMet(racer.name, name, "misses it"))
    if not feature.positive:
        if made:
            return state, (rolled, FeatureMet(racer.name, name, "avoids it"))
        state, more = _feature_hits(state, racer_id, feature, "fails to avoid it")
        return state, (rolled,) + more
    return _contact(state, racer_id, feature, (rolled,))


def _gap(state: RaceState, racer_id: str, feature: data.Feature) -> tuple[RaceState, tuple]:
    """Seed: "Unless a vehicle has a listed amount of speed it falls down and is disqualified"; a trampoline
    before it halves that speed. A racer who tries to avoid an avoidable gap and makes its DC is spared it."""
    racer = state.racer(racer_id)
    events: tuple = ()
    if racer.trying and asked(state, feature):   # `trying` is only this feature's when racers were asked
        dc = checks.feature_dc(state, feature, racer.altitude)
        state, total, rolled = checks.piloting(state, racer_id, "Piloting check for the gap", dc)
        if total >= dc:
            return state, (rolled, FeatureMet(racer.name, "the gap", "avoids it"))
        events = (rolled,)
    need = feature.speed // 2 if racer.sprung else feature.speed
    if racer.speed >= need:
        return state, events + (FeatureMet(racer.name, "the gap", f"clears it at {racer.speed} km/h"),)
    state, out = go_out(state, racer_id, "disqualified")   # seed: "it falls down and is disqualified"
    return state, events + (FeatureMet(racer.name, "the gap", f"{racer.speed} km/h is too slow: falls"),) + out


def _feature_hits(state: RaceState, racer_id: str, feature: data.Feature, how: str) -> tuple[RaceState, tuple]:
    racer = state.racer(racer_id)
    name = FEATURE_NAMES[feature.kind]
    if feature.kind == "mines":
        state, points, rolled = damage_dice(state, racer.name, "mine damage", feature.dice, feature.die)
        state, more = damage(state, racer_id, points)
        return state, (FeatureMet(racer.name, name, how), rolled) + more
    state, more = lose(state, racer_id, feature.speed, f"is dragged by the {name}")
    return state, (FeatureMet(racer.name, name, how),) + more


def _contact(state: RaceState, racer_id: str, feature: data.Feature, events: tuple) -> tuple[RaceState, tuple]:
    racer = state.racer(racer_id)
    if feature.kind == "boost":
        state, more = gain(state, racer_id, feature.speed, "hits the boost strip", capped=False)
        return state, events + more
    if feature.kind == "trampoline":
        # Ruling: the trampoline's lift ignores the ceiling, and its speed loss, a climb, earns no bonus.
        # Seed: it "loses the same amount of speed" as the altitude it gains: from revision 4 the lift is
        # the price; before, the feature's own `speed` was (0 when only the altitude was listed).
        price = feature.altitude if state.revision >= 4 else feature.speed
        state = state.with_racer(replace(racer, altitude=racer.altitude + feature.altitude, sprung=True))
        state, more = lose(state, racer_id, price, f"bounces up {feature.altitude} m", bonus=False)
        return state, events + more
    # A boost trap: the speed, then the section's check again at the new speed, with disadvantage (seed).
    state, more = gain(state, racer_id, feature.speed, "hits a boost trap", capped=False)
    events += (FeatureMet(racer.name, "boost strip", "it is a trap"),) + more
    dc = checks.check_dc(state, state.racer(racer_id))
    state, total, rolled = checks.piloting(state, racer_id, "Piloting check again, thrown at the hazard", dc,
                                           disadvantage=True)
    events += (rolled,)
    if total < dc:
        state, more = checks.hit_hazard(state, racer_id)
        events += more
    return state, events


def start_actions(state: RaceState) -> tuple[RaceState, tuple]:
    """Seed: the action phase goes last to first; ruling (F-Zero RPG, found): that order is fixed at its
    start, even when places change."""
    order = tuple(r.id for r in reversed(state.racing()))
    state = replace(state, phase=Phase.ACTION, action_order=order, pending=None,
                    racers=tuple(replace(r, acted=False) for r in state.racers))
    return skip_to_actor(state)


def actor(state: RaceState) -> Racer | None:
    """The racer whose action it is: the first in the action order still racing who has not acted."""
    return next((state.racer(r) for r in state.action_order
                 if not state.racer(r).out and not state.racer(r).acted), None)


def skip_to_actor(state: RaceState) -> tuple[RaceState, tuple]:
    """On to whoever acts next, or the features after the action phase."""
    if not state.racing():
        return finish(state)
    if actor(state) is None:
        return start_features(state, "after")
    return replace(state, phase=Phase.ACTION, pending=None), ()


def close_section(state: RaceState) -> tuple[RaceState, tuple]:
    """The section's end: storms strike those in them (ruling: once a section, a Dexterity save for
    none); then the next section, the next lap, or the finish."""
    events: tuple = ()
    for condition in state.the_section.conditions:
        if not condition.damage_dice:
            continue
        for racer in state.racing():
            if not checks.condition_applies(condition, racer.altitude):
                continue
            pilot = state.pilot_spec(racer)
            state, total, rolled = d20(state, racer.name, f"Dexterity save against the {condition.what}",
                                       (("Dex save", pilot.dex_save),),
                                       verdict=lambda t, dc=condition.save_dc: "saved" if t >= dc else "hit")
            events += (rolled,)
            if total < condition.save_dc:
                state, points, hurt = damage_dice(state, racer.name, f"{condition.what} damage",
                                                  condition.damage_dice, condition.damage_die)
                state, more = damage(state, racer.id, points)
                events += (hurt,) + more
    track = state.the_track
    if not state.racing() or (state.section + 1 == len(track.sections) and state.lap + 1 == track.laps):
        state, more = finish(state)
        return state, events + more
    if state.section + 1 < len(track.sections):
        state = replace(state, section=state.section + 1)
    else:
        state = replace(state, section=0, lap=state.lap + 1)
    state, more = open_section(state)
    return state, events + more


def finish(state: RaceState) -> tuple[RaceState, tuple]:
    """Ruling (4.2.4 rule 16): finishers in the move order, then those out, the later out the higher."""
    finishers = [r for r in state.racing()]
    gone = sorted((r for r in state.racers if r.out), key=lambda r: -r.out_order)
    standings = tuple(r.name for r in finishers + gone)
    winner = finishers[0].owner if finishers else None
    return replace(state, phase=Phase.FINISHED, winner=winner, pending=None), \
        (RaceFinished(standings, tuple(r.out for r in finishers + gone)),)


def climb_or_descend(state: RaceState, racer_id: str, climb: int, descend: int) -> tuple[RaceState, tuple]:
    """A change of altitude asked with a brake, an acceleration or before a check."""
    if climb:
        return change_altitude(state, racer_id, climb)
    if descend:
        return change_altitude(state, racer_id, -descend)
    return state, ()
